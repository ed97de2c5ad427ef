package api_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentClients: 64 clients mix reads and writes for a fixed
// number of operations. No answer is a 5xx, and no acknowledged write is
// lost: each client's own conversation ends with the subject and the
// threads it was told were saved; the conversation all clients add notes
// to holds every acknowledged note (thread adds are appends, never
// last-write-wins; tags are last-write-wins by design and not checked).
func TestConcurrentClients(t *testing.T) {
	w := newWorld(t)
	shared := w.create(convJSON(map[string]any{"subject": "Shared"}))
	const clients, ops = 64, 8
	type outcome struct {
		conv    int64
		subject string
		threads int
		notes   int
		fives   []string
	}
	results := make([]outcome, clients)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 3))
			out := &results[c]
			do := func(method, path, body string) int {
				rec := w.do(request{method: method, path: path, token: ownerToken, body: body})
				if rec.Code >= 500 {
					out.fives = append(out.fives, fmt.Sprintf("%s %s: %d %s", method, path, rec.Code, rec.Body.String()))
				}
				return rec.Code
			}
			rec := w.do(request{method: "POST", path: "/v2/conversations", token: ownerToken,
				body: convJSON(map[string]any{"subject": fmt.Sprintf("client %d", c)})})
			if rec.Code != http.StatusCreated {
				out.fives = append(out.fives, fmt.Sprintf("create: %d", rec.Code))
				return
			}
			fmt.Sscan(rec.Header().Get("Resource-ID"), &out.conv)
			out.subject, out.threads = fmt.Sprintf("client %d", c), 1
			path := fmt.Sprintf("/v2/conversations/%d", out.conv)
			for i := 0; i < ops; i++ {
				switch r.IntN(6) {
				case 0:
					s := fmt.Sprintf("client %d op %d", c, i)
					if do("PATCH", path, fmt.Sprintf(`{"op":"replace","path":"/subject","value":%q}`, s)) == http.StatusNoContent {
						out.subject = s
					}
				case 1:
					if do("POST", path+"/customer", `{"customer":{"email":"alice@example.com"},"text":"more"}`) == http.StatusCreated {
						out.threads++
					}
				case 2:
					if do("POST", fmt.Sprintf("/v2/conversations/%d/notes", shared), fmt.Sprintf(`{"text":"note from %d"}`, c)) == http.StatusCreated {
						out.notes++
					}
				case 3:
					do("GET", "/v2/conversations?status=all&query=subject:client", "")
				case 4:
					do("GET", path+"?embed=threads", "")
				default:
					do("PUT", path+"/tags", fmt.Sprintf(`{"tags":["t%d"]}`, r.IntN(4)))
				}
			}
		}(c)
	}
	wg.Wait()
	notes := 0
	for c, out := range results {
		require.Empty(t, out.fives, "client %d; the errors logged:\n%s", c, loggedErrors(w))
		conv := w.conv(out.conv)
		assert.Equal(t, out.subject, conv["subject"], "client %d's last acknowledged subject", c)
		assert.Equal(t, float64(out.threads), conv["threads"], "client %d's acknowledged threads", c)
		notes += out.notes
	}
	var sharedNotes int
	for _, th := range w.conv(shared)["_embedded"].(map[string]any)["threads"].([]any) {
		if th.(map[string]any)["type"] == "note" {
			sharedNotes++
		}
	}
	assert.Equal(t, notes, sharedNotes, "every acknowledged note is on the shared conversation")
	// The index agrees: every client's conversation is found by its subject.
	for c, out := range results {
		assert.True(t, w.found(out.conv, fmt.Sprintf(`subject:%q`, out.subject)), "client %d", c)
	}
}

// loggedErrors returns the error lines of w's log: a 5xx's cause, stack
// included, is there and not in its body.
func loggedErrors(w *world) string {
	var lines []string
	for l := range strings.SplitSeq(w.logs.String(), "\n") {
		if strings.Contains(l, "level=ERROR") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
