package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
)

// ingestRates are what loading the generated data measured, in
// conversations per second: through HTTP until answered and until
// searchable, and through the internal loader until searchable; and the
// times of an agent's writes during the HTTP load (tagWritesDuring),
// sorted.
type ingestRates struct {
	http, httpSearchable, internal float64
	writesDuring                   []time.Duration
}

// benchDB is a node's storage, embedded or on PostgreSQL.
type benchDB interface {
	api.Database
	Store() parley.Store
}

// loadGenerated stores the bench's world in a node's storage and loads the
// generated conversations (the first o.HTTP through the API at base, the
// rest through the internal loader) and the chats, each step waiting until
// what it wrote is searchable; where names the node in the progress lines.
func loadGenerated(ctx context.Context, db benchDB, applied func() uint64, base string, o Options, now time.Time, where string, out io.Writer) (*world, ingestRates, error) {
	var rates ingestRates
	w, err := setupWorld(db.Store(), o.Companies, max(o.N/5, 50), now)
	if err != nil {
		return nil, rates, err
	}
	// The customers must be searchable before the clock starts: the HTTP
	// writers would otherwise wait behind their indexing.
	if err := waitIndexed(ctx, db, applied); err != nil {
		return nil, rates, err
	}
	c := newCorpus(corpusSeed, corpusWords)
	fmt.Fprintf(out, "loading %d conversations%s through HTTP with %d clients...\n", o.HTTP, where, o.Clients)
	start := time.Now()
	stop := make(chan struct{})
	type writes struct {
		times []time.Duration
		err   error
	}
	during := make(chan writes, 1)
	go func() {
		times, err := tagWritesDuring(base, w, stop)
		during <- writes{times, err}
	}()
	err = loadHTTP(base, w, c, 0, o.HTTP, o.Clients, now, benchSpan)
	close(stop)
	agent := <-during
	if err = cmp.Or(err, agent.err); err != nil {
		return nil, rates, err
	}
	rates.writesDuring = agent.times
	if o.HTTP > 0 {
		rates.http = float64(o.HTTP) / time.Since(start).Seconds()
		// Imports are answered at commit: say also when the last became
		// searchable.
		if err := waitIndexed(ctx, db, applied); err != nil {
			return nil, rates, err
		}
		rates.httpSearchable = float64(o.HTTP) / time.Since(start).Seconds()
	}
	fmt.Fprintf(out, "loading %d conversations and %d chats%s through the internal loader...\n", o.N-o.HTTP, o.Chats, where)
	start = time.Now()
	if err := loadInternal(db.Store(), w, c, o.HTTP, o.N, now, benchSpan); err != nil {
		return nil, rates, err
	}
	if err := waitIndexed(ctx, db, applied); err != nil {
		return nil, rates, err
	}
	if o.N > o.HTTP {
		rates.internal = float64(o.N-o.HTTP) / time.Since(start).Seconds()
	}
	if err := loadChats(db.Store(), w, o.Chats, now, benchSpan, chatSeed); err != nil {
		return nil, rates, err
	}
	return w, rates, waitIndexed(ctx, db, applied)
}

// loadInternal stores conversations through the domain rules directly,
// many per transaction: the fastest path an importer has. Each is written
// at the time of its last activity, as in a store that lived through the
// two years, so modifiedAt is spread like createdAt; the HTTP-loaded ones
// carry today's date, as an import does.
func loadInternal(db parley.Store, w *world, c *corpus, from, to int, now time.Time, span time.Duration) error {
	const perTx = 500
	for start := from; start < to; start += perTx {
		end := min(start+perTx, to)
		type req struct {
			company int64
			n       *parley.NewConversation
			at      time.Time
		}
		var reqs []req
		for i := start; i < end; i++ {
			company, n, at := c.conversation(w, i, now, span)
			reqs = append(reqs, req{company, n, at})
		}
		_, err := db.Update(context.Background(), func(tx parley.Tx) error {
			for _, r := range reqs {
				company, err := tx.Company(r.company)
				if err != nil {
					return err
				}
				owner, err := tx.User(r.company, w.owners[r.company])
				if err != nil {
					return err
				}
				if _, err := parley.CreateConversation(tx, parley.Caller{Company: company, User: owner}, r.n, nil, r.at); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("internal load: %w", err)
		}
	}
	return nil
}

// loadHTTP posts conversations as an importer would, from many clients.
func loadHTTP(base string, w *world, c *corpus, from, to, clients int, now time.Time, span time.Duration) error {
	type job struct {
		company int64
		body    []byte
	}
	jobs := make(chan job, clients*2)
	var failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				req, _ := http.NewRequest(http.MethodPost, base+"/v2/conversations", bytes.NewReader(j.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+w.tokens[j.company])
				res, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				if res.StatusCode != http.StatusCreated {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("status %d", res.StatusCode))
				}
				res.Body.Close()
			}
		}()
	}
	for i := from; i < to; i++ {
		company, n, _ := c.conversation(w, i, now, span)
		body, err := json.Marshal(n)
		if err != nil {
			return err
		}
		jobs <- job{company, body}
	}
	close(jobs)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("http load: %d requests failed; first: %v", n, firstErr.Load())
	}
	return nil
}

// loadChats plays chats with the wait, response and duration the report
// counts, through the chat rules.
func loadChats(db parley.Store, w *world, count int, now time.Time, span time.Duration, seed uint64) error {
	c := newCorpus(seed, 1000)
	n := 0
	newID := func() string { n++; return fmt.Sprintf("b0000000-0000-4000-8000-%012d", n) }
	const perTx = 500
	for start := 0; start < count; start += perTx {
		_, err := db.Update(context.Background(), func(tx parley.Tx) error {
			for i := start; i < min(start+perTx, count); i++ {
				company := w.companies[i%len(w.companies)]
				co, err := tx.Company(company)
				if err != nil {
					return err
				}
				agent, err := tx.User(company, w.users[company][c.r.IntN(len(w.users[company]))])
				if err != nil {
					return err
				}
				boxes := w.mailboxes[company]
				at := now.Add(-time.Duration(c.r.Int64N(int64(span))))
				env := func() parley.ChatEnv { return parley.ChatEnv{Now: at, NewID: newID} }
				email := w.customers[company][c.r.IntN(len(w.customers[company]))]
				chat, err := parley.StartChat(tx, boxes[c.r.IntN(len(boxes))].Widgets[0],
					&parley.StartChatRequest{Name: parley.Ptr("Visitor"), Email: &email, Message: parley.Ptr(c.sentence(8))}, "t", env())
				if err != nil {
					return err
				}
				caller := parley.Caller{Company: co, User: agent}
				if c.r.IntN(8) > 0 {
					at = at.Add(time.Duration(c.r.IntN(1500)) * time.Second)
					for m := 0; m < 1+c.r.IntN(10); m++ {
						if _, err := parley.AgentMessage(tx, caller, chat.ID, newID(), &parley.AgentMessageRequest{Body: parley.Ptr(c.sentence(6))}, env()); err != nil {
							return err
						}
						at = at.Add(time.Duration(10+c.r.IntN(200)) * time.Second)
					}
				}
				at = at.Add(time.Duration(c.r.IntN(1800)) * time.Second)
				if _, err := parley.EndChat(tx, caller, chat.ID, &parley.EndChatRequest{Status: parley.Ptr("closed")}, env()); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("chats: %w", err)
		}
	}
	return nil
}

// waitIndexed blocks until the syncer applied everything committed.
func waitIndexed(ctx context.Context, db api.Database, applied func() uint64) error {
	for {
		last, err := db.LastOutboxSeq()
		if err != nil {
			return err
		}
		depth, err := db.OutboxDepth()
		if err != nil {
			return err
		}
		if depth == 0 && applied() >= last {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
