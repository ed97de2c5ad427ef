package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	parley "github.com/parley/parley"
	"github.com/parley/parley/transfer"
)

// copyCommand copies one company, or all of them, from one backend to
// another (a data directory or a PostgreSQL database on either side), then
// builds the target's search index and compares the copy with its source:
// every kind of record, counted and compared whole, and a fixed set of
// searches. It prints what it compared and fails on any difference.
func copyCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("copy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fromArg := fs.String("from", "", "where the records are: a data directory, or a PostgreSQL URL (postgres://...)")
	toArg := fs.String("to", "", "where to copy them: a data directory, or a migrated PostgreSQL database (postgres://...)")
	company := fs.Int64("company", 0, "the company to copy; default: every company")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *fromArg == "" || *toArg == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: copy needs --from and --to (a data directory or a postgres:// URL each)", errUsage)
	}
	from, to := locate(*fromArg), locate(*toArg)
	if from == to {
		return errors.New("--from and --to name the same place")
	}
	if !from.postgres() {
		if _, err := os.Stat(dbPath(from.dir)); err != nil {
			return fmt.Errorf("no Parley database in %s", from.dir)
		}
	}
	source, err := open(ctx, from, false, parley.SystemClock, quietLogger(), nil)
	if err != nil {
		return fmt.Errorf("open the source %s: %w", from, err)
	}
	defer source.close()
	var ids []int64
	if *company != 0 {
		ids = []int64{*company}
	}
	companies, err := transfer.Companies(source.db.Store(), ids)
	if err != nil {
		return err
	}
	if err := copyRecords(source.db.Store(), to, companies); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "copied %d companies from %s to %s; building the target's search index\n", len(companies), from, to)
	// Opening the target builds its index: a new Bleve index from storage,
	// or the PostgreSQL search tables from the outbox the copy filled.
	target, err := open(ctx, to, false, parley.SystemClock, quietLogger(), nil)
	if err != nil {
		return fmt.Errorf("open the target %s: %w", to, err)
	}
	defer target.close()
	if err := target.compact(ctx); err != nil {
		return err
	}
	return verifyCopy(ctx, source, target, companies, stdout)
}

// locate reads a --from or --to: a database URL or a data directory.
func locate(arg string) location {
	if strings.HasPrefix(arg, "postgres://") || strings.HasPrefix(arg, "postgresql://") {
		return location{url: arg}
	}
	return location{dir: arg}
}

// copyRecords copies the companies into the store at to, opened without
// the instance's workflow engine: a copy stores records as they were, it
// runs no rules.
func copyRecords(from parley.Store, to location, companies []int64) error {
	db, err := openStore(context.Background(), to)
	if err != nil {
		return fmt.Errorf("open the target %s: %w", to, err)
	}
	return errors.Join(transfer.Copy(from, db.Store(), companies), db.Close())
}

// verifyCopy prints the comparison of every company copied and fails
// when anything differs.
func verifyCopy(ctx context.Context, source, target *instance, companies []int64, stdout io.Writer) error {
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "company\trecords\tsource\ttarget\t")
	differ := 0
	var answers []transfer.Answer
	for _, company := range companies {
		counts, err := transfer.Compare(source.db.Store(), target.db.Store(), company)
		if err != nil {
			return fmt.Errorf("compare company %d: %w", company, err)
		}
		for _, c := range counts {
			fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%s\n", company, c.Kind, c.Source, c.Target, verdict(c.Same, &differ))
		}
		found, err := transfer.Searches(ctx, transfer.Side{Store: source.db.Store(), Search: source.search},
			transfer.Side{Store: target.db.Store(), Search: target.search}, company, parley.SystemClock.Now())
		if err != nil {
			return fmt.Errorf("search company %d: %w", company, err)
		}
		answers = append(answers, found...)
	}
	fmt.Fprintln(w, "\t\t\t\t")
	fmt.Fprintln(w, "company\tsearch (first 100 ids and total)\tsource\ttarget\t")
	for _, a := range answers {
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%s\n", a.Company, a.Search, a.Source.Total, a.Target.Total, verdict(a.Same(), &differ))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if differ > 0 {
		return fmt.Errorf("the copy differs from its source in %d of the comparisons above", differ)
	}
	fmt.Fprintln(stdout, "the copy matches its source")
	return nil
}

// verdict prints a comparison's outcome and counts a difference.
func verdict(same bool, differ *int) string {
	if same {
		return "same"
	}
	*differ++
	return "DIFFERENT"
}
