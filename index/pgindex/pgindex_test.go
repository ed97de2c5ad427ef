package pgindex

import (
	"context"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/query"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open opens the engine on a fresh database, and checks at the end that
// every statement it ran kept to one company.
func open(t *testing.T) (*Engine, string) {
	t.Helper()
	url := pgtest.Database(t)
	rec := &pgtest.Recorder{}
	e, err := Open(context.Background(), url, Options{Tracer: rec})
	require.NoError(t, err)
	t.Cleanup(func() {
		e.Close()
		rec.AssertTenant(t, Tables, AnyCompany, 1)
	})
	return e, url
}

// TestSchemaIsKeyedByCompany: every table but the migrations' own and the
// ReferenceTables is in Tables and has company_id as the first column of its primary key, so
// Citus can distribute it by company; opening again migrates nothing.
func TestSchemaIsKeyedByCompany(t *testing.T) {
	ctx := context.Background()
	_, url := open(t)
	again, err := Open(ctx, url, Options{})
	require.NoError(t, err, "a migrated database opens again")
	again.Close()
	conn := pgtest.Dial(t, url)
	rows, err := conn.Query(ctx, `SELECT c.relname, a.attname
FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
WHERE s.nspname = 'public' AND c.relkind = 'r' ORDER BY c.relname`)
	require.NoError(t, err)
	first := map[string]string{}
	for rows.Next() {
		var table string
		var column *string
		require.NoError(t, rows.Scan(&table, &column))
		first[table] = ""
		if column != nil {
			first[table] = *column
		}
	}
	require.NoError(t, rows.Err())
	delete(first, versionTable)
	for _, table := range ReferenceTables {
		delete(first, table)
	}
	var names []string
	for table, column := range first {
		names = append(names, table)
		assert.Equal(t, "company_id", column, "the primary key of %s", table)
	}
	assert.ElementsMatch(t, Tables, names)
}

// TestEdgesAgreeWithOracle holds the engine to the oracle where SQL has
// limits of its own: tokens longer than a lexeme may be, values longer than
// a btree entry, LIKE's wildcards in values, quotes and backslashes, NUL
// and invalid UTF-8 (which PostgreSQL's text refuses),
// several companies, replaced and deleted documents, kinds without a
// numeric id.
func TestEdgesAgreeWithOracle(t *testing.T) {
	ctx := context.Background()
	e, _ := open(t)
	oracle := scan.New()
	long := strings.Repeat("ab", 1500) + "z"           // a 3001-byte token
	longValue := strings.Repeat("é", 700) + "%_\\'end" // 1400 characters, past the index's 256
	docs := []index.Document{
		doc("1", 1, map[string][]string{"email": {"a_b%c@example.com", "x'y\\z@example.org"}}, map[string][]string{"firstName": {"Ann " + long}}, 10),
		doc("2", 1, map[string][]string{"email": {"abc@example.com"}}, map[string][]string{"firstName": {"Ann", "Bob " + long + "x"}}, 20),
		doc("3", 1, map[string][]string{"email": {longValue}}, map[string][]string{"lastName": {"it's a b c", "d e f"}}, 30),
		doc("4", 2, map[string][]string{"email": {"abc@example.com"}}, map[string][]string{"firstName": {"Ann"}}, 40),
		doc("5", 1, nil, nil, 5),
		doc("6", 1, map[string][]string{"emailDomain": {"nul\x00.test", "bad\xff.test"}}, map[string][]string{"lastName": {"nul\x00x bad\xffy"}}, 60),
		withoutColumns("8", 1),
	}
	for _, engine := range []index.Engine{e, oracle} {
		for _, company := range []int64{1, 2} {
			var mine []index.Document
			for _, d := range docs {
				if d.Company == company {
					mine = append(mine, d)
				}
			}
			require.NoError(t, engine.Apply(ctx, index.Batch{Kind: index.Customers, Company: company, Upserts: mine}, nil))
		}
		// Replaced, and deleted in the same batch.
		replaced := doc("5", 1, map[string][]string{"email": {"new@example.com"}}, nil, 50)
		gone := doc("7", 1, map[string][]string{"email": {"gone@example.com"}}, nil, 70) // upserted and deleted: deleted
		calls := 0
		require.NoError(t, engine.Apply(ctx, index.Batch{Kind: index.Customers, Company: 1, Upserts: []index.Document{replaced, gone},
			Deletes: []string{"404", "7"}}, func(err error) {
			require.NoError(t, err)
			calls++
		}))
		if engine == e {
			assert.Equal(t, 1, calls, "durable is told once, after the commit")
		}
		// A deletion of unknown company (an old outbox entry) finds its owner.
		require.NoError(t, engine.Apply(ctx, index.Batch{Kind: index.Customers, Deletes: []string{"4"}}, nil))
	}
	nodes := []query.Node{
		query.Match{Field: "firstName", Text: long},
		query.Match{Field: "firstName", Text: "ann " + long + "x"},
		query.Phrase{Field: "firstName", Text: "ann " + long},
		query.Phrase{Field: "firstName", Text: "bob " + long},
		query.Phrase{Field: "lastName", Text: "c d"}, // crosses two values
		query.Phrase{Field: "lastName", Text: "it s a"},
		query.Prefix{Field: "firstName", Value: strings.Repeat("ab", 700)},
		query.Prefix{Field: "firstName", Value: long + "x"},
		query.Prefix{Field: "firstName", Value: "an"},
		query.Prefix{Field: "firstName", Value: "ann b"},
		query.Prefix{Field: "email", Value: "a_b%"},
		query.Prefix{Field: "email", Value: "a_"},
		query.Prefix{Field: "email", Value: strings.Repeat("é", 300)},
		query.Keyword{Field: "email", Value: longValue},
		query.Keyword{Field: "email", Value: strings.Repeat("é", 700)},
		query.Contains{Field: "email", Value: "%"},
		query.Contains{Field: "email", Value: "_b%c"},
		query.Contains{Field: "email", Value: "'y\\z"},
		query.Contains{Field: "email", Value: "abc"},
		query.Contains{Field: "email", Value: ""},
		query.Not{Node: query.Contains{Field: "email", Value: "example.com"}},
		query.FieldExists{Field: "lastName"},
		query.FieldExists{Field: "email"},
		query.FieldExists{Field: "emailDomain"},
		query.FieldExists{Field: "createdAt"},
		query.Not{Node: query.FieldExists{Field: "createdAt"}},
		query.NumberRange{Field: "createdAt"},
		query.FieldExists{Field: "organizationId"},
		query.NumberRange{Field: "organizationId"},
		query.FieldExists{Field: "cfn.3"},
		query.NumberRange{Field: "cfn.3"},
		query.FieldExists{Field: "cfn.4"},
		query.NumberRange{Field: "cfn.4"},
		query.NumberRange{Field: "createdAt", Min: ptr(10), Max: ptr(30), MaxInclusive: true},
		query.Or{Nodes: []query.Node{query.Keyword{Field: "email", Value: "new@example.com"}, query.Match{Field: "lastName", Text: "F"}}},
		query.Match{Field: "lastName", Text: "  "},
		query.Keyword{Field: "emailDomain", Value: "nul\x00.test"},
		query.Keyword{Field: "emailDomain", Value: "bad\xff.test"},
		query.Prefix{Field: "emailDomain", Value: "nul\x00"},
		query.Contains{Field: "emailDomain", Value: "\xff."},
		query.Prefix{Field: "lastName", Value: "nul\x00"},
		query.Phrase{Field: "lastName", Text: "x bad"},
	}
	for _, n := range nodes {
		for _, company := range []int64{1, 2} {
			for _, sorts := range [][]index.Sort{nil, {{Field: "createdAt"}}, {{Field: "email", Desc: false}}} {
				r := index.Request{Kind: index.Customers, Company: company, Query: n, Sort: sorts, Limit: 10}
				want, err := oracle.Search(ctx, r)
				require.NoError(t, err)
				got, err := e.Search(ctx, r)
				require.NoError(t, err, n.String())
				assert.Equal(t, want, got, "%s (company %d, sort %v)", n, company, sorts)
			}
		}
	}
}

// TestRowsListOnlyTheFieldsTheirColumnsCannotShow: the fields column
// lists a field only when its own column cannot show that the document
// holds it, so that rows stay narrow.
func TestRowsListOnlyTheFieldsTheirColumnsCannotShow(t *testing.T) {
	ctx := context.Background()
	e, url := open(t)
	docs := []index.Document{
		doc("1", 1, map[string][]string{"email": {"a@example.com"}}, map[string][]string{"firstName": {"Ann"}}, 10),
		withoutColumns("2", 1),
	}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Customers, Company: 1, Upserts: docs}, nil))
	conn := pgtest.Dial(t, url)
	rows, err := conn.Query(ctx, "SELECT doc_id, fields FROM search_customer WHERE company_id = 1 ORDER BY doc_id")
	require.NoError(t, err)
	listed := map[string][]string{}
	for rows.Next() {
		var id string
		var fields []string
		require.NoError(t, rows.Scan(&id, &fields))
		listed[id] = fields
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, map[string][]string{
		"1": {"firstName"},
		"2": {"cfn.3", "cfn.4", "lastName", "organizationId"},
	}, listed)
}

// withoutColumns is a customer whose fields' own columns cannot show it
// holds them: an empty name, words where numbers go, a custom field.
func withoutColumns(id string, company int64) index.Document {
	d := index.NewDocument(id, company)
	d.Texts["lastName"] = []string{""}
	d.Keywords["organizationId"] = []string{"none yet"}
	d.Numbers["cfn.3"] = []float64{7}
	d.Keywords["cfn.4"] = []string{"n/a"}
	return d
}

// TestChatsSortByDocumentID: a kind without a numeric id breaks ties on
// the document id, in the last sort's direction, as the oracle does.
func TestChatsSortByDocumentID(t *testing.T) {
	ctx := context.Background()
	e, _ := open(t)
	oracle := scan.New()
	var docs []index.Document
	for i, id := range []string{"b0", "a1", "c2", "a10"} {
		d := index.NewDocument(id, 1)
		d.Numbers["createdAt"] = []float64{float64(i % 2)}
		d.Keywords["ended"] = []string{"true"}
		if i > 0 { // a chat without a wait, one without missed
			d.Numbers["waitSeconds"] = []float64{float64(30 * (i % 3))}
			d.Keywords["missed"] = []string{[]string{"true", "false"}[i%2]}
		}
		docs = append(docs, d)
	}
	for _, engine := range []index.Engine{e, oracle} {
		require.NoError(t, engine.Apply(ctx, index.Batch{Kind: index.Chats, Company: 1, Upserts: docs}, nil))
	}
	for _, sorts := range [][]index.Sort{nil, {{Field: "createdAt"}}, {{Field: "createdAt", Desc: true}}} {
		r := index.Request{Kind: index.Chats, Company: 1, Sort: sorts, Limit: 10, Offset: 1}
		want, err := oracle.Search(ctx, r)
		require.NoError(t, err)
		got, err := e.Search(ctx, r)
		require.NoError(t, err)
		assert.Equal(t, want, got, "sort %v", sorts)
	}
	f := index.FacetRequest{Kind: index.Chats, Company: 1, Values: map[string]string{"ended": "ended"},
		Ranges: map[string]index.RangeFacet{"early": {Field: "createdAt", Buckets: []index.Bucket{{Max: ptr(1)}, {Min: ptr(1)}, {}}}}}
	// Buckets alone are counted from the table, without the matches
	// kept apart first; two range facets share one row of counts.
	rangesOnly := index.FacetRequest{Kind: index.Chats, Company: 1, Ranges: map[string]index.RangeFacet{
		"early": f.Ranges["early"], "late": {Field: "createdAt", Buckets: []index.Bucket{{Min: ptr(2)}, {Max: ptr(2)}}}}}
	// Value facets over scalar columns are counted in the same pass
	// (grouping sets), two facets of one column from one set.
	scalars := index.FacetRequest{Kind: index.Chats, Company: 1, Ranges: f.Ranges,
		Values: map[string]string{"ended": "ended", "finished": "ended", "missed": "missed", "wait": "waitSeconds"}}
	for _, f := range []index.FacetRequest{f, rangesOnly, scalars} {
		want, err := oracle.Facets(ctx, f)
		require.NoError(t, err)
		got, err := e.Facets(ctx, f)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := e.Facets(ctx, index.FacetRequest{Kind: index.Chats, Company: 1, Values: map[string]string{"x": "createdAt"}})
	assert.ErrorContains(t, err, "not Valued", "distinct values only of fields marked for it, as on Bleve")
}

// TestScoreRanksMoreMatchesFirst: a score sort puts the documents that
// match more of the query's clauses first, the id breaking ties.
func TestScoreRanksMoreMatchesFirst(t *testing.T) {
	ctx := context.Background()
	e, _ := open(t)
	docs := []index.Document{
		doc("1", 1, nil, map[string][]string{"firstName": {"ann"}}, 1),
		doc("2", 1, nil, map[string][]string{"firstName": {"ann"}, "lastName": {"lee"}}, 2),
		doc("3", 1, nil, map[string][]string{"lastName": {"lee"}}, 3),
		doc("4", 1, nil, map[string][]string{"lastName": {"ray"}}, 4),
	}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Customers, Company: 1, Upserts: docs}, nil))
	q := query.Or{Nodes: []query.Node{query.Match{Field: "firstName", Text: "ann"}, query.Match{Field: "lastName", Text: "lee"},
		query.Not{Node: query.Match{Field: "lastName", Text: "ray"}}}}
	res, err := e.Search(ctx, index.Request{Kind: index.Customers, Company: 1, Query: q, Sort: []index.Sort{{Field: index.ScoreField, Desc: true}}, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"2", "3", "1"}, Total: 3}, res)
}

func doc(id string, company int64, keywords, texts map[string][]string, created float64) index.Document {
	d := index.NewDocument(id, company)
	for f, v := range keywords {
		d.Keywords[f] = v
	}
	for f, v := range texts {
		d.Texts[f] = v
	}
	d.Numbers["createdAt"] = []float64{created}
	d.Numbers["id"] = []float64{created}
	return d
}

func ptr(v float64) *float64 { return &v }

var benchDocs = flag.Int("benchdocs", 20000, "documents BenchmarkSearch indexes")

func pgtestDatabase(b *testing.B) string { return pgtest.Database(b) }

// TestSettleRebuildsTheGINIndexesOfALoad: after a load that wrote at
// least a quarter of a table, Settle builds its GIN indexes afresh (a new
// index under the old name); a Settle after a smaller write leaves them.
func TestSettleRebuildsTheGINIndexesOfALoad(t *testing.T) {
	ctx := context.Background()
	e, url := open(t)
	conn := pgtest.Dial(t, url)
	indexOID := func() (oid uint32) {
		require.NoError(t, conn.QueryRow(ctx, `SELECT 'search_conversation_body_stems'::regclass::oid`).Scan(&oid))
		return oid
	}
	load := func(from, to int) {
		var docs []index.Document
		for i := from; i < to; i++ {
			d := index.NewDocument(strconv.Itoa(i), 1)
			d.Texts["body"] = []string{"a refund for order " + strconv.Itoa(i)}
			docs = append(docs, d)
		}
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs}, nil))
		// The server counts a session's writes once it reports them.
		require.Eventually(t, func() bool {
			var written int64
			require.NoError(t, conn.QueryRow(ctx, `SELECT n_tup_ins + n_tup_upd FROM pg_stat_user_tables WHERE relname = 'search_conversation'`).Scan(&written))
			return written >= int64(to)
		}, 30*time.Second, 100*time.Millisecond)
	}

	load(0, 200)
	loaded := indexOID()
	require.NoError(t, e.Settle(ctx))
	settled := indexOID()
	assert.NotEqual(t, loaded, settled, "the load's GIN index is built afresh")

	load(200, 220)
	require.NoError(t, e.Settle(ctx))
	assert.Equal(t, settled, indexOID(), "20 more rows on 200 leave it")
}
