package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestDatabasesAreSeparate: each test database is empty and its own, and
// the server speaks PostgreSQL 15 or later.
func TestDatabasesAreSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := Database(t), Database(t)
	assert.NotEqual(t, a, b)
	conn, err := pgx.Connect(ctx, a)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE TABLE t (company_id bigint PRIMARY KEY)")
	require.NoError(t, err)
	var version int
	require.NoError(t, conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version))
	assert.GreaterOrEqual(t, version, 150000)

	other, err := pgx.Connect(ctx, b)
	require.NoError(t, err)
	defer other.Close(ctx)
	var tables int
	require.NoError(t, other.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 't'").Scan(&tables))
	assert.Zero(t, tables, "a fresh database holds nothing of another")
}

// TestCheckTenant: the check catches statements that reach past one
// company, and passes those that stay within it.
func TestCheckTenant(t *testing.T) {
	tables := []string{"docs", "words"}
	for _, c := range []struct {
		sql string
		ok  bool
	}{
		{"SELECT d.id FROM docs d WHERE d.company_id = $1", true},
		{"SELECT id FROM docs WHERE docs.company_id = $1 AND kind = $2", true},
		{"SELECT d.id FROM docs d WHERE d.id IN (SELECT w.id FROM words w WHERE w.company_id = $1) AND d.company_id = $1", true},
		{"INSERT INTO docs (company_id, id) SELECT $1, u.id FROM unnest($2::text[]) AS u(id)", true},
		{"DELETE FROM words x WHERE x.company_id = $1 AND x.id = ANY($2)", true},
		{"SELECT count(*) FROM other o", true},
		{"SELECT d.id FROM docs d WHERE d.kind = $1", false},
		{"SELECT d.id FROM docs d WHERE d.company_id = $1 AND d.id IN (SELECT w.id FROM words w WHERE w.kind = $2)", false},
		{"SELECT d.id FROM docs d WHERE d.company_id = $1 AND d.id IN (SELECT w.id FROM words w WHERE xw.company_id = $1)", false},
		{"INSERT INTO docs (id) VALUES ($1)", false},
		{"DELETE FROM words WHERE id = $1", false},
		{"UPDATE docs SET x = 1 WHERE company = $1", false},
		{"SELECT d.id FROM docs d WHERE d.kind = $1 /* exempt */", true},
	} {
		err := CheckTenant(c.sql, tables, "/* exempt */")
		assert.Equal(t, c.ok, err == nil, "%s: %v", c.sql, err)
	}
}
