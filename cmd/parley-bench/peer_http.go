package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The PostgreSQL peer behind HTTP: what a team that builds its own API on
// PostgreSQL would run. A minimal Go service (net/http, a pgx pool, the
// standard JSON encoder) answers GET /q?name=QUERY by sending the query's
// SQL form in one batch, exactly as the SQL peer does, and rendering every
// statement's rows as JSON objects keyed by column name, with the total.
// The bench calls it over loopback HTTP as it calls Parley, so both sides
// pay a request, a round trip to the data and a JSON encoder; only the
// rendering differs (the peer renders flat rows, Parley its HAL resources).

// peerService is the running service.
type peerService struct {
	pool *pgxpool.Pool
	srv  *http.Server
	base string
}

// startPeerService serves the forms from the database at dbURL on a free
// loopback port.
func startPeerService(ctx context.Context, dbURL string, forms map[string]sqlQuery) (*peerService, error) {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		pool.Close()
		return nil, err
	}
	s := &peerService{pool: pool, base: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /q", func(w http.ResponseWriter, r *http.Request) {
		q, ok := forms[r.URL.Query().Get("name")]
		if !ok {
			http.Error(w, `{"error":"no such query"}`, http.StatusNotFound)
			return
		}
		body, err := s.answer(r.Context(), q)
		if err != nil {
			http.Error(w, fmt.Sprintf(`{"error":%q}`, err.Error()), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// peerAnswer is the service's JSON answer: the total (the first statement's
// count, or the rows of a single record) and each statement's rows.
type peerAnswer struct {
	Total   int                `json:"total"`
	Results [][]map[string]any `json:"results"`
}

// answer runs q's statements in one batch and renders their rows.
func (s *peerService) answer(ctx context.Context, q sqlQuery) ([]byte, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	batch := &pgx.Batch{}
	for _, st := range q.stmts {
		batch.Queue(st.sql, st.args...)
	}
	br := conn.SendBatch(ctx, batch)
	var out peerAnswer
	for i := range q.stmts {
		rows, err := br.Query()
		if err != nil {
			return nil, errors.Join(err, br.Close())
		}
		names := columnNames(rows.FieldDescriptions())
		var objects []map[string]any
		var first any // the first row's first value: a count, unless rowsAreHits
		for rows.Next() {
			values, err := rows.Values()
			if err != nil {
				rows.Close()
				return nil, errors.Join(err, br.Close())
			}
			if len(objects) == 0 && len(values) > 0 {
				first = values[0]
			}
			object := make(map[string]any, len(values))
			for j, v := range values {
				object[names[j]] = v
			}
			objects = append(objects, object)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, errors.Join(err, br.Close())
		}
		if i == 0 {
			out.Total = len(objects)
			if total, ok := first.(int64); ok && !q.rowsAreHits {
				out.Total = int(total)
			}
		}
		out.Results = append(out.Results, objects)
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// columnNames are the keys of a row's JSON object: the columns' names, a
// repeated one (count, count, ...) numbered after its first use, as a
// service would alias them.
func columnNames(fields []pgconn.FieldDescription) []string {
	names := make([]string, len(fields))
	seen := map[string]int{}
	for i, f := range fields {
		names[i] = f.Name
		if n := seen[f.Name]; n > 0 {
			names[i] = fmt.Sprintf("%s_%d", f.Name, n)
		}
		seen[f.Name]++
	}
	return names
}

func (s *peerService) close() error {
	err := s.srv.Close()
	s.pool.Close()
	return err
}

// runPeerServiceQueries times each query through the service, repeat
// times after one warm-up call (as runQueries does for Parley), and sets
// its PeerHTTP result.
func runPeerServiceQueries(s *peerService, results []QueryResult, forms map[string]sqlQuery, repeat int) error {
	client := &http.Client{}
	for i := range results {
		if _, ok := forms[results[i].Name]; !ok {
			continue
		}
		target := s.base + "/q?name=" + url.QueryEscape(results[i].Name)
		var times []time.Duration
		hits := 0
		for run := 0; run <= repeat; run++ {
			start := time.Now()
			resp, err := client.Get(target)
			if err != nil {
				return fmt.Errorf("peer service %q: %w", results[i].Name, err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			elapsed := time.Since(start)
			if err != nil || resp.StatusCode != http.StatusOK {
				return fmt.Errorf("peer service %q: %d %s %v", results[i].Name, resp.StatusCode, body, err)
			}
			if run == 0 {
				var a peerAnswer
				if err := json.Unmarshal(body, &a); err != nil {
					return fmt.Errorf("peer service %q: %w", results[i].Name, err)
				}
				hits = a.Total
				continue
			}
			times = append(times, elapsed)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		r := &PeerResult{Hits: hits, P50: percentile(times, 50), P99: percentile(times, 99)}
		if r.P50 > 0 {
			r.Ratio = float64(results[i].P50) / float64(r.P50)
		}
		results[i].PeerHTTP = r
	}
	return nil
}
