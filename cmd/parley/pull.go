package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/internal/gcpolicy"
	"github.com/parley/parley/puller"
)

// pullCommand copies an account from a server that speaks the Help Scout
// Mailbox API 2.0 (Help Scout itself by default, or another Parley) into a
// company of a data directory or database, then brings the index up to
// date and prints what it copied, skipped and refused.
func pullCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pull", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", puller.DefaultSource, "base URL of the source API")
	clientID := fs.String("client-id", "", "the source's OAuth application id (required)")
	clientSecret := fs.String("client-secret", "", "the source's OAuth application secret (required)")
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA)")
	database := addDatabaseFlag(fs)
	company := fs.Int64("company", 0, "company id to pull into; default: the only company (PARLEY_COMPANY)")
	newCompany := fs.String("new-company", "", "create a company of this name and pull into it")
	if err := parseFlags(fs, args, map[string]string{"data": "data", "database": databaseEnv, "company": "company"}); err != nil {
		return err
	}
	switch {
	case *clientID == "" || *clientSecret == "" || fs.NArg() > 0:
		return fmt.Errorf("%w: pull needs --client-id and --client-secret", errUsage)
	case *company != 0 && *newCompany != "":
		return fmt.Errorf("%w: --company and --new-company name two targets; give one", errUsage)
	}
	gcpolicy.Apply(os.Getenv, os.DirFS("/")) // a bulk load: see the package
	at := location{dir: *data, url: *database}
	if !at.postgres() {
		if _, err := os.Stat(dbPath(*data)); err != nil && *newCompany == "" {
			return fmt.Errorf("no Parley database in %s (run parley init, or pull with --new-company)", *data)
		}
	}
	inst, err := open(ctx, at, false, parley.SystemClock, quietLogger(), nil)
	if err != nil {
		return err
	}
	src := &puller.Client{Base: *from, ClientID: *clientID, ClientSecret: *clientSecret}
	if *newCompany != "" {
		account, err := puller.NewCompany(ctx, src, inst.db.Store(), *newCompany, api.HashSecret, parley.SystemClock.Now())
		if err != nil {
			return errors.Join(err, inst.close())
		}
		*company = account.Company.ID
		fmt.Fprintf(stdout, "company %d (%s) created; its owner %s signs in with the password %s\n"+
			"its API application: client id %s, client secret %s\n", account.Company.ID, account.Company.Name,
			account.Owner.Email, account.OwnerPassword, account.App.ClientID, account.ClientSecret)
	}
	sum, err := puller.Pull(ctx, src, inst.db.Store(), puller.Options{CompanyID: *company, Progress: progressBar(stderr, "pulling")})
	if sum != nil {
		printPullSummary(stdout, sum)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("%w (what is written stays; run the pull again to go on)", err), inst.close())
	}
	if err := inst.drain(ctx); err != nil {
		return errors.Join(fmt.Errorf("index the pulled records: %w", err), inst.close())
	}
	if err := errors.Join(inst.compact(ctx), inst.close()); err != nil {
		return err
	}
	if n := len(sum.Refused); n > 0 {
		return fmt.Errorf("the target refused %d of the source's records (listed above); the others are copied", n)
	}
	return nil
}

// printPullSummary prints the counts by kind and every refusal with why.
func printPullSummary(w io.Writer, sum *puller.Summary) {
	kinds := map[string]bool{}
	for _, counts := range []map[string]int{sum.Copied, sum.Updated, sum.Skipped} {
		for k := range counts {
			kinds[k] = true
		}
	}
	fmt.Fprintln(w)
	if sum.Since != nil {
		fmt.Fprintf(w, "customers and conversations changed since the last pull (%s):\n", parley.FormatTime(*sum.Since))
	}
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		fmt.Fprintf(w, "%s: %d copied, %d updated, %d already there\n", k, sum.Copied[k], sum.Updated[k], sum.Skipped[k])
	}
	fmt.Fprintf(w, "refused: %d\n", len(sum.Refused))
	for _, r := range sum.Refused {
		fmt.Fprintf(w, "  %s %d: %s\n", r.Kind, r.ID, r.Reason)
	}
}
