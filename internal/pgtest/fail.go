package pgtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// FailInserts makes the next `times` inserts into table of the database
// at url fail with SQLSTATE code, as the server fails a statement when it
// runs short of a resource (class 53: "out of shared memory" when its
// predicate lock table is full, "too many connections"); the inserts after
// them succeed. A trigger raises the error and a sequence counts the
// inserts tried, which a rollback does not undo; tries reads it.
func FailInserts(t testing.TB, url, table, code string, times int) (tries func() int) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	counter := pgx.Identifier{table + "_insert_tries"}.Sanitize()
	trigger := pgx.Identifier{table + "_failing_inserts"}.Sanitize()
	_, err = conn.Exec(ctx, fmt.Sprintf(`
		CREATE SEQUENCE %[1]s;
		CREATE FUNCTION %[2]s() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('%[1]s') <= %[3]d THEN
				RAISE EXCEPTION 'insert into %[4]s failed for the test' USING ERRCODE = '%[5]s';
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER %[2]s BEFORE INSERT ON %[4]s FOR EACH ROW EXECUTE FUNCTION %[2]s();`,
		counter, trigger, times, pgx.Identifier{table}.Sanitize(), code))
	if err != nil {
		t.Fatal(err)
	}
	return func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+counter).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}
