package pgindex

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/query"
)

// TestTablesFollowCatalog: the migrated tables have exactly the columns
// the catalog gives each kind, of the types the package comment maps its
// fields to, so a catalog change without a migration fails here.
func TestTablesFollowCatalog(t *testing.T) {
	ctx := context.Background()
	_, url := open(t)
	conn := pgtest.Dial(t, url)
	for _, kind := range index.Kinds {
		l := layouts[kind]
		want := map[string]string{"company_id": "bigint", "doc_id": "text", "fields": "text[]", "extra": "jsonb"}
		for _, c := range l.columns {
			if c.field.Type == index.TextField {
				want[c.name+"_lexemes"], want[c.name+"_stems"], want[c.name+"_runs"] = "tsvector", "tsvector", "text"
				continue
			}
			want[c.name] = strings.ReplaceAll(c.sqlType(), ` COLLATE "C"`, "")
		}
		rows, err := conn.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`, l.table)
		require.NoError(t, err)
		got := map[string]string{}
		for rows.Next() {
			var name, typ string
			require.NoError(t, rows.Scan(&name, &typ))
			got[name] = typ
		}
		require.NoError(t, rows.Err())
		assert.Equal(t, want, got, "the columns of %s", l.table)
	}
}

// TestGINPendingListsAreShort: every GIN index of the search tables keeps
// a pending list of at most 256 kB, which every search using it reads
// whole (see migration 00007), so a GIN index added later without the
// setting fails here.
func TestGINPendingListsAreShort(t *testing.T) {
	ctx := context.Background()
	_, url := open(t)
	conn := pgtest.Dial(t, url)
	rows, err := conn.Query(ctx, `SELECT i.relname, coalesce(array_to_string(i.reloptions, ','), '')
FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_am a ON a.oid = i.relam
WHERE a.amname = 'gin' AND t.relname LIKE 'search\_%' AND t.relnamespace = current_schema()::regnamespace`)
	require.NoError(t, err)
	got := map[string]string{}
	for rows.Next() {
		var name, options string
		require.NoError(t, rows.Scan(&name, &options))
		got[name] = options
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, got)
	for name, options := range got {
		assert.Equal(t, "gin_pending_list_limit=256", options, name)
	}
}

// TestOneValuedColumnRefusesTwo: a field the layout keeps in a scalar
// column (here a conversation's status) cannot take two values; the
// batch is refused whole, with the field named, and nothing is written.
func TestOneValuedColumnRefusesTwo(t *testing.T) {
	ctx := context.Background()
	e, _ := open(t)
	good := index.NewDocument("1", 1)
	good.Keywords["status"] = []string{"active"}
	bad := index.NewDocument("2", 1)
	bad.Keywords["status"] = []string{"active", "closed"}
	err := e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{good, bad}}, nil)
	require.ErrorContains(t, err, "field status holds 2 values")
	res, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{}, Total: 0}, res)
}

// TestSearchIsOneStatementOnTheKindsTable: a search with a query, a
// filter and a sort is one statement, reading only its kind's table.
func TestSearchIsOneStatementOnTheKindsTable(t *testing.T) {
	ctx := context.Background()
	rec := &pgtest.Recorder{}
	e, err := Open(ctx, pgtest.Database(t), Options{Tracer: rec})
	require.NoError(t, err)
	defer e.Close()
	d := index.NewDocument("1", 1)
	d.Keywords["status"] = []string{"active"}
	d.Texts["body"] = []string{"a refund please"}
	d.Numbers["createdAt"] = []float64{1}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{d}}, nil))
	before := len(rec.Statements())
	res, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Query: query.Match{Field: "body", Text: "refunds"},
		Filter: query.Keyword{Field: "status", Value: "active"}, Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"1"}, Total: 1}, res)
	statements := rec.Statements()[before:]
	require.Len(t, statements, 1)
	tables := regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+(search_\w+)`).FindAllStringSubmatch(statements[0], -1)
	require.NotEmpty(t, tables)
	for _, m := range tables {
		assert.Equal(t, "search_conversation", m[1], statements[0])
	}
}

// TestOneValueIsAnEquality: a number range of one value (mailbox:1)
// reaches PostgreSQL as an equality, which the planner estimates from the
// column's common values and reads off a btree in its next columns'
// order; a range stays a range.
func TestOneValueIsAnEquality(t *testing.T) {
	ctx := context.Background()
	rec := &pgtest.Recorder{}
	e, err := Open(ctx, pgtest.Database(t), Options{Tracer: rec})
	require.NoError(t, err)
	defer e.Close()
	one, two := 1.0, 2.0
	for _, c := range []struct {
		name string
		node query.NumberRange
		want string
	}{
		{"one value", query.NumberRange{Field: "mailboxId", Min: &one, Max: &one, MinInclusive: true, MaxInclusive: true}, `d."mailbox_id" = $2::float8`},
		{"a range", query.NumberRange{Field: "mailboxId", Min: &one, Max: &two, MinInclusive: true, MaxInclusive: true}, `d."mailbox_id" >= $2::float8 AND d."mailbox_id" <= $3::float8`},
		{"one value, excluded", query.NumberRange{Field: "mailboxId", Min: &one, Max: &one, MinInclusive: true}, `d."mailbox_id" >= $2::float8 AND d."mailbox_id" < $3::float8`},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(rec.Statements())
			_, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Query: c.node, Limit: 10})
			require.NoError(t, err)
			statements := rec.Statements()[before:]
			require.Len(t, statements, 1)
			assert.Contains(t, statements[0], c.want)
		})
	}
}

// TestUpgradeForgetsTheBuiltVersion: a database whose EAV tables were
// marked built by this very mapping version is stale once the typed
// tables replace them, so its first start rebuilds the index.
func TestUpgradeForgetsTheBuiltVersion(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	_, err = MigrateTo(ctx, cfg, 3)
	require.NoError(t, err)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO search_state (mapping_version) VALUES ($1)`, index.MappingVersion)
	require.NoError(t, err)

	e, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer e.Close()
	stale, err := e.Stale(ctx)
	require.NoError(t, err)
	assert.True(t, stale, "the typed tables are empty until rebuilt")
}

// TestScoreWeighsSubjectAboveBody: a word found in the subject ranks its
// conversation above one that has it only in its body, the subject's
// catalog weight being twice the body's; the id decides only ties.
func TestScoreWeighsSubjectAboveBody(t *testing.T) {
	ctx := context.Background()
	e, _ := open(t)
	inBody := index.NewDocument("2", 1)
	inBody.Numbers["id"] = []float64{2}
	inBody.Texts["body"] = []string{"refund"}
	inSubject := index.NewDocument("1", 1)
	inSubject.Numbers["id"] = []float64{1}
	inSubject.Texts["subject"] = []string{"refund"}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{inBody, inSubject}}, nil))
	q := query.Or{Nodes: []query.Node{query.Match{Field: "subject", Text: "refund"}, query.Match{Field: "body", Text: "refund"}}}
	res, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Query: q, Sort: []index.Sort{{Field: index.ScoreField, Desc: true}}, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"1", "2"}, Total: 2}, res)
}

// TestRewriteReplacesTheRow: writing a document again replaces its row
// whole (a value it no longer holds is not found, custom fields
// included), in place of the old row rather than after a DELETE of it,
// and a batch's delete still wins over its upsert.
func TestRewriteReplacesTheRow(t *testing.T) {
	ctx := context.Background()
	rec := &pgtest.Recorder{}
	e, err := Open(ctx, pgtest.Database(t), Options{Tracer: rec})
	require.NoError(t, err)
	defer e.Close()
	first := index.NewDocument("1", 1)
	first.Keywords["status"] = []string{"active"}
	first.Keywords["tag"] = []string{"vip"}
	first.Keywords["cfk.7"] = []string{"gold"}
	first.Texts["body"] = []string{"refund my order"}
	other := index.NewDocument("2", 1)
	other.Keywords["status"] = []string{"active"}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{first, other}}, nil))

	again := index.NewDocument("1", 1)
	again.Keywords["status"] = []string{"closed"}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{again}}, nil))
	for _, sql := range rec.Statements() {
		assert.NotContains(t, sql, "DELETE", "a batch of upserts deletes nothing")
	}
	for _, tc := range []struct {
		name string
		req  index.Request
		want []string
	}{
		{"the new value", index.Request{Filter: query.Keyword{Field: "status", Value: "closed"}}, []string{"1"}},
		{"the old value", index.Request{Filter: query.Keyword{Field: "status", Value: "active"}}, []string{"2"}},
		{"a field gone", index.Request{Filter: query.Keyword{Field: "tag", Value: "vip"}}, []string{}},
		{"a custom field gone", index.Request{Filter: query.Keyword{Field: "cfk.7", Value: "gold"}}, []string{}},
		{"a text gone", index.Request{Query: query.Match{Field: "body", Text: "refund"}}, []string{}},
	} {
		tc.req.Kind, tc.req.Company, tc.req.Limit = index.Conversations, 1, 10
		res, err := e.Search(ctx, tc.req)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, res.IDs, tc.name)
	}

	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{first}, Deletes: []string{"1"}}, nil))
	res, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"2"}, res.IDs, "the batch's delete wins")
}

// TestLongTextsAreStoredWithLZ4: a body past PostgreSQL's 2 kB is kept
// out of line, compressed with LZ4 (the test server has it).
func TestLongTextsAreStoredWithLZ4(t *testing.T) {
	ctx := context.Background()
	e, url := open(t)
	d := index.NewDocument("1", 1)
	d.Texts["body"] = []string{strings.Repeat("the parcel's tracking number is missing again ", 200)}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{d}}, nil))
	conn := pgtest.Dial(t, url)
	var compression string
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_column_compression(body_runs)
		FROM search_conversation WHERE company_id = 1 AND doc_id = '1'`).Scan(&compression))
	assert.Equal(t, "lz4", compression)
}

// TestInboxKeysAgreeWithOracle: the inbox keys a search adds beside a
// body condition ANDed with a status or a mailbox change no answer, with
// mailboxes that are not whole numbers, beyond 15 digits or missing, and
// statuses past the keys' 256 characters or missing.
func TestInboxKeysAgreeWithOracle(t *testing.T) {
	ctx := context.Background()
	e, _ := open(t)
	oracle := scan.New()
	longStatus := strings.Repeat("s", 300)
	var docs []index.Document
	for i, c := range []struct {
		mailbox []float64
		status  []string
		body    string
	}{
		{[]float64{1}, []string{"active"}, "a refund for my order"},
		{[]float64{1}, []string{"closed"}, "a refund for my order"},
		{[]float64{2}, []string{"active"}, "a refund for my order"},
		{[]float64{2.5}, []string{"active"}, "a refund please"},
		{[]float64{123456789012345678}, []string{"active"}, "a refund please"},
		{nil, []string{"active"}, "a refund please"},
		{[]float64{1}, nil, "a refund please"},
		{[]float64{1}, []string{longStatus}, "a refund please"},
		{[]float64{1}, []string{"active"}, "where is my parcel"},
	} {
		d := index.NewDocument(strconv.Itoa(i+1), 1)
		d.Numbers["id"] = []float64{float64(i + 1)}
		if c.mailbox != nil {
			d.Numbers["mailboxId"] = c.mailbox
		}
		if c.status != nil {
			d.Keywords["status"] = c.status
		}
		d.Texts["body"] = []string{c.body}
		docs = append(docs, d)
	}
	for _, engine := range []index.Engine{e, oracle} {
		require.NoError(t, engine.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs}, nil))
	}
	mailbox := func(v float64) query.Node {
		return query.NumberRange{Field: "mailboxId", Min: &v, Max: &v, MinInclusive: true, MaxInclusive: true}
	}
	status := func(v string) query.Node { return query.Keyword{Field: "status", Value: v} }
	refund := query.Match{Field: "body", Text: "refund"}
	for _, tc := range []struct {
		name          string
		query, filter query.Node
	}{
		{"status and mailbox", refund, query.And{Nodes: []query.Node{status("active"), mailbox(1)}}},
		{"status alone", refund, status("active")},
		{"mailbox alone", refund, mailbox(2)},
		{"a mailbox not a whole number", refund, mailbox(2.5)},
		{"a mailbox beyond 15 digits", refund, mailbox(123456789012345678)},
		{"a status past 256 characters", refund, status(longStatus)},
		{"ANDed deeper, with a phrase", query.And{Nodes: []query.Node{query.Phrase{Field: "body", Text: "my order"}, query.And{Nodes: []query.Node{status("active")}}}}, mailbox(1)},
		{"a quoted word", query.Match{Field: "body", Text: "refund", Exact: true}, status("active")},
		{"under NOT", query.Not{Node: refund}, query.And{Nodes: []query.Node{status("active"), mailbox(1)}}},
		{"ORed", query.Or{Nodes: []query.Node{refund, status("closed")}}, mailbox(1)},
	} {
		req := index.Request{Kind: index.Conversations, Company: 1, Query: tc.query, Filter: tc.filter,
			Sort: []index.Sort{{Field: "id"}}, Limit: 20}
		want, err := oracle.Search(ctx, req)
		require.NoError(t, err, tc.name)
		got, err := e.Search(ctx, req)
		require.NoError(t, err, tc.name)
		assert.Equal(t, want, got, tc.name)
	}
}
