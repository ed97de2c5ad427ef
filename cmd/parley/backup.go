package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// backupCommand writes a consistent copy of the database to --out: through
// a running server's GET /admin/backup when --url is given (hot backup),
// else straight from the data directory's file, which no server may hold.
func backupCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "./parley-data", "data directory, when no server runs (PARLEY_DATA)")
	out := fs.String("out", "", "file to write the backup to (required)")
	url := fs.String("url", "", "base URL of a running server: back up through GET /admin/backup (PARLEY_URL)")
	token := fs.String("token", "", "bearer token for --url: the operator's admin token, or an owner's or administrator's (PARLEY_ADMIN_TOKEN)")
	if err := parseFlags(fs, args, map[string]string{"data": "data", "url": "url", "token": "admin-token"}); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required", errUsage)
	}
	tmp := *out + ".partial"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	var n int64
	if *url != "" {
		n, err = backupOverHTTP(ctx, strings.TrimRight(*url, "/"), *token, f)
	} else {
		n, err = backupFile(*data, f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := checkBackup(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "backup written: %s (%d bytes)\n", *out, n)
	return nil
}

// backupFile copies the database of dir from one read transaction.
func backupFile(dir string, w io.Writer) (int64, error) {
	if _, err := os.Stat(dbPath(dir)); err != nil {
		return 0, fmt.Errorf("no Parley database in %s", dir)
	}
	db, err := storage.Open(dbPath(dir), storage.Options{})
	if errors.Is(err, storage.ErrLocked) {
		return 0, fmt.Errorf("%w; back up the running server with --url and --token", err)
	}
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return db.WriteTo(w)
}

// backupOverHTTP streams GET /admin/backup of a running server into w.
func backupOverHTTP(ctx context.Context, base, token string, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/admin/backup", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return 0, fmt.Errorf("GET %s/admin/backup: %s: %s", base, res.Status, strings.TrimSpace(string(body)))
	}
	return io.Copy(w, res.Body)
}

// checkBackup opens a written backup to prove it is a whole database.
func checkBackup(path string) error {
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		return fmt.Errorf("the backup is not a readable database: %w", err)
	}
	err = db.View(func(tx *storage.Tx) error {
		_, err := tx.Companies()
		return err
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// restoreCommand puts a backup in place as the database of --data and
// rebuilds the search index from it. It refuses a data directory that
// holds anything unless --force, and always one a server holds.
func restoreCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "./parley-data", "data directory to restore into (PARLEY_DATA)")
	from := fs.String("from", "", "backup file (required)")
	force := fs.Bool("force", false, "replace the database and index of a non-empty data directory")
	if err := parseFlags(fs, args, map[string]string{"data": "data"}); err != nil {
		return err
	}
	if *from == "" {
		return fmt.Errorf("%w: --from is required", errUsage)
	}
	// Refuse a missing, foreign, truncated or inconsistent file before
	// touching the data directory.
	if err := storage.Verify(*from); err != nil {
		return fmt.Errorf("refusing to restore, nothing was changed: %w", err)
	}
	entries, err := os.ReadDir(*data)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if len(entries) > 0 {
		if !*force {
			return fmt.Errorf("%s is not empty; give --force to replace its database and index", *data)
		}
		if _, err := os.Stat(dbPath(*data)); err == nil {
			db, err := storage.Open(dbPath(*data), storage.Options{}) // refuses a directory a server holds
			if err != nil {
				return err
			}
			db.Close()
		}
	}
	if err := os.MkdirAll(*data, 0o700); err != nil {
		return err
	}
	if err := copyFile(*from, dbPath(*data)); err != nil {
		return err
	}
	if err := os.RemoveAll(indexPath(*data)); err != nil {
		return err
	}
	start := time.Now()
	in, err := open(ctx, location{dir: *data}, false, parley.SystemClock, quietLogger(), progressBar(stderr, "indexing"))
	if err != nil {
		return err
	}
	if err := in.close(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\nrestored %s into %s; index rebuilt in %s\n", *from, *data, time.Since(start).Round(time.Millisecond))
	return nil
}

// copyFile copies src to dst through a temporary file beside dst and a
// rename, so dst is never half written: a crash mid-copy leaves the old
// database whole (and a stray .restore-* file).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return err
	}
	// The rename is durable once the directory is synced.
	dir, err := os.Open(filepath.Dir(dst))
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}
