package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// sqlQuery is a reference query's SQL form: statements sent in one round
// trip (a pgx batch of prepared statements), as a client of PostgreSQL
// would. The first statement's first value is the total (count(*), exact,
// as Parley's totals are), unless rowsAreHits: then its row count is.
type sqlQuery struct {
	stmts       []sqlStmt
	rowsAreHits bool
}

type sqlStmt struct {
	sql  string
	args []any
}

// PeerResult is what a query measured on the PostgreSQL peer.
type PeerResult struct {
	Hits  int           `json:"hits"`
	P50   time.Duration `json:"p50"`
	P99   time.Duration `json:"p99"`
	Ratio float64       `json:"ratio"` // Parley's p50 / PostgreSQL's p50: below 1, Parley is faster
}

// conversationColumns are what a page of conversations reads: the
// conversation and its customer's name, as Parley renders them.
const conversationColumns = `c.id, c.number, c.type, c.mailbox_id, c.status, c.subject, c.assignee_id, c.customer_id,
	c.created_at, c.modified_at, c.closed_at, c.tag_ids, c.thread_count, c.preview, cu.first_name, cu.last_name`

const pageSize = 25 // api.ConversationPageSize

// conversationList is a conversation list of company $1: its exact total
// and one page (page from 1) in order; where is ANDed with the company.
func conversationList(where, order string, page int, args ...any) []sqlStmt {
	return []sqlStmt{
		{"SELECT count(*) FROM conversations c WHERE c.company_id = $1 AND " + where, args},
		{fmt.Sprintf(`SELECT %s FROM conversations c
			LEFT JOIN customers cu ON cu.company_id = c.company_id AND cu.id = c.customer_id
			WHERE c.company_id = $1 AND %s ORDER BY %s LIMIT %d OFFSET %d`, conversationColumns, where, order, pageSize, (page-1)*pageSize), args},
	}
}

// conversationFacets counts a list's conversations per status, assignee,
// mailbox, type and month of creation, and per tag: the facets of issue 22.
func conversationFacets(where string, args ...any) []sqlStmt {
	return []sqlStmt{
		{`SELECT c.status, c.assignee_id, c.mailbox_id, c.type, date_trunc('month', c.created_at), count(*)
			FROM conversations c WHERE c.company_id = $1 AND ` + where + `
			GROUP BY GROUPING SETS ((c.status), (c.assignee_id), (c.mailbox_id), (c.type), (date_trunc('month', c.created_at)))`, args},
		{`SELECT tag, count(*) FROM conversations c, unnest(c.tag_ids) tag WHERE c.company_id = $1 AND ` + where + ` GROUP BY tag`, args},
	}
}

// hasTag is a condition on the tag named by parameter n of company $1.
func hasTag(n int) string {
	return fmt.Sprintf("c.tag_ids && ARRAY(SELECT t.id FROM tags t WHERE t.company_id = $1 AND t.name = $%d)", n)
}

// chatReport computes the chat report's figures of one period (the
// reports package's ChatRanges bounds) over company $1's chats created in
// [$2, $3).
var chatReport = func() string {
	aggregates := []string{"count(*)", "count(*) FILTER (WHERE completed)", "count(*) FILTER (WHERE missed)",
		"avg(wait_seconds)", "avg(response_seconds)", "avg(messages)", "avg(duration_seconds)"}
	for _, d := range []struct {
		column string
		bounds []int
	}{
		{"wait_seconds", []int{60, 120, 600, 1200}}, {"response_seconds", []int{60, 120, 300, 600}},
		{"messages", []int{5, 10, 20, 30}}, {"duration_seconds", []int{300, 600, 1200, 1800}},
	} {
		aggregates = append(aggregates, fmt.Sprintf("count(%s)", d.column))
		lower := "0"
		for _, b := range d.bounds {
			aggregates = append(aggregates, fmt.Sprintf("count(*) FILTER (WHERE %s >= %s AND %s < %d)", d.column, lower, d.column, b))
			lower = fmt.Sprint(b)
		}
		aggregates = append(aggregates, fmt.Sprintf("count(*) FILTER (WHERE %s >= %s)", d.column, lower))
	}
	return "SELECT " + strings.Join(aggregates, ", ") + " FROM chats WHERE company_id = $1 AND created_at >= $2 AND created_at < $3"
}()

// peerQueries are the SQL forms of the reference queries, by name; the
// reports have none.
func peerQueries(w *world, now time.Time, convID int64) map[string]sqlQuery {
	co := w.companies[0]
	box := w.mailboxes[co][0]
	day := func(d int) time.Time { return now.AddDate(0, 0, -d) }
	const byCreated = "c.created_at DESC, c.id DESC"
	list := func(where string, args ...any) sqlQuery {
		return sqlQuery{stmts: conversationList(where, byCreated, 1, append([]any{co}, args...)...)}
	}
	withFacets := func(where string, args ...any) sqlQuery {
		q := list(where, args...)
		q.stmts = append(q.stmts, conversationFacets(where, append([]any{co}, args...)...)...)
		return q
	}
	refund := "to_tsquery('english', 'refund')"
	return map[string]sqlQuery{
		"1 ranked body term": {stmts: conversationList("c.body_tsv @@ "+refund, "ts_rank(c.body_tsv, "+refund+") DESC, c.id DESC", 1, co)},
		"2 two body terms AND status AND mailbox": list(
			"c.status = 'active' AND c.mailbox_id = $2 AND c.body_tsv @@ to_tsquery('english', 'refund & order')", box.ID),
		"3 list: status, last 7 days":                  list("c.status = 'active' AND c.modified_at >= $2", day(7)),
		"3f the same list with every facet (issue 22)": withFacets("c.status = 'active' AND c.modified_at >= $2", day(7)),
		"4 customFieldsByIds and tag": list(`c.mailbox_id = $2 AND `+hasTag(3)+` AND EXISTS (SELECT 1 FROM conversation_fields f
			WHERE f.company_id = $1 AND f.conversation_id = c.id AND f.field_id = $4 AND f.value = $5)`, box.ID, "vip", w.numberFld[box.ID], "250"),
		"5 prefix subject:refun*":    list("c.subject_tsv @@ to_tsquery('english', 'refun:*')"),
		"6 body phrase by createdAt": list("c.body_tsv @@ phraseto_tsquery('english', 'tracking number')"),
		"7 status AND NOT tag AND subject OR": list("c.status = 'active' AND NOT "+hasTag(2)+
			" AND c.subject_tsv @@ to_tsquery('english', 'invoice | password')", "spam"),
		"8 last 30 days for one customer": list(`c.created_at >= now() - interval '30 days' AND c.created_at <= now()
			AND c.customer_id IN (SELECT e.customer_id FROM customer_emails e WHERE e.company_id = $1 AND e.email = $2)`, recentEmail(w)),
		"9 page 200 of a broad list":                  {stmts: conversationList("true", byCreated, 200, co)},
		"9f a broad list with every facet (issue 22)": withFacets("true"),
		"9b the same broad list without facets":       list("true"),
		"10 one conversation with threads": {rowsAreHits: true, stmts: []sqlStmt{
			{`SELECT ` + conversationColumns + ` FROM conversations c
				LEFT JOIN customers cu ON cu.company_id = c.company_id AND cu.id = c.customer_id
				WHERE c.company_id = $1 AND c.id = $2`, []any{co, convID}},
			{`SELECT t.id, t.type, t.body, t.customer_id, t.created_by, t.created_at FROM threads t
				WHERE t.company_id = $1 AND t.conversation_id = $2 ORDER BY t.created_at DESC, t.id DESC`, []any{co, convID}},
		}},
		"11a chat report, 30 days":       {stmts: []sqlStmt{{chatReport, []any{co, day(30), day(0)}}}},
		"11b chat report, whole range":   {stmts: []sqlStmt{{chatReport, []any{co, day(730), day(0)}}}},
		"12 customer by e-mail fragment": customerFragment(co, "customer00012"),
	}
}

// customerFragment lists the customers with an e-mail containing
// fragment, 50 a page, newest first (GET /v2/customers?query=email:...).
func customerFragment(company int64, fragment string) sqlQuery {
	match := "cu.id IN (SELECT e.customer_id FROM customer_emails e WHERE e.company_id = $1 AND e.email LIKE $2)"
	args := []any{company, "%" + fragment + "%"}
	return sqlQuery{stmts: []sqlStmt{
		{"SELECT count(*) FROM customers cu WHERE cu.company_id = $1 AND " + match, args},
		{`SELECT cu.id, cu.first_name, cu.last_name, cu.created_at, (SELECT array_agg(e.email) FROM customer_emails e
			WHERE e.company_id = $1 AND e.customer_id = cu.id) FROM customers cu
			WHERE cu.company_id = $1 AND ` + match + " ORDER BY cu.created_at DESC, cu.id DESC LIMIT 50", args},
	}}
}

// runPeerQueries times each query's SQL form repeat times (after one
// warm-up run, as runQueries does) and sets its Peer result.
func runPeerQueries(ctx context.Context, conn *pgx.Conn, results []QueryResult, forms map[string]sqlQuery, repeat int) error {
	for i := range results {
		q, ok := forms[results[i].Name]
		if !ok {
			continue
		}
		var times []time.Duration
		hits := 0
		for run := 0; run <= repeat; run++ {
			start := time.Now()
			n, err := runSQL(ctx, conn, q)
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("peer query %q: %w", results[i].Name, err)
			}
			if run == 0 {
				hits = n
				continue
			}
			times = append(times, elapsed)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		r := &PeerResult{Hits: hits, P50: percentile(times, 50), P99: percentile(times, 99)}
		if r.P50 > 0 {
			r.Ratio = float64(results[i].P50) / float64(r.P50)
		}
		results[i].Peer = r
	}
	return nil
}

// runSQL sends a query's statements in one batch, reads every row, and
// returns its hits.
func runSQL(ctx context.Context, conn *pgx.Conn, q sqlQuery) (int, error) {
	batch := &pgx.Batch{}
	for _, s := range q.stmts {
		batch.Queue(s.sql, s.args...)
	}
	br := conn.SendBatch(ctx, batch)
	hits := 0
	for i := range q.stmts {
		rows, err := br.Query()
		if err != nil {
			br.Close()
			return 0, err
		}
		n := 0
		for rows.Next() {
			values, err := rows.Values()
			if err != nil {
				rows.Close()
				br.Close()
				return 0, err
			}
			if total, ok := values[0].(int64); ok && i == 0 && n == 0 && !q.rowsAreHits {
				hits = int(total)
			}
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			br.Close()
			return 0, err
		}
		if i == 0 && q.rowsAreHits {
			hits = n
		}
	}
	return hits, br.Close()
}
