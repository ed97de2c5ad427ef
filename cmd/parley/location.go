package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// location is where Parley's records live: the PostgreSQL database at url
// when it is set, else the embedded database in the data directory dir.
// It is chosen here, once, from --data and --database. readURL, when set,
// is a streaming replica of url that serves searches and reports
// (--read-database).
type location struct{ dir, url, readURL string }

func (l location) postgres() bool { return l.url != "" }

// String names the location for logs and messages, without the
// credentials a database URL may carry.
func (l location) String() string {
	if !l.postgres() {
		return l.dir
	}
	cfg, err := pgx.ParseConfig(l.url)
	if err != nil {
		return "PostgreSQL"
	}
	return fmt.Sprintf("postgres://%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}

// databaseEnv is the environment variable of --database: the URL
// convention of PostgreSQL tools, not PARLEY_DATABASE.
const databaseEnv = "database-url"

// addDatabaseFlag registers --database (PARLEY_DATABASE_URL).
func addDatabaseFlag(fs *flag.FlagSet) *string {
	return fs.String("database", "", "PostgreSQL database, postgres://user:password@host:port/name (PARLEY_DATABASE_URL); "+
		"default: the embedded database of the data directory")
}

// readDatabaseEnv is the environment variable of --read-database.
const readDatabaseEnv = "read-database-url"

// addReadDatabaseFlag registers --read-database (PARLEY_READ_DATABASE_URL).
func addReadDatabaseFlag(fs *flag.FlagSet) *string {
	return fs.String("read-database", "", "a streaming replica of --database that answers searches, lists with a query and reports, "+
		"postgres://... (PARLEY_READ_DATABASE_URL); a read waits until the replica has this node's writes, else reads the primary")
}

// withReplica checks --read-database against --database.
func (l location) withReplica(readURL string) (location, error) {
	if readURL != "" && !l.postgres() {
		return l, fmt.Errorf("%w: --read-database is a replica of --database, which is not set", errUsage)
	}
	l.readURL = readURL
	return l, nil
}

// embeddedOnly names the commands that work on the embedded files alone
// (the bbolt database, the Bleve index), each with what to do instead on
// PostgreSQL.
var embeddedOnly = map[string]string{
	"backup": "back up a PostgreSQL database with pg_dump (pg_dump --format=custom --file=parley.dump URL), " +
		"which copies records and search tables together",
	"restore": "restore a PostgreSQL database from a pg_dump copy with pg_restore, then run `parley migrate`",
	"import": "it is not yet available on PostgreSQL: it drains the index outbox itself, which beside a running " +
		"server needs the several-nodes support still to come",
	"app": "it is not yet available on PostgreSQL; create the company's first application with " +
		"`parley init --database URL`",
}

// refuseEmbeddedOnly refuses a bbolt-only command given --database, or run
// where PARLEY_DATABASE_URL is set, rather than let it work on a data
// directory the operator did not mean.
func refuseEmbeddedOnly(command string, args []string, getenv func(string) string) error {
	instead, ok := embeddedOnly[command]
	if !ok {
		return nil
	}
	given := getenv(envName(databaseEnv)) != ""
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "database" {
			given = true
		}
	}
	if !given {
		return nil
	}
	return fmt.Errorf("parley %s works on the embedded database (--data) only; %s", command, instead)
}
