package pgserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartAppliesSettings: the caller's settings reach the server, which
// listens on loopback and makes separate databases.
func TestStartAppliesSettings(t *testing.T) {
	s, err := Start("work_mem=7MB", "max_connections=20")
	if errors.Is(err, ErrNotInstalled) && !Required() {
		t.Skip(err)
	}
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Stop()) }()
	ctx := context.Background()
	url, err := s.NewDatabase(ctx)
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for setting, want := range map[string]string{"work_mem": "7MB", "max_connections": "20", "listen_addresses": "127.0.0.1"} {
		var got string
		require.NoError(t, conn.QueryRow(ctx, "SELECT current_setting($1)", setting).Scan(&got))
		assert.Equal(t, want, got, setting)
	}
	other, err := s.NewDatabase(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, url, other)
	require.NoError(t, s.DropDatabase(ctx, other))
}

// TestStartInKeepsItsDatabases: a server started in a directory keeps its
// files at Stop, and started there again it serves the same databases;
// Database creates a missing one and finds an existing one.
func TestStartInKeepsItsDatabases(t *testing.T) {
	// Not t.TempDir: under root the server runs as another user, who must
	// reach dir through its parents.
	parent, err := os.MkdirTemp("", "pgserver-test-")
	require.NoError(t, err)
	defer os.RemoveAll(parent)
	require.NoError(t, os.Chmod(parent, 0o755))
	dir := filepath.Join(parent, "pg")
	s, err := StartIn(dir)
	if errors.Is(err, ErrNotInstalled) && !Required() {
		t.Skip(err)
	}
	require.NoError(t, err)
	ctx := context.Background()
	url, created, err := s.Database(ctx, "kept")
	require.NoError(t, err)
	assert.True(t, created)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `CREATE TABLE loaded AS SELECT 42 AS n`)
	require.NoError(t, err)
	conn.Close(ctx)
	require.NoError(t, s.Stop())
	assert.FileExists(t, filepath.Join(dir, "data", "PG_VERSION"), "Stop keeps the files")

	again, err := StartIn(dir)
	require.NoError(t, err)
	defer func() { assert.NoError(t, again.Stop()) }()
	url, created, err = again.Database(ctx, "kept")
	require.NoError(t, err)
	assert.False(t, created)
	conn, err = pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(t, conn.QueryRow(ctx, `SELECT n FROM loaded`).Scan(&n))
	assert.Equal(t, 42, n)
}
