package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// writeCompanies creates a database at path holding n companies.
func writeCompanies(t *testing.T, path string, n int) {
	t.Helper()
	db, err := storage.Open(path, storage.Options{NoSync: true})
	require.NoError(t, err)
	_, err = db.Update(func(tx *storage.Tx) error {
		for i := range n {
			if err := tx.PutCompany(&parley.Company{Name: fmt.Sprintf("Company %d with a long enough name to fill pages", i), Plan: parley.PlanStandard}); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, db.Close())
}

// TestRestoreRefusesBadFiles: a missing file, a file that is not a
// database, and a truncated backup are refused with a clear error, and the
// live database stays exactly as it was; a good backup then restores.
func TestRestoreRefusesBadFiles(t *testing.T) {
	t.Parallel()
	files := t.TempDir()
	good := filepath.Join(files, "good.db")
	writeCompanies(t, good, 2000)
	whole, err := os.ReadFile(good)
	require.NoError(t, err)
	require.Greater(t, len(whole), 64*1024)
	write := func(name string, b []byte) string {
		p := filepath.Join(files, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	cases := []struct {
		name, from, want string
	}{
		{"missing", filepath.Join(files, "nope.db"), "no such file or directory"},
		{"a text file", write("notes.txt", bytes.Repeat([]byte("not a database\n"), 1000)), "invalid"},
		{"empty", write("empty.db", nil), "not a whole Parley database"},
		{"truncated in the middle", write("half.db", whole[:len(whole)/2]), "is truncated"},
		{"truncated to its meta pages", write("meta.db", whole[:8192]), "is truncated"},
		{"truncated inside a meta page", write("short.db", whole[:1000]), "not a whole Parley database"},
		{"a directory", files, "is not a regular file"},
	}
	data := t.TempDir()
	writeCompanies(t, dbPath(data), 1)
	live, err := os.ReadFile(dbPath(data))
	require.NoError(t, err)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			assert.Equal(t, 1, run(context.Background(), []string{"restore", "--data", data, "--from", tc.from, "--force"}, &out, &errs))
			assert.Contains(t, errs.String(), "refusing to restore, nothing was changed")
			assert.Contains(t, errs.String(), tc.want)
			now, err := os.ReadFile(dbPath(data))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(live, now), "the live database is untouched")
			entries, _ := os.ReadDir(data)
			assert.Len(t, entries, 1, "nothing written beside it")
		})
	}
	_, err = os.Stat(filepath.Join(files, "nope.db"))
	assert.True(t, os.IsNotExist(err), "checking a missing backup does not create it")

	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"restore", "--data", data, "--from", good, "--force"}, &out, &errs), errs.String())
	db, err := storage.Open(dbPath(data), storage.Options{})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		companies, err := tx.Companies()
		assert.Len(t, companies, 2000)
		return err
	}))
	entries, _ := os.ReadDir(data)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), ".restore-", "the temporary copy was renamed into place")
	}
}
