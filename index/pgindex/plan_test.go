package pgindex

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/query"
)

// TestAccessPathsHaveIndexes: statements whose cost would otherwise grow
// with every row of a company (or of every company) are answered through
// an index made for them. The tables hold a few thousand documents,
// vacuumed and analysed (fillForPlans), and sequential scans are switched
// off, which a table this small would favour.
func TestAccessPathsHaveIndexes(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	rec := &pgtest.Recorder{}
	e, err := Open(ctx, url, Options{Tracer: rec})
	require.NoError(t, err)
	defer e.Close()
	fillForPlans(t, e)
	conn := pgtest.Dial(t, url)
	_, err = conn.Exec(ctx, "SET enable_seqscan = off")
	require.NoError(t, err)
	user, weekAgo, fieldValue, mailbox := 2.0, 1.6e12+993*864e5, 250.0, 11.0
	for _, tc := range []struct {
		name string
		run  func() error
		plan string // a regular expression the plans of its statements match
	}{
		{"the customers a user ever replied to (user report)", func() error {
			_, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Messages, Company: 1,
				Filter: query.And{Nodes: []query.Node{query.Keyword{Field: "from", Value: "user"},
					query.NumberRange{Field: "userId", Min: &user, Max: &user, MinInclusive: true, MaxInclusive: true}}},
				Distinct: []string{"customerId"}})
			return err
		}, `Index Only Scan using search_message_user`},
		{"the active conversations modified since a date (a list)", func() error {
			_, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Limit: 25,
				Filter: query.And{Nodes: []query.Node{query.Keyword{Field: "status", Value: "active"},
					query.NumberRange{Field: "modifiedAt", Min: &weekAgo, MinInclusive: true}}}})
			return err
		}, `Scan using search_conversation_modified[^\n]*\n\s*Index Cond: [^\n]*status = 'active'`},
		{"words of the body in one mailbox's active conversations (a search)", func() error {
			_, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Limit: 25,
				Query: query.And{Nodes: []query.Node{query.Match{Field: "body", Text: "refund"}, query.Match{Field: "body", Text: "order"}}},
				Filter: query.And{Nodes: []query.Node{query.Keyword{Field: "status", Value: "active"},
					query.NumberRange{Field: "mailboxId", Min: &mailbox, Max: &mailbox, MinInclusive: true, MaxInclusive: true}}}})
			return err
		}, `Bitmap Index Scan on search_conversation_body_stems[^\n]*\n\s*Index Cond: [^\n]*@> '\{sactive,m11\}'[^\n]*body_stems @@`},
		{"every facet of a company's conversations (a broad list)", func() error {
			_, err := e.Facets(ctx, index.FacetRequest{Kind: index.Conversations, Company: 1,
				Values: map[string]string{"status": "status", "type": "type", "assigned": "assigned", "mailbox": "mailboxName", "tag": "tag"},
				Ranges: map[string]index.RangeFacet{"created": {Field: "createdAt", Buckets: []index.Bucket{{Max: &weekAgo}, {Min: &weekAgo}}}}})
			return err
		}, `Index Only Scan using search_conversation_facets`},
		{"one value of a custom field (customFieldsByIds)", func() error {
			_, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Limit: 25,
				Filter: query.NumberRange{Field: "cfn.6", Min: &fieldValue, Max: &fieldValue, MinInclusive: true, MaxInclusive: true}})
			return err
		}, `Bitmap Index Scan on search_conversation_extra`},
		{"the chat report's sums over a period", func() error {
			_, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Chats, Company: 1,
				Filter: query.NumberRange{Field: "createdAt", Min: &weekAgo, MinInclusive: true},
				Sums:   []string{"waitSeconds", "responseSeconds", "messages", "durationSeconds"}})
			return err
		}, `Index Only Scan using search_chat_report`},
		{"a period's replies to e-mail (the e-mail report)", func() error {
			_, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Messages, Company: 1,
				Filter: query.And{Nodes: []query.Node{query.Keyword{Field: "from", Value: "user"},
					query.NumberRange{Field: "createdAt", Min: &weekAgo, MinInclusive: true}, query.Keyword{Field: "type", Value: "email"}}},
				Distinct: []string{"customerId"}})
			return err
		}, `Index Only Scan using search_message_created`},
		{"a period's resolved e-mail conversations and their figures (the e-mail report)", func() error {
			_, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Conversations, Company: 1,
				Filter: query.And{Nodes: []query.Node{query.NumberRange{Field: "resolvedAt", Min: &weekAgo, MinInclusive: true},
					query.Keyword{Field: "type", Value: "email"}}},
				Sums: []string{"replies", "resolutionSeconds"}})
			return err
		}, `Index Only Scan using search_conversation_resolved`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rec.Calls())
			require.NoError(t, tc.run())
			statements := rec.Calls()[before:]
			require.NotEmpty(t, statements)
			// A btree that covers a statement is read alone (an index-only
			// scan) at any size; on tables this small a bitmap scan reads
			// their few pages as cheaply, so it is ruled out.
			covered := strings.HasPrefix(tc.plan, "Index Only Scan")
			_, err := conn.Exec(ctx, fmt.Sprintf("SET enable_bitmapscan = %t", !covered))
			require.NoError(t, err)
			// A GIN index is read by bitmap scans alone; on tables this
			// small a btree scan that checks each row is as cheap, so it
			// is ruled out.
			gin := strings.HasPrefix(tc.plan, "Bitmap Index Scan")
			_, err = conn.Exec(ctx, fmt.Sprintf("SET enable_indexscan = %t", !gin))
			require.NoError(t, err)
			var plans []string
			for _, s := range statements {
				if !strings.HasPrefix(s.SQL, "SELECT") && !strings.HasPrefix(s.SQL, "WITH") {
					continue // begin, commit
				}
				rows, err := conn.Query(ctx, "EXPLAIN "+s.SQL, s.Args...)
				require.NoError(t, err)
				lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
				require.NoError(t, err)
				plans = append(plans, strings.Join(lines, "\n"))
			}
			assert.Regexp(t, tc.plan, strings.Join(plans, "\n"))
		})
	}
}

// fillForPlans stores 3,000 conversations of three companies, modified
// over 1,000 days, half of them resolved, 3,000 messages, a third of them
// replies by one of three users, and 3,000 chats, then settles the tables as after a load.
func fillForPlans(t *testing.T, e *Engine) {
	t.Helper()
	ctx := context.Background()
	statuses, types := []string{"active", "closed", "pending"}, []string{"email", "chat", "phone"}
	for company := int64(1); company <= 3; company++ {
		var conversations, messages []index.Document
		for i := 0; i < 1000; i++ {
			id := strconv.Itoa(int(company)*10000 + i)
			c := index.NewDocument(id, company)
			c.Keywords["status"] = []string{statuses[i%3]}
			c.Keywords["type"] = []string{types[i%3]}
			c.Keywords["tag"] = []string{"tag" + strconv.Itoa(i%7)}
			c.Numbers["id"] = []float64{float64(i)}
			c.Numbers["createdAt"] = []float64{1.6e12 + float64(i)*864e5}
			c.Numbers["modifiedAt"] = []float64{1.6e12 + float64(i)*864e5}
			c.Numbers["cfn.6"] = []float64{float64(i % 500)}
			c.Numbers["mailboxId"] = []float64{float64(company*10 + 1)}
			c.Texts["body"] = []string{"where is my parcel"}
			if i%50 == 0 {
				c.Texts["body"] = []string{"a refund for my order"}
			}
			if i%2 == 0 {
				c.Numbers["resolvedAt"] = []float64{1.6e12 + float64(i)*864e5}
				c.Numbers["replies"] = []float64{float64(i % 4)}
				c.Numbers["resolutionSeconds"] = []float64{float64(i * 60)}
			}
			conversations = append(conversations, c)
			m := index.NewDocument(id, company)
			m.Keywords["from"] = []string{"customer", "user", "customer"}[i%3 : i%3+1]
			if i%3 == 1 {
				m.Numbers["userId"] = []float64{float64(i % 9 / 3)}
			}
			m.Numbers["customerId"] = []float64{float64(i % 100)}
			m.Numbers["createdAt"] = []float64{1.6e12 + float64(i)*864e5}
			m.Keywords["type"] = []string{types[i%3]}
			messages = append(messages, m)
		}
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: company, Upserts: conversations}, nil))
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Messages, Company: company, Upserts: messages}, nil))
		var chats []index.Document
		for i := 0; i < 1000; i++ {
			ch := index.NewDocument(strconv.Itoa(int(company)*10000+i), company)
			ch.Numbers["createdAt"] = []float64{1.6e12 + float64(i)*864e5}
			ch.Numbers["waitSeconds"] = []float64{float64(i % 300)}
			ch.Keywords["completed"] = []string{"true"}
			chats = append(chats, ch)
		}
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Chats, Company: company, Upserts: chats}, nil))
	}
	require.NoError(t, e.Settle(ctx))
}

// TestValueDependentSearchesArePlannedEachTime: a search on words, a
// phrase, a prefix or a fragment runs on an unnamed statement, planned for
// its values each time, where one on keywords, numbers and dates alone is
// prepared once per connection (its generic plan is as good).
func TestValueDependentSearchesArePlannedEachTime(t *testing.T) {
	ctx := context.Background()
	rec := &pgtest.Recorder{}
	e, err := Open(ctx, pgtest.Database(t), Options{Tracer: rec})
	require.NoError(t, err)
	defer e.Close()
	active := query.Keyword{Field: "status", Value: "active"}
	for _, tc := range []struct {
		name     string
		node     query.Node
		planEach bool
	}{
		{"a word", query.Match{Field: "body", Text: "refund"}, true},
		{"a quoted word", query.Match{Field: "subject", Text: "refund", Exact: true}, true},
		{"a phrase", query.Phrase{Field: "body", Text: "tracking number"}, true},
		{"a text prefix", query.Prefix{Field: "subject", Value: "refun"}, true},
		{"a keyword prefix", query.Prefix{Field: "status", Value: "act"}, true},
		{"a fragment", query.Contains{Field: "email", Value: "example"}, true},
		{"a word and a keyword", query.And{Nodes: []query.Node{active, query.Match{Field: "body", Text: "refund"}}}, true},
		{"a keyword", active, false},
		{"a date range", query.NumberRange{Field: "modifiedAt", Min: new(1.6e12), MinInclusive: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rec.Calls())
			_, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Query: tc.node, Limit: 25})
			require.NoError(t, err)
			statements := rec.Calls()[before:]
			require.Len(t, statements, 1)
			args := statements[0].Args
			require.NotEmpty(t, args)
			assert.Equal(t, tc.planEach, args[0] == pgx.QueryExecModeExec, "the first argument: %v", args[0])
		})
	}
}

// TestWordsOredOnAFieldAreOneTsquery: words ORed on one text field are
// one tsquery, found with one scan of the field's GIN index; other
// conditions of the OR stay as they are.
func TestWordsOredOnAFieldAreOneTsquery(t *testing.T) {
	ctx := context.Background()
	rec := &pgtest.Recorder{}
	e, err := Open(ctx, pgtest.Database(t), Options{Tracer: rec})
	require.NoError(t, err)
	defer e.Close()
	opened := len(rec.Calls())
	_, err = e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Limit: 25, Query: query.Or{Nodes: []query.Node{
		query.Match{Field: "subject", Text: "invoice"}, query.Keyword{Field: "status", Value: "active"},
		query.Match{Field: "subject", Text: "password reset"}, query.Match{Field: "subject", Text: "refund", Exact: true}}}})
	require.NoError(t, err)
	calls := rec.Calls()[opened:]
	require.Len(t, calls, 1)
	sql, args := calls[0].SQL, calls[0].Args
	assert.Equal(t, 1, strings.Count(sql, `d."subject_stems" @@`), sql) // found once for the total and the page
	assert.Equal(t, 1, strings.Count(sql, `d."subject_lexemes" @@`), sql)
	assert.Contains(t, args, "('invoic') | ('password' & 'reset')")
	assert.Contains(t, args, "'refund'")
}

// TestTextSearchesPlanNoIndexScans: a facet statement with a condition on
// a text column runs on sessions that plan no plain index scans, so that
// it reaches rows through the GIN indexes; the others keep index scans. A
// search does so when no keyed condition is ANDed beside the text.
func TestTextSearchesPlanNoIndexScans(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, pgtest.Database(t), Options{})
	require.NoError(t, err)
	defer e.Close()
	for _, tc := range []struct {
		node query.Node
		want string
	}{
		{query.Match{Field: "body", Text: "refund"}, "off"},
		{query.Phrase{Field: "subject", Text: "tracking number"}, "off"},
		{query.Prefix{Field: "subject", Value: "refun"}, "off"},
		{query.And{Nodes: []query.Node{query.Keyword{Field: "status", Value: "active"}, query.Match{Field: "body", Text: "refund"}}}, "off"},
		{query.Keyword{Field: "status", Value: "active"}, "on"},
		{query.NumberRange{Field: "modifiedAt", Min: new(1.6e12), MinInclusive: true}, "on"},
	} {
		s, err := newStatement(index.Conversations, 1)
		require.NoError(t, err)
		_, err = s.matching("", tc.node)
		require.NoError(t, err)
		var got string
		require.NoError(t, e.sessions(s.byText).QueryRow(ctx, "SHOW enable_indexscan").Scan(&got))
		assert.Equal(t, tc.want, got, tc.node.String())
	}
	active, refund := query.Keyword{Field: "status", Value: "active"}, query.Match{Field: "body", Text: "refund"}
	assert.False(t, keyed(refund, nil))
	assert.False(t, keyed(query.Or{Nodes: []query.Node{active, refund}}, nil))
	assert.False(t, keyed(query.Not{Node: active}, refund))
	assert.True(t, keyed(refund, active))
	assert.True(t, keyed(query.And{Nodes: []query.Node{refund, query.And{Nodes: []query.Node{active}}}}, nil))
}

// TestSearchesRunWithoutParallelWorkers: the engine's sessions plan no
// parallel workers, unless the database URL asks for them.
func TestSearchesRunWithoutParallelWorkers(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	for _, tc := range []struct{ url, want string }{
		{url, "0"},
		{url + "&max_parallel_workers_per_gather=2", "2"},
	} {
		e, err := Open(ctx, tc.url, Options{})
		require.NoError(t, err)
		var got string
		require.NoError(t, e.pool.QueryRow(ctx, "SHOW max_parallel_workers_per_gather").Scan(&got))
		e.Close()
		assert.Equal(t, tc.want, got, tc.url)
	}
}
