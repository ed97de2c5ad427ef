package main

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// WriteResult is what a write class measured over HTTP: the time until
// the API answered, which includes the write becoming searchable.
type WriteResult struct {
	Name string        `json:"name"`
	N    int           `json:"n,omitempty"` // writes timed, when not -repeat
	P50  time.Duration `json:"p50"`
	P99  time.Duration `json:"p99"`
}

// benchWorkflows are the automatic workflows of the written conversation's
// mailbox (in the last company) while the writes are timed with workflows on (issue 22's write
// cost). The reference queries and the peer read company 1 only, so with
// more than one company the writes change nothing they count.
// Three never match the bench's writes and are only tried; the last
// matches every other write (the tags alternate) and acts, adding a tag
// inside the same transaction.
var benchWorkflows = []struct{ condition, tag string }{
	{"tag:vip AND status:closed", "nevera"},
	{`body:"tracking number" AND tag:gdpr`, "neverb"},
	{"modifiedAt:[* TO NOW-2DAYS] AND NOT tag:vip", "neverc"},
	{"tag:bencha AND NOT tag:benchseen", "benchseen"},
}

// measureWrites times replacing a conversation's tags through the API,
// first with no workflow engine hooked to commits, then with it hooked and
// the bench's automatic workflows active: the difference is what
// automatic workflows add to a write.
func measureWrites(n *node, w *world, repeat int, now time.Time) ([]WriteResult, error) {
	company := w.companies[len(w.companies)-1]
	convID, err := firstConversation(n.base, w.tokens[company])
	if err != nil {
		return nil, err
	}
	var acting int64 // the workflow that matches every other write
	_, err = n.db.Update(func(tx *storage.Tx) error {
		co, err := tx.Company(company)
		if err != nil {
			return err
		}
		owner, err := tx.User(company, w.owners[company])
		if err != nil {
			return err
		}
		caller := parley.Caller{Company: co, User: owner}
		conv, err := tx.Conversation(company, convID)
		if err != nil {
			return err
		}
		box := conv.MailboxID
		// A reused data directory (-reuse) holds an earlier run's bench
		// workflows, whose acting one would act first and leave this
		// run's nothing to do.
		old, err := tx.Workflows(company)
		if err != nil {
			return err
		}
		for i := range old {
			if strings.HasPrefix(old[i].Name, "bench ") {
				if err := tx.DeleteWorkflow(&old[i]); err != nil {
					return err
				}
			}
		}
		for _, b := range benchWorkflows {
			name, kind := "bench "+b.tag, parley.WorkflowAutomatic
			in := &parley.WorkflowInput{MailboxID: &box, Name: &name, Type: &kind, Conditions: []string{b.condition},
				Actions: []parley.WorkflowAction{{Type: parley.ActionAddTags, Tags: []string{b.tag}}}}
			wf, err := parley.CreateWorkflow(tx, caller, in, workflow.Check, now)
			if err != nil {
				return fmt.Errorf("bench workflow %q: %w", b.condition, err)
			}
			acting = wf.ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	path := fmt.Sprintf("%s/v2/conversations/%d/tags", n.base, convID)
	token := w.tokens[company]
	none, err := timeTagWrites(path, token, repeat)
	if err != nil {
		return nil, err
	}
	// The hook's own time is what workflows add inside the write's
	// transaction: the answer times around it vary with the disk's
	// flushes by more than that.
	var hooked []time.Duration
	var mu sync.Mutex
	engine := &workflow.Engine{Clock: parley.SystemClock}
	n.db.SetBeforeCommit(func(tx parley.Tx, events []parley.Event) error {
		start := time.Now()
		err := engine.BeforeCommit(tx, events)
		mu.Lock()
		hooked = append(hooked, time.Since(start))
		mu.Unlock()
		return err
	})
	defer n.db.SetBeforeCommit(nil)
	with, err := timeTagWrites(path, token, repeat)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	hooked = hooked[min(1, len(hooked)):] // the warm-up write's
	sort.Slice(hooked, func(i, j int) bool { return hooked[i] < hooked[j] })
	mu.Unlock()
	// The measure means something only if the workflows ran: the acting
	// one must have acted on every other write.
	var runs []parley.WorkflowRun
	err = n.db.View(func(tx *storage.Tx) (err error) { runs, err = tx.WorkflowRuns(company, acting); return err })
	if err != nil {
		return nil, err
	}
	if len(runs) < repeat/2 {
		return nil, fmt.Errorf("the acting bench workflow ran %d times over %d writes", len(runs), repeat+1)
	}
	return []WriteResult{
		{Name: "w1 replace tags, no workflow engine", P50: percentile(none, 50), P99: percentile(none, 99)},
		{Name: fmt.Sprintf("w2 replace tags, %d automatic workflows", len(benchWorkflows)), P50: percentile(with, 50), P99: percentile(with, 99)},
		{Name: "w2h of which the workflows' own time in the write", P50: percentile(hooked, 50), P99: percentile(hooked, 99)},
	}, nil
}

// timeTagWrites replaces the tags repeat times, alternating two sets so
// every write changes them, and returns the sorted times.
func timeTagWrites(path, token string, repeat int) ([]time.Duration, error) {
	client := &http.Client{}
	var times []time.Duration
	for i := 0; i <= repeat; i++ {
		elapsed, err := timeTagWrite(client, path, token, []string{"bencha", "benchb"}[i%2])
		if err != nil {
			return nil, err
		}
		if i > 0 { // the first write warms the path, as the first query does
			times = append(times, elapsed)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times, nil
}

// timeTagWrite replaces the tags at path with tag, and returns the time
// until the API answered.
func timeTagWrite(client *http.Client, path, token, tag string) (time.Duration, error) {
	req, _ := http.NewRequest(http.MethodPut, path, strings.NewReader(`{"tags":["`+tag+`"]}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	elapsed := time.Since(start)
	if res.StatusCode != http.StatusNoContent {
		return 0, fmt.Errorf("replace tags: status %d: %s", res.StatusCode, body)
	}
	return elapsed, nil
}

// tagWritesDuring replaces the tags of the last company's first
// conversation through the API, a write every 100 ms, until stop: what an
// agent's write takes while an import fills the index. Each write waits
// until it is searchable, as every write does (the bench's WriteWait). It
// starts once a conversation of that company is searchable, so a short
// import may end before the first write.
func tagWritesDuring(base string, w *world, stop <-chan struct{}) ([]time.Duration, error) {
	token := w.tokens[w.companies[len(w.companies)-1]]
	client := &http.Client{}
	var path string
	var times []time.Duration
	for i := 0; ; i++ {
		select {
		case <-stop:
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			return times, nil
		case <-time.After(100 * time.Millisecond):
		}
		if path == "" {
			if id, err := firstConversation(base, token); err == nil {
				path = fmt.Sprintf("%s/v2/conversations/%d/tags", base, id)
			}
			continue
		}
		elapsed, err := timeTagWrite(client, path, token, []string{"benchimporta", "benchimportb"}[i%2])
		if err != nil {
			return nil, err
		}
		times = append(times, elapsed)
	}
}
