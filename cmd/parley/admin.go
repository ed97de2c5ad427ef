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
	"os"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// reindexCommand rebuilds the search index from storage: the index
// directory is removed, so nothing stale survives.
func reindexCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", envOr("PARLEY_DATA", "./parley-data"), "data directory (PARLEY_DATA)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(dbPath(*data)); err != nil {
		return fmt.Errorf("no Parley database in %s", *data)
	}
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
	in, err := open(ctx, *data, false, parley.SystemClock, slog.New(slog.NewTextHandler(io.Discard, nil)), progress)
	if err != nil {
		return err
	}
	defer in.close()
	fmt.Fprintln(stderr, "\nindex rebuilt")
	return nil
}

// appCommand handles `parley app create`.
func appCommand(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return fmt.Errorf("%w: app needs a subcommand: create", errUsage)
	}
	fs := flag.NewFlagSet("app create", flag.ContinueOnError)
	fs.SetOutput(stdout)
	data := fs.String("data", envOr("PARLEY_DATA", "./parley-data"), "data directory (PARLEY_DATA)")
	email := fs.String("user", "", "e-mail of the existing user the application acts as")
	name := fs.String("name", "API application", "application name")
	redirect := fs.String("redirect-uri", "", "redirect URL of the authorization-code flow")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *email == "" {
		return fmt.Errorf("%w: --user is required", errUsage)
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
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]string{"client_id": clientID, "client_secret": secret, "name": *name})
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
