package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/storage"
)

func TestCreateConversationHeaders(t *testing.T) {
	w := newWorld(t)
	rec := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken, body: convJSON(nil)})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Equal(t, "1", rec.Header().Get("Resource-ID"))
	assert.Equal(t, "https://api.parley.test/v2/conversations/1", rec.Header().Get("Location"))
	assert.Equal(t, "https://app.parley.test/conversation/1/1", rec.Header().Get("Web-Location"))
	assert.Empty(t, rec.Body.String())
	// The write is searchable as soon as it is acknowledged.
	assert.Equal(t, []int64{1}, ids(t, w.get("/v2/conversations"), "conversations"))
}

// field reads a dotted path of a JSON object.
func field(t *testing.T, body map[string]any, path ...string) any {
	t.Helper()
	var cur any = body
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func TestCreateConversationRules(t *testing.T) {
	w := newWorld(t)
	existing := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "Known@Example.com", "firstName": "Kim", "lastName": "Known"}}))
	read := func(id int64) map[string]any {
		rec := w.get(fmt.Sprintf("/v2/conversations/%d?embed=threads", id))
		require.Equal(t, http.StatusOK, rec.Code)
		return decode(t, rec)
	}
	known := field(t, read(existing), "primaryCustomer", "id")

	cases := []struct {
		name  string
		body  map[string]any
		check func(t *testing.T, c map[string]any)
	}{
		{"customer.id wins over the other customer fields", map[string]any{"customer": map[string]any{"id": known, "email": "other@example.com", "firstName": "Nobody"}},
			func(t *testing.T, c map[string]any) {
				assert.Equal(t, known, field(t, c, "primaryCustomer", "id"))
				assert.Equal(t, "Kim", field(t, c, "primaryCustomer", "first"))
			}},
		{"an existing e-mail matches, case-insensitively, other fields ignored", map[string]any{"customer": map[string]any{"email": "KNOWN@example.com", "firstName": "Changed"}},
			func(t *testing.T, c map[string]any) {
				assert.Equal(t, known, field(t, c, "primaryCustomer", "id"))
				assert.Equal(t, "Kim", field(t, c, "primaryCustomer", "first"))
			}},
		{"a new e-mail creates the customer from all fields", map[string]any{"customer": map[string]any{"email": "new@example.com", "firstName": "Nina", "lastName": "New"}},
			func(t *testing.T, c map[string]any) {
				assert.NotEqual(t, known, field(t, c, "primaryCustomer", "id"))
				assert.Equal(t, "Nina", field(t, c, "primaryCustomer", "first"))
				assert.Equal(t, "new@example.com", field(t, c, "primaryCustomer", "email"))
			}},
		{"assignTo assigns the user", map[string]any{"assignTo": agentID},
			func(t *testing.T, c map[string]any) { assert.Equal(t, float64(agentID), field(t, c, "assignee", "id")) }},
		{"assignTo absent follows the inbox (Support: nobody)", nil,
			func(t *testing.T, c map[string]any) { assert.Nil(t, c["assignee"]) }},
		{"assignTo absent follows the inbox (Billing: Adam)", map[string]any{"mailboxId": billingID},
			func(t *testing.T, c map[string]any) { assert.Equal(t, float64(adminID), field(t, c, "assignee", "id")) }},
		{"assignTo null stays unassigned even where the inbox assigns", map[string]any{"mailboxId": billingID, "assignTo": json.RawMessage("null")},
			func(t *testing.T, c map[string]any) { assert.Nil(t, c["assignee"]) }},
		{"closed gets closedAt and closedBy now", map[string]any{"status": "closed"},
			func(t *testing.T, c map[string]any) {
				assert.Equal(t, "2026-11-21T12:00:00Z", c["closedAt"])
				assert.Equal(t, float64(ownerID), c["closedBy"])
				assert.Equal(t, "Olivia", field(t, c, "closedByUser", "first"))
			}},
		{"imported keeps thread and closing times", map[string]any{"imported": true, "status": "closed", "closedAt": "2025-01-02T10:00:00Z",
			"createdAt": "2025-01-01T09:00:00Z", "threads": []any{map[string]any{"type": "customer", "text": "Old mail", "createdAt": "2025-01-01T09:00:00Z"}}},
			func(t *testing.T, c map[string]any) {
				assert.Equal(t, "2025-01-01T09:00:00Z", c["createdAt"])
				assert.Equal(t, "2025-01-02T10:00:00Z", c["closedAt"])
				assert.Equal(t, "2025-01-01T09:00:00Z", field(t, c, "_embedded", "threads").([]any)[0].(map[string]any)["createdAt"])
			}},
		{"tags are created on first use, lowercased and deduplicated", map[string]any{"tags": []string{"Brand New", "brand new", "vip"}},
			func(t *testing.T, c map[string]any) {
				tags := c["tags"].([]any)
				require.Len(t, tags, 2)
				assert.Equal(t, "brand new", tags[0].(map[string]any)["tag"])
			}},
		{"custom fields render with name and text", map[string]any{"fields": []any{
			map[string]any{"id": w.fields["Priority"].ID, "value": fmt.Sprint(w.fields["Priority"].Options[0].ID)},
			map[string]any{"id": w.fields["Account value"].ID, "value": "1250.50"},
			map[string]any{"id": w.fields["Renewal date"].ID, "value": "2027-01-31"}}},
			func(t *testing.T, c map[string]any) {
				cf := c["customFields"].([]any)
				require.Len(t, cf, 3)
				assert.Equal(t, map[string]any{"id": float64(w.fields["Priority"].ID), "name": "Priority", "value": fmt.Sprint(w.fields["Priority"].Options[0].ID), "text": "Low"}, cf[0])
				assert.Equal(t, "1250.50", cf[1].(map[string]any)["text"])
			}},
		{"user authors the conversation and its threads", map[string]any{"user": adminID, "threads": []any{thread("note", "Internal note"), thread("reply", "Hi!")}},
			func(t *testing.T, c map[string]any) {
				assert.Equal(t, float64(adminID), field(t, c, "createdBy", "id"))
				assert.Equal(t, "user", field(t, c, "source", "via"))
				assert.Equal(t, float64(1), c["threads"], "notes are not counted")
			}},
		{"a draft reply makes a draft conversation", map[string]any{"threads": []any{map[string]any{"type": "reply", "text": "Draft", "draft": true}}},
			func(t *testing.T, c map[string]any) {
				assert.Equal(t, "draft", c["state"])
				assert.Equal(t, float64(0), c["threads"])
			}},
		{"cc and bcc of threads reach the conversation", map[string]any{"threads": []any{map[string]any{"type": "reply", "text": "Hi", "cc": []string{"Boss@Example.com"}, "bcc": []string{"audit@example.com"}}}},
			func(t *testing.T, c map[string]any) {
				assert.Equal(t, []any{"boss@example.com"}, c["cc"])
				assert.Equal(t, []any{"audit@example.com"}, c["bcc"])
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, read(w.create(convJSON(tc.body))))
		})
	}
}

func TestCreateConversationThreadLimit(t *testing.T) {
	w := newWorld(t)
	threads := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = thread("customer", fmt.Sprintf("Message %d", i))
		}
		return out
	}
	for _, tc := range []struct {
		n      int
		status int
	}{{99, http.StatusCreated}, {100, http.StatusCreated}, {101, http.StatusPreconditionFailed}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			rec := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken, body: convJSON(map[string]any{"threads": threads(tc.n)})})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.status == http.StatusCreated {
				c := decode(t, w.get("/v2/conversations/"+rec.Header().Get("Resource-ID")))
				assert.Equal(t, float64(tc.n), c["threads"])
			}
		})
	}
}

// TestImportedConversationRecordsNoEvents: a historical import generates
// no notification (Help Scout's docs), so no webhook event either, for the
// conversation, the customer or the tag it creates; a live one does.
func TestImportedConversationRecordsNoEvents(t *testing.T) {
	w := newWorld(t)
	events := func() []string {
		var kinds []string
		require.NoError(t, w.bolt().View(func(tx *storage.Tx) error {
			all, err := tx.Events()
			for _, e := range all {
				kinds = append(kinds, e.Kind)
			}
			return err
		}))
		return kinds
	}
	before := len(events())
	w.create(convJSON(map[string]any{"imported": true, "tags": []string{"imported-tag"}, "customer": customer("old@example.com"),
		"threads": []any{map[string]any{"type": "customer", "text": "old mail", "createdAt": "2020-01-01T00:00:00Z"}}}))
	assert.Len(t, events(), before, "an import records nothing")
	w.create(convJSON(map[string]any{"tags": []string{"live-tag"}, "customer": customer("new@example.com")}))
	assert.Equal(t, []string{"customer.created", "tag.created", "convo.created"}, events()[before:])
}

// TestImportedConversationIsAnsweredAtCommit: an import is answered once
// committed, without waiting for the index; a live create waits (bounded)
// until searchable. The syncer the server waits on here never runs, so a
// create that waits runs out its write wait and says so in the log.
func TestImportedConversationIsAnsweredAtCommit(t *testing.T) {
	if suiteBackend() == postgres {
		t.Skip("on PostgreSQL a write writes its search rows before it commits: no write waits for the index")
	}
	w := newWorld(t, func(cfg *api.Config) {
		cfg.Syncer = indexer.NewSyncer(cfg.DB.(indexer.Source), scan.New(), cfg.Log)
		cfg.WriteWait = 20 * time.Millisecond
	})
	const waited = "write committed but not yet searchable"
	w.create(convJSON(map[string]any{"imported": true, "customer": customer("old@example.com"),
		"threads": []any{map[string]any{"type": "customer", "text": "old mail", "createdAt": "2020-01-01T00:00:00Z"}}}))
	assert.NotContains(t, w.logs.String(), waited, "an import does not wait for the index")
	w.create(convJSON(map[string]any{"customer": customer("new@example.com")}))
	assert.Contains(t, w.logs.String(), waited, "a live create waits for the index")
}

// TestCreateConversationAttachments: attachments sent with the threads of a
// new conversation are stored, scanned and shown, never dropped.
func TestCreateConversationAttachments(t *testing.T) {
	w := newWorld(t)
	eicar := []byte(`X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`)
	th := thread("customer", "Receipt attached")
	th["attachments"] = []any{attachmentJSON("receipt.txt", "text/plain", []byte("total: 42")), attachmentJSON("bad.exe", "application/octet-stream", eicar)}
	id := w.create(convJSON(map[string]any{"threads": []any{th}}))
	c := w.conv(id)
	assert.True(t, w.found(id, "attachments:true"), "the conversation is found as one with attachments")
	var got []string
	for _, a := range field(t, c, "_embedded", "threads").([]any)[0].(map[string]any)["_embedded"].(map[string]any)["attachments"].([]any) {
		m := a.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v %v", m["filename"], m["size"], m["state"]))
	}
	assert.Equal(t, []string{"receipt.txt 9 ok", fmt.Sprintf("bad.exe %d virus", len(eicar))}, got)
	rec := w.get(fmt.Sprintf("/v2/conversations/%d/attachments/1/data", id))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	bad := thread("customer", "Broken")
	bad["attachments"] = []any{map[string]any{"fileName": "x.txt", "mimeType": "text", "data": "!!"}}
	rec = w.do(request{method: "POST", path: "/v2/conversations", token: ownerToken, body: convJSON(map[string]any{"threads": []any{bad}})})
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	assert.Equal(t, []string{"threads[0].attachments[0].mimeType: Invalid Mime-Type", "threads[0].attachments[0].data: Invalid Attachment"}, errorSummary(t, rec))
}
