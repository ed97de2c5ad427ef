package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	parley "github.com/parley/parley"
	"github.com/parley/parley/importer"
	"github.com/parley/parley/internal/gcpolicy"
)

// importCommand loads a Help Scout-shaped export into a company of a data
// directory no server holds, then brings the index up to date.
func importCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA)")
	company := fs.Int64("company", 0, "company id to import into; default: the only company (PARLEY_COMPANY)")
	if err := parseFlags(fs, args, map[string]string{"data": "data", "company": "company"}); err != nil {
		return err
	}
	gcpolicy.Apply(os.Getenv, os.DirFS("/")) // a bulk load: see the package
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: import needs one export file (JSON lines or a JSON array; - reads standard input)", errUsage)
	}
	in := os.Stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	export, err := importer.Read(in)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dbPath(*data)); err != nil {
		return fmt.Errorf("no Parley database in %s (the company, its users and mailboxes must exist)", *data)
	}
	inst, err := open(ctx, location{dir: *data}, false, parley.SystemClock, quietLogger(), nil)
	if err != nil {
		return err
	}
	sum, err := load(ctx, inst, export, *company, stderr)
	if err != nil {
		return errors.Join(err, inst.close())
	}
	before, after, err := inst.closeCompacted()
	if err != nil {
		return fmt.Errorf("the import is complete and indexed, but compacting the storage file failed (the file is as the import left it): %w", err)
	}
	fmt.Fprintf(stdout, "\ncustomers: %d created, %d already there\nconversations: %d created (%d threads), %d already there\nfailed: %d\n",
		sum.CustomersCreated, sum.CustomersSkipped, sum.ConversationsCreated, sum.ThreadsCreated, sum.ConversationsSkipped, len(sum.Failures))
	for _, f := range sum.Failures {
		if f.Kind == "document" {
			fmt.Fprintf(stdout, "  line %d: %s\n", f.Line, f.Err)
		} else {
			fmt.Fprintf(stdout, "  %s %d: %s\n", f.Kind, f.ID, f.Err)
		}
	}
	fmt.Fprintf(stdout, "storage file compacted: %d -> %d bytes\n", before, after)
	if n := len(sum.Failures); n > 0 {
		return fmt.Errorf("%d of the export's records failed (listed above); the others are imported, and a re-run skips them", n)
	}
	return nil
}

// load imports export into the instance's company, indexes what it wrote
// and compacts the search index.
func load(ctx context.Context, inst *instance, export *importer.Export, company int64, stderr io.Writer) (*importer.Summary, error) {
	sum, err := importer.Run(inst.db.Store(), export, importer.Options{CompanyID: company, Progress: progressBar(stderr, "importing")})
	if err != nil {
		return sum, err
	}
	if err := inst.drain(ctx); err != nil {
		return sum, fmt.Errorf("index the imported records: %w", err)
	}
	return sum, inst.compact(ctx)
}

// progressBar returns a progress reporter drawing a bar on a terminal, or
// nil when w is not one (logs and pipes stay clean).
func progressBar(w io.Writer, what string) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what))
		}
		bar.Set(done)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
