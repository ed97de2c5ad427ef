package index_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/enginetest"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/internal/golden"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/query"
	"github.com/parley/parley/storage"
)

var (
	randomCount = flag.Int("random-queries", 2000, "randomized queries compared between each engine and the scan oracle")
)

// fixtureNow is the clock of the demo data in these tests.
var fixtureNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// quiet discards the syncer's log.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// engines holds the demo fixtures in storage and in the scan oracle,
// which every engine of engineCases is held to.
type engines struct {
	db        *storage.DB
	oracle    index.Engine
	mailboxes map[int64][]parley.Mailbox // by company
}

func loadEngines(t *testing.T) *engines {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, fixtures.Load(db.Store(), fixtureNow))
	e := &engines{db: db, oracle: scan.New(), mailboxes: map[int64][]parley.Mailbox{}}
	require.NoError(t, indexer.NewSyncer(db, e.oracle, quiet).Rebuild(context.Background(), nil))
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		for _, company := range []int64{1, 2} {
			boxes, err := tx.Mailboxes(company)
			if err != nil {
				return err
			}
			e.mailboxes[company] = boxes
		}
		return nil
	}))
	return e
}

// eachEngine runs test in a subtest per engine of enginetest.Cases, with
// the fixtures indexed in it.
func (e *engines) eachEngine(t *testing.T, test func(t *testing.T, engine index.Engine)) {
	for _, c := range enginetest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			engine := c.Open(t)
			enginetest.Fill(t, e.db, engine)
			test(t, engine)
		})
	}
}

// open opens the engine of enginetest.Cases with that name, filled with
// the fixtures, for tests of what only some engines offer (BM25 scores,
// suggestions: the PostgreSQL engine has neither yet).
func (e *engines) open(t *testing.T, name string) index.Engine {
	t.Helper()
	for _, c := range enginetest.Cases {
		if c.Name == name {
			engine := c.Open(t)
			enginetest.Fill(t, e.db, engine)
			return engine
		}
	}
	t.Fatalf("no engine %q in enginetest.Cases", name)
	return nil
}

// search runs one query text on one engine.
func (e *engines) search(t *testing.T, engine index.Engine, company int64, text string, sorts []index.Sort, limit int) (index.Result, error) {
	syntax, err := query.Parse(text)
	if err != nil {
		return index.Result{}, err
	}
	checked, err := query.Check(syntax, index.ConversationSchemaFor(e.mailboxes[company]), fixtureNow)
	if err != nil {
		return index.Result{}, err
	}
	return engine.Search(context.Background(), index.Request{Kind: index.Conversations, Company: company, Query: checked, Sort: sorts, Limit: limit})
}

// conformanceCases are searches agents and integrators run; their expected
// ids over the fixtures are in testdata/conformance.golden, and both
// engines must return exactly them.
var conformanceCases = []string{
	`refund`,
	`subject:refund`,
	`subject:"refund order"`,
	`body:"tracking number"`,
	`body:chargeback`,
	`(subject:"refund" OR body:"chargeback") AND createdAt:[NOW-90DAYS TO *] AND NOT tag:spam`,
	`tag:vip`,
	`tag:"feature request"`,
	`-tag:refund AND status:closed`,
	`NOT status:closed`,
	`mailbox:Billing`,
	`mailboxid:1 AND type:phone`,
	`createdAt:[2026-01 TO 2026-03]`,
	`modifiedAt:[NOW-30DAYS TO NOW]`,
	`createdAt:2026-06`,
	`assigned:Unassigned`,
	`status:pending AND type:chat`,
	`subject:pass*`,
	`attachments:false AND number:[1 TO 20]`,
	`customerIds:(1 OR 2 OR 3)`,
	`id:[10 TO 19}`,
	`email:*`,
	`password OR login`,
	`"credit card"`,
	// Word forms: unquoted words match every inflection, quoted ones only
	// the exact form (case and accents folded).
	`body:refunds`,
	`body:refunded`,
	`body:"refunds"`,
	`body:"refunded"`,
	`subject:"Refund"`,
	`subscriptions`,
	`body:"tracking numbers"`,
	`subject:refun*`,
	`body:REFUNDÉD*`,
	// Accents: names written with them are found without.
	`gonzalez OR garcia OR fernandez`,
	`"Fernández"`,
}

func TestConformance(t *testing.T) {
	e := loadEngines(t)
	sorts := []index.Sort{{Field: "createdAt", Desc: true}}
	var out strings.Builder
	for _, text := range conformanceCases {
		want, err := e.search(t, e.oracle, 1, text, sorts, 1000)
		require.NoError(t, err, text)
		fmt.Fprintf(&out, "query: %s\ntotal: %d\nids: %s\n\n", text, want.Total, strings.Join(want.IDs, " "))
	}
	golden.Assert(t, "conformance.golden", out.String())
	e.eachEngine(t, func(t *testing.T, engine index.Engine) {
		for _, text := range conformanceCases {
			want, err := e.search(t, e.oracle, 1, text, sorts, 1000)
			require.NoError(t, err, text)
			got, err := e.search(t, engine, 1, text, sorts, 1000)
			require.NoError(t, err, text)
			assert.Equal(t, want, got, "the engine and the oracle disagree on %s", text)
			// A score sort finds the same documents; only their order
			// is the engine's own (the oracle has no score).
			byScore := []index.Sort{{Field: index.ScoreField, Desc: true}}
			scored, err := e.search(t, engine, 1, text, byScore, 1000)
			require.NoError(t, err, text)
			assert.Equal(t, want.Total, scored.Total, text)
			assert.ElementsMatch(t, want.IDs, scored.IDs, "score sort of %s", text)
		}
	})
}

// TestRandomQueriesAgree generates queries from the grammar over the
// fixtures' own words and values, and requires Bleve and the oracle to
// return the same ids, in the same order, with the same totals.
func TestRandomQueriesAgree(t *testing.T) {
	e := loadEngines(t)
	e.eachEngine(t, func(t *testing.T, engine index.Engine) { randomQueriesAgree(t, e, engine) })
}

func randomQueriesAgree(t *testing.T, e *engines, engine index.Engine) {
	g := newQueryGen(t, e.db)
	sortChoices := [][]index.Sort{
		{{Field: "createdAt", Desc: true}}, {{Field: "number"}}, {{Field: "subjectSort"}},
		{{Field: "customerNameSort", Desc: true}}, {{Field: "waitingSince"}}, {{Field: "modifiedAt", Desc: true}},
		{{Field: "status"}}, {{Field: "customerEmail"}}, {{Field: "mailboxId", Desc: true}},
	}
	hits, failures := 0, 0
	for i := 0; i < *randomCount; i++ {
		text := g.expr(0)
		company := int64(1 + i%2)
		sorts := sortChoices[i%len(sortChoices)]
		limit := 30
		if i%7 == 0 {
			// The oracle computes no BM25: a score sort is compared as
			// the whole set of hits and the total.
			sorts, limit = []index.Sort{{Field: index.ScoreField, Desc: true}}, 10000
		}
		want, err := e.search(t, e.oracle, company, text, sorts, limit)
		if err != nil {
			t.Fatalf("generated query %q does not check: %v", text, err)
		}
		got, err := e.search(t, engine, company, text, sorts, limit)
		require.NoError(t, err)
		if want.Total > 0 {
			hits++
		}
		if sorts[0].Field == index.ScoreField {
			sort.Strings(want.IDs)
			sort.Strings(got.IDs)
		}
		if !assert.Equal(t, want, got, "query %q (company %d, sort %v)", text, company, sorts) {
			if failures++; failures > 10 {
				t.FailNow()
			}
		}
	}
	// Queries that match nothing prove little: most must hit.
	assert.Greater(t, hits, *randomCount/3, "too few generated queries match anything")
}

// TestListEngineAgrees holds the list engine to the oracle on generated
// filters over the conversation fields it keeps, with every sort it
// supports, filled both ways it is filled: Load from storage and Apply
// from the syncer.
func TestListEngineAgrees(t *testing.T) {
	e := loadEngines(t)
	loaded := lists.New()
	loaded.Load(e.db.Store(), lists.Projection{List: indexer.ListFields, Conversation: indexer.Documents, Chat: indexer.ChatDocument})
	require.NoError(t, loaded.WaitReports())
	applied := lists.New()
	require.NoError(t, indexer.NewSyncer(e.db, applied, quiet).Rebuild(context.Background(), nil))
	g := newQueryGen(t, e.db)
	g.only = []int{5, 7, 8, 9, 10, 13, 14, 18, 19} // tag, mailbox id, dates, numbers, ids, status, type
	sortChoices := [][]index.Sort{
		{{Field: "createdAt", Desc: true}}, {{Field: "number"}}, {{Field: "waitingSince"}}, {{Field: "waitingSince", Desc: true}},
		{{Field: "modifiedAt", Desc: true}}, {{Field: "status"}}, {{Field: "mailboxId", Desc: true}}, nil,
	}
	supported, hits := 0, 0
	for i := 0; i < *randomCount; i++ {
		text := g.expr(0)
		company := int64(1 + i%2)
		syntax, err := query.Parse(text)
		require.NoError(t, err, text)
		filter, err := query.Check(syntax, index.ConversationSchemaFor(e.mailboxes[company]), fixtureNow)
		require.NoError(t, err, text)
		r := index.Request{Kind: index.Conversations, Company: company, Filter: filter, Sort: sortChoices[i%len(sortChoices)],
			Offset: g.r.IntN(3) * 10, Limit: pickOne(g.r, []int{0, 10, 25})}
		if !loaded.Supports(r) {
			continue
		}
		supported++
		want, err := e.oracle.Search(context.Background(), r)
		require.NoError(t, err)
		if want.Total > 0 {
			hits++
		}
		facets := listFacetRequest(g, company, filter)
		require.True(t, loaded.FacetsSupported(facets))
		wantFacets, err := e.oracle.(index.Faceter).Facets(context.Background(), facets)
		require.NoError(t, err)
		for name, engine := range map[string]*lists.Engine{"loaded": loaded, "applied": applied} {
			got, err := engine.Search(context.Background(), r)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s list engine, filter %q (company %d, sort %v, offset %d, limit %d)",
				name, text, company, r.Sort, r.Offset, r.Limit)
			gotFacets, err := engine.Facets(context.Background(), facets)
			require.NoError(t, err)
			require.Equal(t, wantFacets, gotFacets, "%s list engine's facets, filter %q (company %d)", name, text, company)
		}
	}
	assert.Greater(t, supported, *randomCount*9/10, "the list engine should take nearly every such filter")
	assert.Greater(t, hits, supported/3, "too few generated filters match anything")
}

// listFacetRequest asks for every facet the list engine counts: the
// keywords rows hold, the tags, and buckets of a date and of a number
// with random bounds (some open).
func listFacetRequest(g *queryGen, company int64, filter query.Node) index.FacetRequest {
	bound := func(v float64) *float64 { return &v }
	day := float64(24 * time.Hour / time.Millisecond)
	now := float64(fixtureNow.UnixMilli())
	var dates []index.Bucket
	for at := now - float64(g.r.IntN(90))*day; at < now; at += float64(1+g.r.IntN(20)) * day {
		dates = append(dates, index.Bucket{Min: bound(at), Max: bound(at + 7*day)})
	}
	dates = append(dates, index.Bucket{Max: bound(now - 30*day)}, index.Bucket{Min: bound(now)})
	numbers := []index.Bucket{{Max: bound(float64(g.r.IntN(20)))}, {Min: bound(float64(g.r.IntN(20))), Max: bound(float64(20 + g.r.IntN(20)))}}
	return index.FacetRequest{Kind: index.Conversations, Company: company, Filter: filter,
		Values: map[string]string{"status": "status", "tag": "tag", "type": "type", "mailbox": "mailboxName", "assignee": "assigned", "state": "state"},
		Ranges: map[string]index.RangeFacet{"created": {Field: "createdAt", Buckets: dates}, "waiting": {Field: "waitingSince", Buckets: dates},
			"number": {Field: "number", Buckets: numbers}}}
}

// queryGen writes random queries from the grammar, using values found in
// the stored records so that they match.
type queryGen struct {
	r                         *rand.Rand
	words, phrases, tags      []string
	emails, names, mailboxes  []string
	customerIDs, numbers, ids []int64
	only                      []int // the kinds of term to write (see term); nil for all
}

func newQueryGen(t *testing.T, db *storage.DB) *queryGen {
	g := &queryGen{r: rand.New(rand.NewPCG(7, 11))}
	seen := map[string]bool{}
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			g.numbers = append(g.numbers, c.Number)
			g.ids = append(g.ids, c.ID)
			g.customerIDs = append(g.customerIDs, c.CustomerID)
			for _, w := range index.Tokens(c.Subject) {
				if !seen[w] {
					seen[w] = true
					g.words = append(g.words, w)
				}
			}
			threads, err := tx.Threads(c.CompanyID, c.ID)
			if err != nil {
				return err
			}
			var last string // the previous thread's last word
			for _, th := range threads {
				tokens := index.Tokens(th.Body)
				if len(tokens) > 3 {
					at := g.r.IntN(len(tokens) - 2)
					g.phrases = append(g.phrases, strings.Join(tokens[at:at+2+g.r.IntN(2)], " "))
				}
				// A phrase across two threads' bodies, which matches
				// only where its words meet inside one body.
				if len(tokens) > 0 && last != "" && g.r.IntN(4) == 0 {
					g.phrases = append(g.phrases, last+" "+tokens[0])
				}
				if len(tokens) > 0 {
					last = tokens[len(tokens)-1]
				}
			}
			if cu, err := tx.Customer(c.CompanyID, c.CustomerID); err == nil {
				g.emails = append(g.emails, cu.PrimaryEmail())
				g.names = append(g.names, cu.LastName)
			}
			return nil
		})
	}))
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		for _, company := range []int64{1, 2} {
			tags, _ := tx.Tags(company)
			for _, tag := range tags {
				g.tags = append(g.tags, tag.Name)
			}
			boxes, _ := tx.Mailboxes(company)
			for _, m := range boxes {
				g.mailboxes = append(g.mailboxes, m.Name)
			}
		}
		return nil
	}))
	sort.Strings(g.words)
	return g
}

func pickOne[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

func quote(s string) string {
	if strings.ContainsAny(s, " ") {
		return `"` + s + `"`
	}
	return s
}

func (g *queryGen) expr(depth int) string {
	n := 1 + g.r.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.clause(depth)
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out += pickOne(g.r, []string{" AND ", " OR ", " "}) + p
	}
	return out
}

func (g *queryGen) clause(depth int) string {
	switch k := g.r.IntN(12); {
	case k == 0 && depth < 3:
		return "(" + g.expr(depth+1) + ")"
	case k == 1:
		return "NOT " + g.term()
	case k == 2:
		return "-" + g.term()
	default:
		return g.term()
	}
}

func (g *queryGen) day() string {
	return fixtureNow.AddDate(0, 0, -g.r.IntN(400)).Format("2006-01-02")
}

func (g *queryGen) term() string {
	r := g.r
	k := r.IntN(28)
	if g.only != nil {
		k = pickOne(r, g.only)
	}
	switch k {
	case 0:
		return "subject:" + pickOne(r, g.words)
	case 1:
		return fmt.Sprintf(`subject:"%s %s"`, pickOne(r, g.words), pickOne(r, g.words))
	case 2:
		w := pickOne(r, g.words)
		return "subject:" + w[:1+r.IntN(len(w))] + "*"
	case 3:
		return `body:"` + pickOne(r, g.phrases) + `"`
	case 4:
		return "body:" + strings.Fields(pickOne(r, g.phrases))[0]
	case 5:
		return "tag:" + quote(pickOne(r, g.tags))
	case 6:
		return "mailbox:" + quote(pickOne(r, g.mailboxes))
	case 7:
		// A Key number (index.Field.Key): equality, and now and then a
		// range, open or closed.
		a := 1 + r.IntN(5)
		return pickOne(r, []string{fmt.Sprintf("mailboxid:%d", a), fmt.Sprintf("mailboxid:[%d TO %d}", a, a+r.IntN(3)),
			fmt.Sprintf("mailboxid:{%d TO *]", a), fmt.Sprintf("folder:[* TO %d]", 1+r.IntN(40))})
	case 8:
		return fmt.Sprintf("createdAt:[%s TO %s]", g.day(), pickOne(r, []string{"*", "NOW", g.day(), "NOW/DAY"}))
	case 9:
		return fmt.Sprintf("modifiedAt:{NOW-%dDAYS TO *}", r.IntN(200))
	case 10:
		return "createdAt:" + fixtureNow.AddDate(0, -r.IntN(12), 0).Format("2006-01")
	case 11:
		return "email:" + quote(pickOne(r, g.emails))
	case 12:
		return fmt.Sprintf("customerIds:%d", pickOne(r, g.customerIDs))
	case 13:
		a := pickOne(r, g.numbers)
		return fmt.Sprintf("number:[%d TO %d}", a, a+int64(r.IntN(50)))
	case 14:
		return fmt.Sprintf("id:%d", pickOne(r, g.ids))
	case 15:
		return "assigned:Unassigned"
	case 16:
		return "attachments:" + pickOne(r, []string{"true", "false"})
	case 17:
		return fmt.Sprintf("replyUserIds:(%d OR %d)", 1+r.IntN(12), 1+r.IntN(12))
	case 18:
		return "status:" + pickOne(r, []string{"active", "pending", "closed", "spam"})
	case 19:
		return "type:" + pickOne(r, []string{"email", "phone", "chat"})
	case 20:
		return pickOne(r, g.words)
	case 21:
		return `"` + pickOne(r, g.phrases) + `"`
	case 22:
		return pickOne(r, g.names)
	case 24:
		// An inflected form, matched through its stem.
		return pickOne(r, []string{"subject:", "body:", ""}) + pickOne(r, g.words) + pickOne(r, []string{"s", "ed", "ing", "es"})
	case 25:
		// A quoted word: its exact form only.
		return pickOne(r, []string{"subject:", "body:", ""}) + `"` + pickOne(r, g.words) + pickOne(r, []string{"", "s"}) + `"`
	case 26:
		// Case and accents folded, in words, phrases and prefixes.
		w := pickOne(r, g.words)
		a := accented(w)
		return pickOne(r, []string{"subject:" + a, `body:"` + a + `"`, "subject:" + accented(string([]rune(w)[:len([]rune(w))/2+1])) + "*", a})
	case 27:
		return accented(pickOne(r, g.names))
	default:
		return pickOne(r, []string{"email:*", "subject:*", "tag:*", "body:*"})
	}
}

// accented writes a word in capitals with an accent on its vowels, as
// the folding must undo.
func accented(w string) string {
	first, size := utf8.DecodeRuneInString(w)
	return strings.NewReplacer("a", "Á", "e", "É", "i", "Î", "o", "Ö", "u", "Ù").Replace(string(unicode.ToUpper(first)) + w[size:])
}

// customerCases are customer searches; expected ids are in
// testdata/customers.golden and both engines must return them.
var customerCases = []string{
	`email:example`,
	`email:"+acme"`,
	`emailDomain:example.org`,
	`firstName:aleksi OR lastName:byrne`,
	`modifiedAt:[NOW-60DAYS TO *]`,
	`createdAt:2026-05 AND email:.com`,
	`NOT emailDomain:example.com`,
	`garcia`,
	`firstName:*`,
}

func TestCustomerConformance(t *testing.T) {
	e := loadEngines(t)
	sortChoices := [][]index.Sort{{{Field: "createdAt", Desc: true}}, {{Field: "lastNameSort"}}}
	run := func(t *testing.T, engine index.Engine, text string, sorts []index.Sort) index.Result {
		syntax, err := query.Parse(text)
		require.NoError(t, err, text)
		checked, err := query.Check(syntax, index.CustomerSchema, fixtureNow)
		require.NoError(t, err, text)
		res, err := engine.Search(context.Background(), index.Request{Kind: index.Customers, Company: 1, Query: checked, Sort: sorts, Limit: 1000})
		require.NoError(t, err)
		return res
	}
	var out strings.Builder
	for _, sorts := range sortChoices {
		for _, text := range customerCases {
			want := run(t, e.oracle, text, sorts)
			fmt.Fprintf(&out, "query: %s\nsort: %v\ntotal: %d\nids: %s\n\n", text, sorts, want.Total, strings.Join(want.IDs, " "))
		}
	}
	golden.Assert(t, "customers.golden", out.String())
	e.eachEngine(t, func(t *testing.T, engine index.Engine) {
		for _, sorts := range sortChoices {
			for _, text := range customerCases {
				assert.Equal(t, run(t, e.oracle, text, sorts), run(t, engine, text, sorts), "the engine and the oracle disagree on %s", text)
			}
		}
	})
}

// TestMain stops the PostgreSQL server the postgres engine cases start.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// aggregateFields are, per kind, the fields a random aggregate draws its
// bucket, group, sum and distinct fields from: those the reports read.
var aggregateFields = map[index.Kind]struct{ by, groupBy, sums, distinct []string }{
	index.Conversations: {
		by:       []string{"createdAt", "activityAt", "resolvedAt", "firstResponseAt", "closedAt", "replyAt"},
		groupBy:  []string{"type", "tag", "status", "createdBy", "createdByUserId", "resolvedByUserId"},
		sums:     []string{"replies", "firstResponseSeconds", "resolutionSeconds", "responseSeconds", "activityAt"},
		distinct: []string{"primaryCustomerId", "tag", "createdWeekHour", "closedByUserId"},
	},
	index.Messages: {
		by:       []string{"createdAt", "ratedAt"},
		groupBy:  []string{"from", "userId", "rating", "type", "tag"},
		sums:     []string{"responseSeconds", "responseOfficeSeconds", "ratingRank"},
		distinct: []string{"customerId", "conversationId", "ratingCustomerId", "conversationFigures", "createdWeekHour"},
	},
	index.Chats: {
		by:       []string{"createdAt", "endedAt"},
		groupBy:  []string{"missed", "completed", "tag"},
		sums:     []string{"waitSeconds", "responseSeconds", "durationSeconds", "messages"},
		distinct: []string{"messages", "tag"},
	},
	index.Calls: {
		by:       []string{"createdAt"},
		groupBy:  []string{"userId", "tag"},
		sums:     []string{"createdAt"},
		distinct: []string{"customerId", "userId", "tag"},
	},
}

// TestAggregatesAgree holds every engine's aggregates to the oracle's on
// random requests over the fixtures: every report kind, filters from the
// query grammar (conversations) or a period (the rest), random steps,
// groups, sums and distinct counts, and no bucketing at all.
func TestAggregatesAgree(t *testing.T) {
	e := loadEngines(t)
	e.eachEngine(t, func(t *testing.T, engine index.Engine) {
		g := newQueryGen(t, e.db)
		nonEmpty, failures := 0, 0
		for i := 0; i < *randomCount/10; i++ {
			r := randomAggregate(t, g, e, i)
			want, err := e.oracle.(index.Aggregator).Aggregate(context.Background(), r)
			require.NoError(t, err, "%+v", r)
			got, err := engine.(index.Aggregator).Aggregate(context.Background(), r)
			require.NoError(t, err, "%+v", r)
			if len(want.Groups) > 0 {
				nonEmpty++
			}
			if !assert.Equal(t, roundSums(want), roundSums(got), "aggregate %+v", r) {
				if failures++; failures > 5 {
					t.FailNow()
				}
			}
		}
		assert.Greater(t, nonEmpty, *randomCount/30, "too few random aggregates find anything")
	})
}

// randomAggregate is the i-th random aggregate request over the fixtures:
// each report kind in turn, filtered by the query grammar (conversations),
// by a period or not at all, with random steps, groups, sums and distinct
// counts.
func randomAggregate(t *testing.T, g *queryGen, e *engines, i int) index.AggregateRequest {
	day := 24 * time.Hour
	kinds := []index.Kind{index.Conversations, index.Messages, index.Chats, index.Calls}
	company := int64(1 + i%2)
	kind := kinds[i%len(kinds)]
	fields := aggregateFields[kind]
	r := index.AggregateRequest{Kind: kind, Company: company}
	start := fixtureNow.Add(-time.Duration(g.r.IntN(400)) * day)
	switch {
	case kind == index.Conversations && i%3 > 0:
		text := g.expr(0)
		syntax, err := query.Parse(text)
		require.NoError(t, err, text)
		r.Filter, err = query.Check(syntax, index.ConversationSchemaFor(e.mailboxes[company]), fixtureNow)
		require.NoError(t, err, text)
	case i%3 == 1:
		end := start.Add(time.Duration(1+g.r.IntN(200)) * day)
		r.Filter = query.TimeRange{Field: "createdAt", From: &start, To: &end, FromInclusive: true}
	}
	if i%5 > 0 {
		r.By = pickOne(g.r, fields.by)
		at := start
		for n := 1 + g.r.IntN(40); n >= 0; n-- {
			r.Edges = append(r.Edges, index.Millis(at))
			at = at.Add(time.Duration(g.r.IntN(20)) * day) // some steps empty
		}
	}
	for _, f := range fields.groupBy {
		if g.r.IntN(4) == 0 {
			r.GroupBy = append(r.GroupBy, f)
		}
	}
	for _, f := range fields.sums {
		if g.r.IntN(2) == 0 {
			r.Sums = append(r.Sums, f)
		}
	}
	for _, f := range fields.distinct {
		if g.r.IntN(2) == 0 {
			r.Distinct = append(r.Distinct, f)
		}
	}
	return r
}

// roundSums rounds each sum to a millionth: engines add fractional values
// in different orders.
func roundSums(r index.AggregateResult) index.AggregateResult {
	for _, g := range r.Groups {
		for f, s := range g.Sums {
			s.Total = math.Round(s.Total*1e6) / 1e6
			g.Sums[f] = s
		}
	}
	return r
}

// TestAggregateRejects: requests engines could not answer alike are
// errors on every engine, never a guess.
func TestAggregateRejects(t *testing.T) {
	e := loadEngines(t)
	bad := map[string]index.AggregateRequest{
		"unknown by":        {Kind: index.Messages, Company: 1, By: "nope", Edges: []float64{0, 1}},
		"one edge":          {Kind: index.Messages, Company: 1, By: "createdAt", Edges: []float64{0}},
		"unsorted edges":    {Kind: index.Messages, Company: 1, By: "createdAt", Edges: []float64{2, 1}},
		"text group":        {Kind: index.Conversations, Company: 1, GroupBy: []string{"subject"}},
		"unvalued group":    {Kind: index.Conversations, Company: 1, GroupBy: []string{"mailboxId"}},
		"keyword sum":       {Kind: index.Messages, Company: 1, Sums: []string{"rating"}},
		"unvalued distinct": {Kind: index.Messages, Company: 1, Distinct: []string{"mailboxId"}},
	}
	engines := map[string]index.Engine{"scan": e.oracle, "lists": lists.New()}
	for _, c := range enginetest.Cases {
		engines[c.Name] = c.Open(t)
	}
	for name, r := range bad {
		for engineName, engine := range engines {
			_, err := engine.(index.Aggregator).Aggregate(context.Background(), r)
			assert.Error(t, err, "%s on %s", name, engineName)
		}
	}
}
