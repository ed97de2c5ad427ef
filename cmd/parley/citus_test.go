package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/pgstore"
)

// citusMarker opens the block of Citus calls in docs/postgresql.md, which
// TestDocumentedCitusCalls generates from the migrated schema.
const citusMarker = "-- Generated from the schema by TestDocumentedCitusCalls (cmd/parley/citus_test.go)."

// versionTables are goose's records of the migrations applied, which stay
// local to the Citus coordinator, where `parley migrate` runs.
var versionTables = []string{"parley_store_version", "search_schema_version"}

// TestDocumentedCitusCalls migrates a database (the store's and the search
// engine's schemas), sorts every table into a reference table (listed in
// pgstore.ReferenceTables or pgindex.ReferenceTables) or a company table
// (company_id first in its primary key, and in each of its unique
// indexes, as Citus requires of a distributed table), and fails unless the block of Citus calls in docs/postgresql.md
// is exactly the one those tables make: a table added to the schema and
// missing from docs/postgresql.md, or one it names that is gone, fails.
func TestDocumentedCitusCalls(t *testing.T) {
	ctx := context.Background()
	database := pgtest.Database(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"migrate", "--database", database}, &out, &out), out.String())
	conn, err := pgx.Connect(ctx, database)
	require.NoError(t, err)
	defer conn.Close(ctx)

	rows, err := conn.Query(ctx, `SELECT c.relname, coalesce(a.attname, ''),
  coalesce((SELECT bool_and(EXISTS (SELECT 1 FROM pg_attribute u WHERE u.attrelid = c.oid AND u.attnum = ANY (x.indkey) AND u.attname = 'company_id'))
    FROM pg_index x WHERE x.indrelid = c.oid AND x.indisunique), true),
  c.relpersistence = 'u'
FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
WHERE s.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Name, FirstKey            string
		UniqueByCompany, Unlogged bool
	}])
	require.NoError(t, err)

	var reference, distributed []string
	unlogged := map[string]bool{}
	for _, table := range tables {
		unlogged[table.Name] = table.Unlogged
		switch {
		case slices.Contains(versionTables, table.Name):
		case slices.Contains(pgstore.ReferenceTables, table.Name), slices.Contains(pgindex.ReferenceTables, table.Name):
			reference = append(reference, table.Name)
		case table.FirstKey == "company_id":
			assert.True(t, table.UniqueByCompany, "every unique index of %s must hold company_id to distribute it by company", table.Name)
			distributed = append(distributed, table.Name)
		default:
			t.Errorf("table %s is neither a reference table (pgstore.ReferenceTables, pgindex.ReferenceTables) nor keyed by company_id first", table.Name)
		}
	}
	require.NotEmpty(t, distributed)
	want := citusCalls(reference, distributed, unlogged)

	readme, err := os.ReadFile("../../docs/postgresql.md")
	require.NoError(t, err)
	got, found := fencedBlock(string(readme), citusMarker)
	require.True(t, found, "docs/postgresql.md has no sql block starting with %q; add this one:\n%s", citusMarker, want)
	assert.Equal(t, want, got, "docs/postgresql.md's Citus calls are not the schema's; replace the block with:\n%s", want)
}

// citusCalls is the block of calls that distributes the schema: the
// reference tables replicated to every node, then the company tables
// sharded by company_id (co-located, as Citus does for tables with a
// distribution column of one type), each list in name order. An unlogged
// table is co-located with none: Citus's rebalancer moves shards without
// blocking writes through logical replication, which cannot carry an
// unlogged table, and it moves a co-location group together.
func citusCalls(reference, distributed []string, unlogged map[string]bool) string {
	var b strings.Builder
	fmt.Fprintln(&b, citusMarker)
	for _, table := range reference {
		fmt.Fprintf(&b, "SELECT create_reference_table('%s');\n", table)
	}
	for _, table := range distributed {
		if unlogged[table] {
			fmt.Fprintf(&b, "SELECT create_distributed_table('%s', 'company_id', colocate_with => 'none');\n", table)
			continue
		}
		fmt.Fprintf(&b, "SELECT create_distributed_table('%s', 'company_id');\n", table)
	}
	return b.String()
}

// fencedBlock returns the text of the doc's fenced block that starts
// with the line first (that line included).
func fencedBlock(doc, first string) (string, bool) {
	start := strings.Index(doc, "```sql\n"+first+"\n")
	if start < 0 {
		return "", false
	}
	body := doc[start+len("```sql\n"):]
	end := strings.Index(body, "```")
	if end < 0 {
		return "", false
	}
	return body[:end], true
}

// writtenTable finds the tables a statement writes.
var writtenTable = regexp.MustCompile(`(?i)\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)`)

// TestRecordWritesKeepOffReferenceTables writes a new record of each
// family a company makes many of, then changes it, on a migrated database,
// and fails when a statement of the write touches a reference table
// (pgstore.ReferenceTables): under Citus each such write is replicated to
// every node, in a two-phase commit. A mailbox is the one record that
// keeps keys there (its address and widget ids, which incoming mail and
// the chat widget start from), and only those.
func TestRecordWritesKeepOffReferenceTables(t *testing.T) {
	ctx := context.Background()
	database := pgtest.Database(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"migrate", "--database", database}, &out, &out), out.String())
	rec := &pgtest.Recorder{}
	db, err := pgstore.Open(ctx, database, pgstore.Options{Tracer: rec})
	require.NoError(t, err)
	defer db.Close()
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	var conv parley.Conversation
	writes := []struct {
		name    string
		allowed []string // the reference tables the write may touch
		put     func(tx *pgstore.Tx) error
	}{
		{"mailbox", []string{"mailbox_emails", "widgets"}, func(tx *pgstore.Tx) error {
			m := &parley.Mailbox{CompanyID: 1, Name: "Support", Email: "support@example.com", Widgets: []string{"w1"}, CreatedAt: at}
			if err := tx.PutMailbox(m); err != nil {
				return err
			}
			m.Name = "Help"
			return tx.PutMailbox(m)
		}},
		{"customer", nil, func(tx *pgstore.Tx) error {
			c := &parley.Customer{CompanyID: 1, FirstName: "Ann", Emails: []parley.Entry{{Value: "ann@example.com", Type: "work"}}, CreatedAt: at}
			if err := tx.PutCustomer(c); err != nil {
				return err
			}
			c.LastName = "Lee"
			return tx.PutCustomer(c)
		}},
		{"organization", nil, func(tx *pgstore.Tx) error {
			o := &parley.Organization{CompanyID: 1, Name: "Acme", Domains: []string{"acme.example"}, CreatedAt: at}
			if err := tx.PutOrganization(o); err != nil {
				return err
			}
			o.Name = "Acme Inc"
			return tx.PutOrganization(o)
		}},
		{"conversation", nil, func(tx *pgstore.Tx) error {
			conv = parley.Conversation{CompanyID: 1, MailboxID: 1, CustomerID: 1, Subject: "Order", State: parley.StatePublished,
				Status: parley.StatusActive, CreatedAt: at}
			if err := tx.PutConversation(&conv); err != nil {
				return err
			}
			conv.Status = parley.StatusPending
			return tx.PutConversation(&conv)
		}},
		{"thread", nil, func(tx *pgstore.Tx) error {
			th := &parley.Thread{CompanyID: 1, ConversationID: conv.ID, Type: parley.ThreadNote, Body: "hi", MessageID: "m1@example.com", CreatedAt: at}
			if err := tx.PutThread(th); err != nil {
				return err
			}
			th.Body = "hello"
			if err := tx.PutThread(th); err != nil {
				return err
			}
			return tx.PutThreadSource(1, th.ID, []byte("raw"))
		}},
		{"attachment", nil, func(tx *pgstore.Tx) error {
			a := &parley.Attachment{CompanyID: 1, ConversationID: conv.ID, FileName: "a.txt", CreatedAt: at}
			if err := tx.PutAttachment(a, []byte("a")); err != nil {
				return err
			}
			return tx.MoveAttachments(1, []int64{a.ID}, conv.ID)
		}},
		{"webhook", nil, func(tx *pgstore.Tx) error {
			w := &parley.Webhook{CompanyID: 1, URL: "https://hooks.example.com", Events: []string{"convo.created"}, Secret: "s", CreatedAt: at}
			if err := tx.PutWebhook(w); err != nil {
				return err
			}
			return tx.SetDeliveriesPaused(1, w.ID, true, at)
		}},
		{"chat", nil, func(tx *pgstore.Tx) error {
			c := &parley.Chat{ID: "5d2b7c1e-0d7e-4c0e-9a57-3f1f3c1b2a01", CompanyID: 1, MailboxID: 1, CreatedAt: at}
			if err := tx.PutChat(c); err != nil {
				return err
			}
			return tx.PutTimelineEntry(1, c.ID, parley.TimelineEntry{Type: "page-viewed", Timestamp: at})
		}},
	}
	for _, w := range writes {
		from := len(rec.Calls())
		_, err := db.Update(ctx, w.put)
		require.NoError(t, err, w.name)
		calls := rec.Calls()[from:]
		require.NotEmpty(t, calls, w.name)
		for _, call := range calls {
			for _, m := range writtenTable.FindAllStringSubmatch(call.SQL, -1) {
				table := strings.ToLower(m[1])
				if slices.Contains(pgstore.ReferenceTables, table) && !slices.Contains(w.allowed, table) {
					t.Errorf("writing a %s record touches the reference table %s: %s", w.name, table, call.SQL)
				}
			}
		}
	}
}
