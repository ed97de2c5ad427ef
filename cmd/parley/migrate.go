package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/pgstore"
)

// migrateCommand applies the pending migrations of the PostgreSQL schema:
// the store's (pgstore) and the search engine's (pgindex), and says which
// it applied. The embedded database needs none: bbolt creates its
// buckets and Bleve rebuilds on a new mapping.
func migrateCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	database := addDatabaseFlag(fs)
	if err := parseFlags(fs, args, map[string]string{"database": databaseEnv}); err != nil {
		return err
	}
	if *database == "" {
		return fmt.Errorf("%w: --database (or PARLEY_DATABASE_URL) is required; the embedded database needs no migration", errUsage)
	}
	at := location{url: *database}
	cfg, err := pgx.ParseConfig(at.url)
	if err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	store, err := pgstore.Migrate(ctx, at.url)
	if err != nil {
		return err
	}
	search, err := pgindex.Migrate(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "migrated %s\n", at)
	for _, schema := range []struct {
		name    string
		applied []string
	}{{"store", store}, {"search", search}} {
		if len(schema.applied) == 0 {
			fmt.Fprintf(stderr, "  %s schema: up to date, nothing applied\n", schema.name)
		} else {
			fmt.Fprintf(stderr, "  %s schema: applied %s\n", schema.name, strings.Join(schema.applied, ", "))
		}
	}
	return nil
}
