package pgtest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Recorder is a pgx tracer that keeps the text of every statement run
// through it, alone or in a batch, for tests that walk them, and every run
// with its arguments (Calls), for tests that run them again.
type Recorder struct {
	mu    sync.Mutex
	seen  map[string]bool
	sqls  []string
	calls []Call
	runs  atomic.Int64
}

// Call is one run of a statement: its text and its arguments as the
// caller gave them (a pgx.QueryExecMode first, when the caller chose one).
type Call struct {
	SQL  string
	Args []any
}

var (
	_ pgx.QueryTracer = (*Recorder)(nil)
	_ pgx.BatchTracer = (*Recorder)(nil)
)

func (r *Recorder) add(sql string, args []any) {
	r.runs.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, Call{sql, args})
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if !r.seen[sql] {
		r.seen[sql] = true
		r.sqls = append(r.sqls, sql)
	}
}

// TraceQueryStart records a statement.
func (r *Recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	r.add(data.SQL, data.Args)
	return ctx
}

// TraceQueryEnd does nothing.
func (r *Recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart does nothing.
func (r *Recorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

// TraceBatchQuery records a statement of a batch.
func (r *Recorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	r.add(data.SQL, data.Args)
}

// TraceBatchEnd does nothing.
func (r *Recorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Runs counts the statements run, each run of the same one counted.
func (r *Recorder) Runs() int64 { return r.runs.Load() }

// Calls returns every run recorded, in order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Statements returns the distinct statements recorded, in first-run order.
func (r *Recorder) Statements() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sqls)
}

var (
	tableRef   = regexp.MustCompile(`(?i)\b(FROM|JOIN|INTO|UPDATE|USING)\s+([a-z_][a-z0-9_]*)(?:\s+(?:AS\s+)?([a-z_][a-z0-9_]*))?`)
	columnList = regexp.MustCompile(`^\s*\(([^)]*)\)`)
	keywords   = map[string]bool{"where": true, "join": true, "on": true, "set": true, "using": true, "left": true, "inner": true,
		"group": true, "order": true, "limit": true, "offset": true, "values": true, "select": true, "returning": true, "cross": true}
)

// CheckTenant reports why a statement does not keep to one company, or
// nil: every reference to one of tables (by FROM, JOIN, UPDATE or USING)
// must be filtered by `alias.company_id = $n`, and every INSERT into one
// must set company_id. A statement carrying exempt (a marker comment) is
// allowed; callers bound how many such statements there are.
func CheckTenant(sql string, tables []string, exempt string) error {
	if exempt != "" && strings.Contains(sql, exempt) {
		return nil
	}
	for _, m := range tableRef.FindAllStringSubmatchIndex(sql, -1) {
		verb, table := strings.ToUpper(sql[m[2]:m[3]]), strings.ToLower(sql[m[4]:m[5]])
		if !slices.Contains(tables, table) {
			continue
		}
		if verb == "INTO" {
			cols := columnList.FindStringSubmatch(sql[m[5]:])
			if cols == nil || !slices.Contains(strings.Fields(strings.ReplaceAll(cols[1], ",", " ")), "company_id") {
				return fmt.Errorf("INSERT INTO %s does not set company_id: %s", table, sql)
			}
			continue
		}
		alias := table
		if m[6] >= 0 && !keywords[strings.ToLower(sql[m[6]:m[7]])] {
			alias = sql[m[6]:m[7]]
		}
		filter := regexp.MustCompile(`(?i)(^|[^a-z0-9_.])` + regexp.QuoteMeta(alias) + `\.company_id\s*=\s*\$\d+\b`)
		if !filter.MatchString(sql) {
			return fmt.Errorf("%s %s (as %s) is not filtered by %s.company_id = $n: %s", verb, table, alias, alias, sql)
		}
	}
	return nil
}

// AssertTenant fails t for every recorded statement that CheckTenant
// rejects, and when more than maxExempt distinct statements carry the
// exemption marker.
func (r *Recorder) AssertTenant(t testing.TB, tables []string, exempt string, maxExempt int) {
	t.Helper()
	exempted := 0
	for _, sql := range r.Statements() {
		if exempt != "" && strings.Contains(sql, exempt) {
			exempted++
		}
		if err := CheckTenant(sql, tables, exempt); err != nil {
			t.Error(err)
		}
	}
	if exempted > maxExempt {
		t.Errorf("%d statements are exempt from the company filter; at most %d may be", exempted, maxExempt)
	}
}

// Counter is a pgx tracer that counts the statements run through it,
// alone or in a batch, and the round trips they took: a test bounds what
// one request costs.
type Counter struct {
	n atomic.Int64
	// trips counts the round trips: a statement sent alone, or a batch
	// (a pipeline of statements, one round trip).
	trips atomic.Int64
}

var (
	_ pgx.QueryTracer = (*Counter)(nil)
	_ pgx.BatchTracer = (*Counter)(nil)
)

// TraceQueryStart counts a statement.
func (c *Counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	c.trips.Add(1)
	return ctx
}

// TraceQueryEnd does nothing.
func (c *Counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart counts a batch's round trip.
func (c *Counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trips.Add(1)
	return ctx
}

// TraceBatchQuery counts a statement of a batch.
func (c *Counter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) { c.n.Add(1) }

// TraceBatchEnd does nothing.
func (c *Counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Take returns the number of statements counted since the last Take.
func (c *Counter) Take() int { return int(c.n.Swap(0)) }

// TakeRoundTrips returns the number of round trips counted since the last
// TakeRoundTrips: each statement sent alone and each batch is one. The
// round trips pgx makes on its own are not seen: the first run of a
// statement on a connection prepares it, and a connection idle for more
// than a second is pinged when the pool hands it out.
func (c *Counter) TakeRoundTrips() int { return int(c.trips.Swap(0)) }
