package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSDKReplay sends the request bodies the real client libraries send,
// byte for byte where they were recorded, and expects the statuses the
// real service answers them with. Ids the libraries take from the
// environment or from earlier answers are filled in with this world's.
func TestSDKReplay(t *testing.T) {
	w := newWorld(t)
	w.newCustomer(map[string]any{"firstName": "Paul", "emails": []any{map[string]any{"value": "paul@example.com"}}})
	conv := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "paul@example.com"}}))
	customerID := int64(field(t, w.conv(conv), "primaryCustomer", "id").(float64))
	emailID := entryIDs(t, w.readCustomer(customerID), "emails")[0]
	threads := field(t, w.conv(conv), "_embedded", "threads").([]any)
	customerThread := int64(threads[0].(map[string]any)["id"].(float64))
	draft := w.create(convJSON(map[string]any{"draft": true, "subject": "A draft", "threads": []any{map[string]any{"type": "reply", "text": "Draft", "customer": map[string]any{"email": "paul@example.com"}}}}))
	doomed := w.create(convJSON(nil))
	c := fmt.Sprintf("/v2/conversations/%d", conv)

	cases := []struct {
		source, method, path, body string
		status                     int
	}{
		// taxjar/help_scout-sdk (Ruby), spec/cassettes/HelpScout_Conversation/_create/
		// returns_the_location_of_the_conversation.yml: the mailbox id comes from the
		// environment as a string, and the real service answered 201.
		{"ruby create conversation", "POST", "/v2/conversations",
			fmt.Sprintf(`{"type":"email","customer":{"email":"paul@example.com"},"subject":"Hello World!","mailboxId":"%d","status":"active","threads":[{"type":"chat","customer":{"email":"paul@example.com"},"text":"A test thread."}]}`, supportID), 201},
		// .../HelpScout_Thread/_create/creates_a_new_thread_on_a_given_conversation.yml: 201.
		{"ruby add note", "POST", c + "/notes", `{"text":"Hello, note!"}`, 201},
		// .../HelpScout_Conversation/_update/updates_the_conversation_s_subject.yml: 204.
		{"ruby patch subject", "PATCH", c, `{"op":"replace","path":"/subject","value":"AutoFile Issue: Texas March 2018"}`, 204},
		// lib/help_scout/conversation.rb update_tags, .../_update_tags/*.yml: 204.
		{"ruby replace tags", "PUT", c + "/tags", `{"tags":["vip","pro"]}`, 204},
		{"ruby clear tags", "PUT", c + "/tags", `{"tags":[]}`, 204},
		// .../HelpScout_Thread/_update/updates_a_given_thread_s_text_on_a_conversation.yml:
		// the text of a customer thread, 204.
		{"ruby patch thread text", "PATCH", fmt.Sprintf("%s/threads/%d", c, customerThread), `{"op":"replace","path":"/text","value":"This is a dummy thread."}`, 204},
		// .../HelpScout_Customer/_update_email/updates_the_customer_email.yml: 204.
		{"ruby update customer email", "PUT", fmt.Sprintf("/v2/customers/%d/emails/%d", customerID, emailID), `{"type":"work","value":"changedpaul@example.com"}`, 204},

		// helpscout/helpscout-api-php: src/Conversations/Threads/Thread.php and
		// NoteThread.php extract() send every field, null when unset, and the user
		// as a number (src/Http/RestClient.php json_encodes extract() as is).
		{"php add note", "POST", c + "/notes",
			fmt.Sprintf(`{"id":null,"status":null,"state":null,"action":null,"text":"From PHP","source":{"type":null,"via":null},"assignedTo":null,"savedReplyId":null,"to":null,"cc":[],"bcc":[],"type":"note","user":%d}`, ownerID), 201},
		// tests/Conversations/ConversationIntegrationTest.php: every PATCH answers 204.
		{"php move", "PATCH", c, fmt.Sprintf(`{"op":"move","path":"/mailboxId","value":%d}`, billingID), 204},
		{"php move back", "PATCH", c, fmt.Sprintf(`{"op":"move","path":"/mailboxId","value":%d}`, supportID), 204},
		{"php subject", "PATCH", c, `{"op":"replace","path":"/subject","value":"Help me"}`, 204},
		{"php customer", "PATCH", c, fmt.Sprintf(`{"op":"replace","path":"/primaryCustomer.id","value":%d}`, customerID), 204},
		{"php status", "PATCH", c, `{"op":"replace","path":"/status","value":"closed"}`, 204},
		{"php assign", "PATCH", c, fmt.Sprintf(`{"op":"replace","path":"/assignTo","value":%d}`, agentID), 204},
		{"php unassign", "PATCH", c, `{"op":"remove","path":"/assignTo"}`, 204},
		{"php publish draft", "PATCH", fmt.Sprintf("/v2/conversations/%d", draft), `{"op":"replace","path":"/draft","value":true}`, 204},
		// src/Tags/TagsCollection.php extract(): 204.
		{"php tags", "PUT", c + "/tags", `{"tags":["Support"]}`, 204},

		// mcdado/node-helpscout (npm), test/index.js against the real service:
		// create customer, create conversation (by customer id, closed, with
		// createdAt), notes, PUT customer, PATCH subject, delete.
		{"npm create customer", "POST", "/v2/customers", `{"firstName":"Testing","lastName":"Help Scout API","emails":[{"type":"work","value":"testing1700000000000@gmail.com"}]}`, 201},
		{"npm create conversation", "POST", "/v2/conversations",
			fmt.Sprintf(`{"subject":"Subject","customer":{"id":%d},"mailboxId":%d,"type":"email","status":"closed","createdAt":"2026-11-21T11:00:00Z","threads":[{"type":"customer","customer":{"id":%d},"text":"Hello, Help Scout. How are you?"}]}`, customerID, supportID, customerID), 201},
		{"npm add note", "POST", c + "/notes", `{"text":"Buy more pens"}`, 201},
		{"npm put customer", "PUT", fmt.Sprintf("/v2/customers/%d", customerID), `{"firstName":"New Name","lastName":"Testing Help Scout API"}`, 204},
		{"npm patch subject", "PATCH", c, `{"op":"replace","path":"/subject","value":"super cool new subject"}`, 204},
		{"npm delete conversation", "DELETE", fmt.Sprintf("/v2/conversations/%d", doomed), "", 204},
	}
	for _, tc := range cases {
		t.Run(tc.source, func(t *testing.T) {
			rec := w.do(request{method: tc.method, path: tc.path, token: ownerToken, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.status == http.StatusCreated {
				assert.True(t, strings.HasPrefix(rec.Header().Get("Location"), "https://api.parley.test/v2/"), "Location")
				assert.NotEmpty(t, rec.Header().Get("Resource-ID"))
			}
		})
	}
	// What the libraries read back afterwards.
	conversation := w.conv(conv)
	assert.Equal(t, "super cool new subject", conversation["subject"])
	assert.Equal(t, "closed", conversation["status"])
	assert.Nil(t, conversation["assignee"])
	assert.Equal(t, "published", w.conv(draft)["state"])
	assert.Equal(t, "New Name", w.readCustomer(customerID)["firstName"])
}
