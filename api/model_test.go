package api_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// modelConv is what the rules say a conversation should be.
type modelConv struct {
	id       int64
	status   string
	assignee int64
	tags     map[string]bool
	threads  int // published, notes and line items excluded
	gone     int // 0 alive, 404 deleted, 301 merged
}

// TestRandomCallsMatchTheModel drives random sequences of calls (threads
// of every kind, status and assignee patches, tags, deletes, merges)
// against the server and a small model of Help Scout's rules, comparing every
// conversation after every step.
func TestRandomCallsMatchTheModel(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { runModel(t, seed, 60) })
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	w := newWorld(t)
	r := rand.New(rand.NewPCG(seed, 42))
	var convs []*modelConv
	for i := 0; i < 4; i++ {
		id := w.create(convJSON(map[string]any{"subject": fmt.Sprint("model ", i)}))
		convs = append(convs, &modelConv{id: id, status: "active", tags: map[string]bool{}, threads: 1})
	}
	statuses := []string{"active", "pending", "closed", "spam"}
	for step := 0; step < steps; step++ {
		c := convs[r.IntN(len(convs))]
		wasGone := c.gone
		path := fmt.Sprintf("/v2/conversations/%d", c.id)
		var desc string
		var want int
		var rec int
		send := func(method, p, body string) int {
			return w.do(request{method: method, path: p, token: ownerToken, body: body}).Code
		}
		switch op := r.IntN(9); op {
		case 0: // a reply, maybe setting a status
			st := statuses[r.IntN(3)]
			desc, want = "reply "+st, http.StatusCreated
			rec = send("POST", path+"/reply", fmt.Sprintf(`{"text":"reply","status":%q}`, st))
			if c.gone == 0 {
				c.threads++
				c.status = st
			}
		case 1, 2: // a customer-kind thread reopens a closed conversation
			kind := []string{"customer", "phones", "chats"}[r.IntN(3)]
			desc, want = kind, http.StatusCreated
			rec = send("POST", path+"/"+kind, `{"customer":{"email":"alice@example.com"},"text":"from the customer"}`)
			if c.gone == 0 {
				c.threads++
				if c.status == "closed" {
					c.status = "active"
				}
			}
		case 3:
			desc, want = "note", http.StatusCreated
			rec = send("POST", path+"/notes", `{"text":"note"}`)
		case 4:
			st := statuses[r.IntN(len(statuses))]
			desc, want = "status "+st, http.StatusNoContent
			rec = send("PATCH", path, fmt.Sprintf(`{"op":"replace","path":"/status","value":%q}`, st))
			if c.gone == 0 {
				c.status = st
			}
		case 5:
			desc, want = "assign", http.StatusNoContent
			if r.IntN(3) == 0 {
				rec = send("PATCH", path, `{"op":"remove","path":"/assignTo"}`)
				if c.gone == 0 {
					c.assignee = 0
				}
			} else {
				u := []int64{agentID, adminID}[r.IntN(2)]
				rec = send("PATCH", path, fmt.Sprintf(`{"op":"replace","path":"/assignTo","value":%d}`, u))
				if c.gone == 0 {
					c.assignee = u
				}
			}
		case 6:
			var tags []string
			for _, tag := range []string{"a", "b", "c"} {
				if r.IntN(2) == 0 {
					tags = append(tags, tag)
				}
			}
			desc, want = "tags "+strings.Join(tags, ","), http.StatusNoContent
			rec = send("PUT", path+"/tags", fmt.Sprintf(`{"tags":[%s]}`, quoteAll(tags)))
			if c.gone == 0 {
				c.tags = map[string]bool{}
				for _, tag := range tags {
					c.tags[tag] = true
				}
			}
		case 7:
			if r.IntN(4) != 0 {
				continue // deletes are rarer
			}
			desc, want = "delete", http.StatusNoContent
			rec = send("DELETE", path, "")
			if c.gone == 0 {
				c.gone = http.StatusNotFound
			}
		case 8:
			dst := convs[r.IntN(len(convs))]
			if dst == c || dst.gone != 0 {
				continue
			}
			desc, want = fmt.Sprintf("merge into %d", dst.id), http.StatusNoContent
			rec = send("POST", path+"/merge", fmt.Sprintf(`{"targetId":%d}`, dst.id))
			if c.gone == 0 {
				dst.threads += c.threads
				for tag := range c.tags {
					dst.tags[tag] = true
				}
				c.gone = http.StatusMovedPermanently
			}
		}
		if wasGone != 0 {
			want = wasGone // writes to a gone conversation answer like a read of it
		}
		require.Equal(t, want, rec, "step %d: %s on %d", step, desc, c.id)
		for _, m := range convs {
			checkModel(t, w, m, fmt.Sprintf("after step %d (%s on %d)", step, desc, c.id))
		}
	}
}

func checkModel(t *testing.T, w *world, m *modelConv, when string) {
	rec := w.get(fmt.Sprintf("/v2/conversations/%d", m.id))
	if m.gone != 0 {
		require.Equal(t, m.gone, rec.Code, "conversation %d %s", m.id, when)
		return
	}
	require.Equal(t, http.StatusOK, rec.Code, "conversation %d %s", m.id, when)
	c := decode(t, rec)
	require.Equal(t, m.status, c["status"], "status of %d %s", m.id, when)
	require.Equal(t, float64(m.threads), c["threads"], "threads of %d %s", m.id, when)
	var assignee int64
	if a, ok := c["assignee"].(map[string]any); ok {
		assignee = int64(a["id"].(float64))
	}
	require.Equal(t, m.assignee, assignee, "assignee of %d %s", m.id, when)
	var got, want []string
	for _, tag := range c["tags"].([]any) {
		got = append(got, tag.(map[string]any)["tag"].(string))
	}
	for tag := range m.tags {
		want = append(want, tag)
	}
	sort.Strings(got)
	sort.Strings(want)
	require.Equal(t, want, got, "tags of %d %s", m.id, when)
}

func quoteAll(list []string) string {
	var out []string
	for _, s := range list {
		out = append(out, fmt.Sprintf("%q", s))
	}
	return strings.Join(out, ",")
}
