package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/gcpolicy"
	"github.com/parley/parley/storage"
)

// reindexCommand rebuilds the search index from storage: the index
// directory is removed, so nothing stale survives; on PostgreSQL, the
// search tables (see reindexPostgres).
func reindexCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA)")
	database := addDatabaseFlag(fs)
	if err := parseFlags(fs, args, map[string]string{"data": "data", "database": databaseEnv}); err != nil {
		return err
	}
	if *database != "" {
		return reindexPostgres(ctx, *database, stderr)
	}
	if _, err := os.Stat(dbPath(*data)); err != nil {
		return fmt.Errorf("no Parley database in %s", *data)
	}
	gcpolicy.Apply(os.Getenv, os.DirFS("/")) // a rebuild indexes everything: see the package
	// Refuse before touching the index when a server holds the directory.
	db, err := storage.Open(dbPath(*data), storage.Options{})
	if err != nil {
		return err
	}
	db.Close()
	if err := os.RemoveAll(indexPath(*data)); err != nil {
		return err
	}
	var progress func(done, total int)
	if f, ok := stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		var bar *progressbar.ProgressBar
		progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("reindexing"))
			}
			bar.Set(done)
		}
	}
	// The index directory is gone, so open builds it afresh from storage.
	in, err := open(ctx, location{dir: *data}, false, parley.SystemClock, slog.New(slog.NewTextHandler(io.Discard, nil)), progress)
	if err != nil {
		return err
	}
	defer in.close()
	fmt.Fprintln(stderr, "\nindex rebuilt")
	return nil
}

// appCommand handles `parley app create`, `parley app list` and
// `parley app revoke`.
func appCommand(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: app needs a subcommand: create, list, revoke", errUsage)
	}
	switch args[0] {
	case "create":
		return appCreate(args[1:], stdout)
	case "list":
		return appList(args[1:], stdout)
	case "revoke":
		return appRevoke(args[1:], stdout)
	}
	return fmt.Errorf("%w: unknown app subcommand %q (create, list, revoke)", errUsage, args[0])
}

// appCreate creates an OAuth application acting as an existing user and
// prints its client id and secret (the secret is stored bcrypt-hashed and
// shown only here).
func appCreate(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("app create", flag.ContinueOnError)
	fs.SetOutput(stdout)
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA)")
	email := fs.String("user", "", "e-mail of the existing user the application acts as")
	name := fs.String("name", "API application", "application name")
	redirect := fs.String("redirect-uri", "", "redirect URL of the authorization-code flow (absolute http or https URL)")
	if err := parseFlags(fs, args, map[string]string{"data": "data"}); err != nil {
		return err
	}
	if *email == "" {
		return fmt.Errorf("%w: --user is required", errUsage)
	}
	if *redirect != "" {
		u, err := url.Parse(*redirect)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
			return fmt.Errorf("%w: --redirect-uri must be an absolute http or https URL without a fragment", errUsage)
		}
	}
	db, err := storage.Open(dbPath(*data), storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	clientID, secret := randomHex(16), randomHex(24)
	hash, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	_, err = db.Update(func(tx *storage.Tx) error {
		u, err := tx.UserByEmail(*email)
		if err != nil {
			return fmt.Errorf("no user with e-mail %s", *email)
		}
		return tx.PutApp(&parley.App{ClientID: clientID, CompanyID: u.CompanyID, UserID: u.ID, Name: *name,
			SecretHash: string(hash), RedirectURI: *redirect, CreatedAt: parley.SystemClock.Now()})
	})
	if err != nil {
		return err
	}
	return printJSON(stdout, map[string]string{"client_id": clientID, "client_secret": secret, "name": *name, "redirect_uri": *redirect})
}

// appListing is one application as `parley app list` prints it.
type appListing struct {
	ClientID    string     `json:"client_id"`
	Name        string     `json:"name"`
	CompanyID   int64      `json:"company_id"`
	User        string     `json:"user"`
	RedirectURI string     `json:"redirect_uri"`
	CreatedAt   time.Time  `json:"created_at"`
	RevokedAt   *time.Time `json:"revoked_at,omitempty"`
}

// appList prints every application (never a secret) as a JSON array.
func appList(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("app list", flag.ContinueOnError)
	fs.SetOutput(stdout)
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA)")
	if err := parseFlags(fs, args, map[string]string{"data": "data"}); err != nil {
		return err
	}
	db, err := storage.Open(dbPath(*data), storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	out := []appListing{}
	err = db.View(func(tx *storage.Tx) error {
		apps, err := tx.Apps()
		for _, a := range apps {
			l := appListing{ClientID: a.ClientID, Name: a.Name, CompanyID: a.CompanyID, RedirectURI: a.RedirectURI,
				CreatedAt: a.CreatedAt, RevokedAt: a.RevokedAt}
			if u, err := tx.User(a.CompanyID, a.UserID); err == nil {
				l.User = u.Email
			}
			out = append(out, l)
		}
		return err
	})
	if err != nil {
		return err
	}
	return printJSON(stdout, out)
}

// appRevoke revokes an application: its secret and every token issued to
// it stop working from the next request.
func appRevoke(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("app revoke", flag.ContinueOnError)
	fs.SetOutput(stdout)
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA)")
	clientID := fs.String("client-id", "", "client id of the application to revoke")
	if err := parseFlags(fs, args, map[string]string{"data": "data"}); err != nil {
		return err
	}
	if *clientID == "" {
		return fmt.Errorf("%w: --client-id is required", errUsage)
	}
	db, err := storage.Open(dbPath(*data), storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	now := parley.SystemClock.Now()
	_, err = db.Update(func(tx *storage.Tx) error {
		a, err := tx.App(*clientID)
		if err != nil {
			return fmt.Errorf("no application with client id %s", *clientID)
		}
		if a.RevokedAt == nil {
			a.RevokedAt = &now
		}
		return tx.PutApp(a)
	})
	if err != nil {
		return err
	}
	return printJSON(stdout, struct {
		ClientID string `json:"client_id"`
		Revoked  bool   `json:"revoked"`
	}{*clientID, true})
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
