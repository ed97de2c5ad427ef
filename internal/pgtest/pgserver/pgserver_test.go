package pgserver

import (
	"context"
	"errors"
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
