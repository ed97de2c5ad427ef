// Command parley runs the Parley support-inbox API and its admin tasks:
//
//	parley version
//	parley migrate --database URL
//	parley serve   [--addr 127.0.0.1:8080] [--data ./parley-data | --database URL] [--base-url URL]
//	               [--tls-cert FILE --tls-key FILE | --tls-self-signed] [--insecure-http]
//	               [--transition-path /transition] [--demo] [--admin-token T] [--metrics-addr ADDR]
//	parley init    [--data DIR | --database URL] --company NAME --owner EMAIL [--plan standard|plus|pro]
//	parley reindex [--data DIR | --database URL]
//	parley backup  --out FILE [--data DIR | --url URL --token TOKEN]
//	parley restore --data DIR --from FILE [--force]
//	parley import  --data DIR [--company ID] FILE
//	parley copy    --from DIR|URL --to DIR|URL [--company ID]
//	parley pull    [--from URL] --client-id ID --client-secret S [--data DIR | --database URL]
//	               [--company ID | --new-company NAME]
//	parley app create --data DIR --user EMAIL [--name NAME] [--redirect-uri URL]
//	parley app list   --data DIR
//	parley app revoke --data DIR --client-id ID
//
// `serve --demo` loads the embedded demo data into an empty data
// directory; a plain `serve` never creates credentials (use `init`).
// --database (PARLEY_DATABASE_URL) runs on PostgreSQL instead of the data
// directory, once `migrate` has created its schema; backup, restore,
// import and app work on the embedded database only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `Parley: a self-hosted shared inbox serving Help Scout's Mailbox API 2.0.

usage:
  parley version
  parley migrate --database URL
  parley serve   [--addr 127.0.0.1:8080] [--data ./parley-data | --database URL] [--base-url URL]
                 [--tls-cert FILE --tls-key FILE | --tls-self-signed] [--insecure-http]
                 [--transition-path /transition] [--demo] [--admin-token T] [--metrics-addr ADDR]
  parley init    [--data DIR | --database URL] --company NAME --owner EMAIL [--plan standard|plus|pro]
  parley reindex [--data DIR | --database URL]
  parley backup  --out FILE [--data DIR | --url URL --token TOKEN]
  parley restore --data DIR --from FILE [--force]
  parley import  --data DIR [--company ID] FILE
  parley copy    --from DIR|URL --to DIR|URL [--company ID]
  parley pull    [--from URL] --client-id ID --client-secret S [--data DIR | --database URL]
                 [--company ID | --new-company NAME]
  parley app create --data DIR --user EMAIL [--name NAME] [--redirect-uri URL]
  parley app list   --data DIR
  parley app revoke --data DIR --client-id ID
`

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	err := refuseEmbeddedOnly(args[0], args[1:], os.Getenv)
	if err == nil {
		switch args[0] {
		case "migrate":
			err = migrateCommand(ctx, args[1:], stderr)
		case "serve":
			err = serveCommand(ctx, args[1:], stderr)
		case "init":
			err = initCommand(args[1:], os.Stdin, stdout, stderr)
		case "reindex":
			err = reindexCommand(ctx, args[1:], stderr)
		case "app":
			err = appCommand(args[1:], stdout)
		case "backup":
			err = backupCommand(ctx, args[1:], stderr)
		case "restore":
			err = restoreCommand(ctx, args[1:], stderr)
		case "import":
			err = importCommand(ctx, args[1:], stdout, stderr)
		case "copy":
			err = copyCommand(ctx, args[1:], stdout, stderr)
		case "pull":
			err = pullCommand(ctx, args[1:], stdout, stderr)
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		case "version", "--version":
			fmt.Fprint(stdout, versionLine(debug.ReadBuildInfo()))
			return 0
		default:
			err = fmt.Errorf("unknown command %q", args[0])
		}
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "parley %s: %v\n", args[0], err)
		if errors.Is(err, errUsage) {
			fmt.Fprint(stderr, usage)
		}
		return 1
	}
	return 0
}

var errUsage = errors.New("bad usage")
