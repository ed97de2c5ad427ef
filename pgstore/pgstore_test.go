package pgstore

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open migrates a fresh database and opens the store on it; when the test
// ends it checks that every statement the store ran is registered and
// kept to one company.
func open(t *testing.T) (*DB, string) {
	t.Helper()
	return openIndexed(t, nil)
}

// openIndexed is open with an indexer (Options.Indexer).
func openIndexed(t *testing.T, indexer Indexer) (*DB, string) {
	t.Helper()
	ctx := context.Background()
	url := migrated(t)
	rec := &pgtest.Recorder{}
	db, err := Open(ctx, url, Options{Tracer: rec, Indexer: indexer})
	require.NoError(t, err)
	t.Cleanup(func() {
		db.Close()
		for _, sql := range rec.Statements() {
			if !slices.Contains(statements, sql) && !transactionControl.MatchString(sql) {
				t.Errorf("a statement run is not registered with stmt: %s", sql)
			}
		}
		exempt := 0
		for _, sql := range rec.Statements() {
			if err := checkTenant(sql); err != nil {
				t.Error(err)
			}
			if checkTenant(sql) == nil && pgtest.CheckTenant(sql, CompanyTables, "") != nil {
				exempt++
			}
		}
		assert.LessOrEqual(t, exempt, len(allCompanies)+len(byID), "statements reaching past one company")
	})
	return db, url
}

// migrated returns the URL of a fresh database with the store's schema.
func migrated(t *testing.T) string {
	t.Helper()
	url := pgtest.Database(t)
	_, err := Migrate(context.Background(), url)
	require.NoError(t, err)
	return url
}

// transactionControl matches the statements pgx issues to begin and end
// transactions.
var transactionControl = regexp.MustCompile(`^(?i)(begin|commit|rollback)\b`)

// allCompanies are the queues allowed to read across companies
// (AllCompanies), and byID the reads by id across companies (ByID): a
// given id's check, a rebuild's loads.
var (
	allCompanies = []string{sqlDueLater, sqlClaimEventCompany, sqlNextLater, sqlPendingEvents, sqlDueDeliveries, sqlDueMail, sqlNextMail}
	byID         = []string{sqlConversationByID, sqlCustomerByID, sqlChatByID, conversationIDs.held, customerIDs.held, mailboxIDs.held,
		organizationIDs.held, threadIDs.held, attachmentIDs.held, webhookIDs.held}
)

// checkTenant is pgtest.CheckTenant of the company tables, but for the
// statements marked AllCompanies or ByID.
func checkTenant(sql string) error {
	if strings.Contains(sql, AllCompanies) || strings.Contains(sql, ByID) {
		return nil
	}
	return pgtest.CheckTenant(sql, CompanyTables, "")
}

// TestStatementsKeepToACompany walks every statement the package may run:
// each that touches a company table filters it by company_id (or sets it,
// inserting), but for the queues marked AllCompanies and the reads by id
// marked ByID, none of which writes.
func TestStatementsKeepToACompany(t *testing.T) {
	var marked []string
	for _, sql := range Statements() {
		if err := checkTenant(sql); err != nil {
			t.Error(err)
		}
		if pgtest.CheckTenant(sql, CompanyTables, "") != nil {
			marked = append(marked, sql)
		}
	}
	assert.ElementsMatch(t, append(slices.Clone(allCompanies), byID...), marked,
		"only the statements of allCompanies and byID reach past one company")
	for _, sql := range byID {
		assert.NotRegexp(t, `(?i)\b(INSERT|UPDATE|DELETE)\b`, sql, "a read by id across companies writes nothing")
	}
}

// TestSchemaIsKeyedByCompany: every table is a reference table or a
// company table, and each company table has company_id as the first
// column of its primary key, so Citus can distribute it by company.
func TestSchemaIsKeyedByCompany(t *testing.T) {
	ctx := context.Background()
	_, url := open(t)
	conn := pgtest.Dial(t, url)
	rows, err := conn.Query(ctx, `SELECT c.relname, coalesce(a.attname, '')
FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
WHERE s.nspname = 'public' AND c.relkind = 'r' AND c.relname <> $1 ORDER BY c.relname`, versionTable)
	require.NoError(t, err)
	first, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Table, Column string }])
	require.NoError(t, err)
	var tables []string
	for _, f := range first {
		tables = append(tables, f.Table)
		if slices.Contains(CompanyTables, f.Table) {
			assert.Equal(t, "company_id", f.Column, "the primary key of %s", f.Table)
		}
	}
	assert.ElementsMatch(t, append(slices.Clone(ReferenceTables), CompanyTables...), tables)
}

// TestOpenRefusesAnOlderSchema: a database not migrated as far as the
// binary is refused with the error that names the command to run; once
// migrated it opens, and migrating again changes nothing.
func TestOpenRefusesAnOlderSchema(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	_, err := Open(ctx, url, Options{})
	require.ErrorIs(t, err, ErrSchemaOutdated)
	assert.Contains(t, err.Error(), "parley migrate")
	applied, err := Migrate(ctx, url)
	require.NoError(t, err)
	assert.NotEmpty(t, applied, "a new database receives every migration")
	applied, err = Migrate(ctx, url)
	require.NoError(t, err)
	assert.Empty(t, applied, "a migrated database receives none")
	db, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	db.Close()
}

// migratedTo makes a database migrated as far as version, as an older
// Parley left it, and returns its URL, its configuration and a connection
// to it, closed when the test ends.
func migratedTo(t *testing.T, version int64) (string, *pgx.ConnConfig, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	url := pgtest.Database(t)
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	require.NoError(t, withProvider(cfg, func(p *goose.Provider) error { _, err := p.UpTo(ctx, version); return err }))
	return url, cfg, pgtest.Dial(t, url)
}

// TestMailboxEmailsFilledFromMailboxes: migration 2 gives the mailboxes a
// database already holds their address keys, normalized.
func TestMailboxEmailsFilledFromMailboxes(t *testing.T) {
	ctx := context.Background()
	url, _, conn := migratedTo(t, 1)
	_, err := conn.Exec(ctx, `INSERT INTO mailboxes (company_id, id, body) VALUES (3, 5, '{"id": 5, "companyId": 3, "email": " Desk@Example.COM"}')`)
	require.NoError(t, err)
	_, err = Migrate(ctx, url)
	require.NoError(t, err)

	db, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Store().View(ctx, func(tx parley.Tx) error {
		m, err := tx.MailboxByEmail("desk@example.com")
		require.NoError(t, err)
		assert.Equal(t, int64(5), m.ID)
		return nil
	}))
}

// TestChatTimelinesMovedOutOfChats: migration 5 moves the timelines chats
// held inside their bodies to rows of their own, in order, and takes them
// out of the bodies; a chat without one is left as it was. Rolled back,
// the bodies hold them again.
func TestChatTimelinesMovedOutOfChats(t *testing.T) {
	ctx := context.Background()
	url, cfg, conn := migratedTo(t, 4)
	for _, sql := range []string{
		`INSERT INTO chat_owners (chat_id, company_id) VALUES ('c1', 3), ('c2', 3)`,
		`INSERT INTO chats (company_id, id, body) VALUES
(3, 'c1', '{"id": "c1", "companyId": 3, "createdAt": "2025-03-04T05:06:07Z", "visitorTokenHash": "h", "timeline": [
  {"type": "page-viewed", "timestamp": "2025-03-04T05:06:07.891Z", "url": "https://shop.example.com/orders/42", "title": "Order 42"},
  {"type": "cart", "timestamp": "2025-03-04T05:07:07Z", "url": "https://shop.example.com/cart", "title": ""}]}'),
(3, 'c2', '{"id": "c2", "companyId": 3, "createdAt": "2025-03-04T05:06:07Z", "visitorTokenHash": "h"}')`,
	} {
		_, err := conn.Exec(ctx, sql)
		require.NoError(t, err)
	}
	_, err := Migrate(ctx, url)
	require.NoError(t, err)

	var held int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM chats WHERE body ? 'timeline'`).Scan(&held))
	assert.Zero(t, held, "no chat holds its timeline")
	db, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer db.Close()
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	require.NoError(t, db.Store().View(ctx, func(tx parley.Tx) error {
		timeline, err := tx.ChatTimeline(3, "c1")
		require.NoError(t, err)
		assert.Equal(t, []parley.TimelineEntry{
			{Type: "page-viewed", Timestamp: at.Add(891 * time.Millisecond), URL: "https://shop.example.com/orders/42", Title: "Order 42"},
			{Type: "cart", Timestamp: at.Add(time.Minute), URL: "https://shop.example.com/cart"},
		}, timeline)
		n, err := tx.TimelineLength(3, "c1")
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		timeline, err = tx.ChatTimeline(3, "c2")
		require.NoError(t, err)
		assert.Nil(t, timeline)
		chat, err := tx.Chat(3, "c2")
		require.NoError(t, err)
		assert.Equal(t, &parley.Chat{ID: "c2", CompanyID: 3, CreatedAt: at, VisitorTokenHash: "h"}, chat)
		return nil
	}))

	// Rolled back, the chats hold their timelines again, as they were.
	require.NoError(t, withProvider(cfg, func(p *goose.Provider) error { _, err := p.DownTo(ctx, 4); return err }))
	var urls []string
	require.NoError(t, conn.QueryRow(ctx, `SELECT array_agg(e->>'url' ORDER BY n) FROM chats h, jsonb_array_elements(h.body->'timeline') WITH ORDINALITY AS x(e, n) WHERE h.id = 'c1'`).Scan(&urls))
	assert.Equal(t, []string{"https://shop.example.com/orders/42", "https://shop.example.com/cart"}, urls)
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM chats WHERE body ? 'timeline'`).Scan(&held))
	assert.Equal(t, 1, held, "a chat without a timeline gets none")
}
