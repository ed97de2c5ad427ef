package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

func TestSnooze(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	at := func(d time.Duration) string { return parley.FormatTime(w.clock.Now().Add(d)) }

	// Snoozed until a time: woken by the scheduler when due.
	w.send("PUT", path+"/snooze", fmt.Sprintf(`{"snoozedUntil":%q}`, at(time.Hour)), http.StatusNoContent)
	c := w.conv(id)
	assert.Equal(t, map[string]any{"snoozedBy": float64(ownerID), "snoozedUntil": at(time.Hour), "unsnoozeOnCustomerReply": false}, c["snooze"])
	assert.Equal(t, map[string]any{"time": at(time.Hour), "eventType": "snooze", "userId": float64(ownerID), "cancelOnCustomerReply": false}, c["nextEvent"])
	w.clock.advance(59 * time.Minute)
	assert.Equal(t, 0, w.wake())
	assert.NotNil(t, w.conv(id)["snooze"])
	w.clock.advance(time.Minute)
	assert.Equal(t, 1, w.wake())
	c = w.conv(id)
	assert.Nil(t, c["snooze"])
	assert.Nil(t, c["nextEvent"])

	// unsnoozeOnCustomerReply: the customer's reply wakes it.
	w.send("PUT", path+"/snooze", fmt.Sprintf(`{"snoozedUntil":%q,"unsnoozeOnCustomerReply":true}`, at(24*time.Hour)), http.StatusNoContent)
	w.send("POST", path+"/customer", `{"customer":{"email":"alice@example.com"},"text":"Any news?"}`, http.StatusCreated)
	assert.Nil(t, w.conv(id)["snooze"])
	assert.Equal(t, 0, w.wake(), "the wake-up went with the snooze")

	// Without it, the reply leaves the snooze; DELETE ends it.
	w.send("PUT", path+"/snooze", fmt.Sprintf(`{"snoozedUntil":%q}`, at(24*time.Hour)), http.StatusNoContent)
	w.send("POST", path+"/customer", `{"customer":{"email":"alice@example.com"},"text":"Hello?"}`, http.StatusCreated)
	assert.NotNil(t, w.conv(id)["snooze"])
	w.send("DELETE", path+"/snooze", "", http.StatusNoContent)
	assert.Nil(t, w.conv(id)["snooze"])
	w.send("DELETE", path+"/snooze", "", http.StatusNotFound)

	for _, tc := range []struct{ name, body, code string }{
		{"past", fmt.Sprintf(`{"snoozedUntil":%q}`, at(-time.Minute)), "Value not supported"},
		{"malformed", `{"snoozedUntil":"tomorrow"}`, "Malformed date"},
		{"missing", `{}`, "Null value"},
	} {
		body := w.send("PUT", path+"/snooze", tc.body, http.StatusBadRequest)
		assert.Equal(t, tc.code, errorCode(t, body), tc.name)
	}
}

func TestScheduledThreads(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	at := func(d time.Duration) string { return parley.FormatTime(w.clock.Now().Add(d)) }
	draft := func() int64 {
		rec := w.do(request{method: "POST", path: path + "/reply", token: ownerToken, body: `{"text":"We will ship tomorrow.","draft":true}`})
		var tid int64
		fmt.Sscan(rec.Header().Get("Resource-ID"), &tid)
		return tid
	}
	tid := draft()
	assert.Equal(t, float64(1), w.conv(id)["threads"], "a draft is not counted")
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, tid), fmt.Sprintf(`{"scheduledFor":%q}`, at(2*time.Hour)), http.StatusNoContent)
	c := w.conv(id)
	assert.Equal(t, "scheduled", field(t, c, "nextEvent", "eventType"))
	assert.Equal(t, at(2*time.Hour), field(t, c, "nextEvent", "time"))
	w.clock.advance(2 * time.Hour)
	assert.Equal(t, 1, w.wake())
	c = w.conv(id)
	assert.Equal(t, float64(2), c["threads"], "published when due")
	assert.Equal(t, "We will ship tomorrow.", c["preview"])
	assert.Nil(t, c["nextEvent"])
	assert.Equal(t, "user", field(t, c, "customerWaitingSince", "latestReplyFrom"), "the published reply answered the customer")

	// unscheduleOnCustomerReply: a customer reply cancels the schedule; the
	// thread stays a draft.
	tid = draft()
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, tid), fmt.Sprintf(`{"scheduledFor":%q,"unscheduleOnCustomerReply":true}`, at(time.Hour)), http.StatusNoContent)
	w.send("POST", path+"/customer", `{"customer":{"email":"alice@example.com"},"text":"Actually, cancel my order."}`, http.StatusCreated)
	c = w.conv(id)
	assert.Nil(t, c["nextEvent"])
	w.clock.advance(2 * time.Hour)
	assert.Equal(t, 0, w.wake())
	assert.Equal(t, float64(3), w.conv(id)["threads"])

	// DELETE cancels; only draft replies can be scheduled.
	tid = draft()
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, tid), fmt.Sprintf(`{"scheduledFor":%q}`, at(time.Hour)), http.StatusNoContent)
	w.send("DELETE", fmt.Sprintf("%s/threads/%d/schedule", path, tid), "", http.StatusNoContent)
	assert.Nil(t, w.conv(id)["nextEvent"])
	body := w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, 1), fmt.Sprintf(`{"scheduledFor":%q}`, at(time.Hour)), http.StatusBadRequest)
	assert.Equal(t, "Value not supported", errorCode(t, body))
}

func TestLaterLimit(t *testing.T) {
	w := newWorld(t)
	w.company(acmeID, func(c *parley.Company) { c.LaterLimit = 1 })
	a, b := w.create(convJSON(nil)), w.create(convJSON(nil))
	until := fmt.Sprintf(`{"snoozedUntil":%q}`, parley.FormatTime(w.clock.Now().Add(time.Hour)))
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/snooze", a), until, http.StatusNoContent)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/snooze", a), until, http.StatusNoContent) // moving a snooze is not a new one
	body := w.send("PUT", fmt.Sprintf("/v2/conversations/%d/snooze", b), until, http.StatusBadRequest)
	assert.Equal(t, "Later view - limit reached", errorCode(t, body))
	w.send("DELETE", fmt.Sprintf("/v2/conversations/%d/snooze", a), "", http.StatusNoContent)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/snooze", b), until, http.StatusNoContent)
}

func TestMerge(t *testing.T) {
	w := newWorld(t)
	src := w.create(convJSON(map[string]any{"subject": "First message", "tags": []string{"a"}}))
	dst := w.create(convJSON(map[string]any{"subject": "Second message", "tags": []string{"b"}}))
	w.clock.advance(time.Minute)
	rec := w.do(request{method: "POST", path: fmt.Sprintf("/v2/conversations/%d/merge", src), token: ownerToken, body: fmt.Sprintf(`{"targetId":%d}`, dst)})
	assert.Equal(t, http.StatusNoContent, rec.Code, rec.Body.String())
	assert.Equal(t, fmt.Sprintf("https://api.parley.test/v2/conversations/%d", dst), rec.Header().Get("Location"))

	c := w.conv(dst)
	assert.Equal(t, float64(2), c["threads"])
	assert.Equal(t, []string{"lineitem", "customer", "customer"}, threadTypes(c))
	assert.Len(t, c["tags"], 2)
	assert.True(t, w.found(dst, "tag:a AND tag:b"))
	assert.False(t, w.found(src, fmt.Sprintf("id:%d", src)), "the merged conversation is gone from search")

	old := w.get(fmt.Sprintf("/v2/conversations/%d", src))
	assert.Equal(t, http.StatusMovedPermanently, old.Code)
	assert.Equal(t, fmt.Sprintf("https://api.parley.test/v2/conversations/%d", dst), old.Header().Get("Location"))
	w.clock.advance(60*24*time.Hour - time.Second)
	assert.Equal(t, http.StatusMovedPermanently, w.get(fmt.Sprintf("/v2/conversations/%d", src)).Code)
	w.clock.advance(time.Second)
	assert.Equal(t, http.StatusNotFound, w.get(fmt.Sprintf("/v2/conversations/%d", src)).Code, "60 days after the merge")

	for _, tc := range []struct{ body, code string }{
		{`{}`, "Invalid identifier"},
		{fmt.Sprintf(`{"targetId":%d}`, dst), "Value not supported"},
		{`{"targetId":999}`, "Invalid identifier"},
	} {
		body := w.send("POST", fmt.Sprintf("/v2/conversations/%d/merge", dst), tc.body, http.StatusBadRequest)
		assert.Equal(t, tc.code, errorCode(t, body), tc.body)
	}
}

func TestPatchThread(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(map[string]any{"threads": []any{thread("customer", "Hi"), thread("reply", "Hello, how can I help?")}}))
	path := fmt.Sprintf("/v2/conversations/%d/threads/2", id)
	w.send("PATCH", path, `{"op":"replace","path":"/text","value":"Hello! How can we help?"}`, http.StatusNoContent)
	w.send("PATCH", path, `[{"op":"replace","path":"/text","value":"Hello again."}]`, http.StatusNoContent)
	reply := w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)
	assert.Equal(t, "Hello again.", reply["body"])
	assert.Equal(t, "Hello, how can I help?", reply["originalBody"], "the original text is kept")

	w.send("PATCH", path, `{"op":"replace","path":"/hidden","value":true}`, http.StatusNoContent)
	c := w.conv(id)
	assert.Equal(t, float64(1), c["threads"], "a hidden thread is not counted")
	assert.Equal(t, "hidden", c["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)["state"])
	w.send("PATCH", path, `{"op":"replace","path":"/hidden","value":false}`, http.StatusNoContent)
	assert.Equal(t, float64(2), w.conv(id)["threads"])

	body := w.send("PATCH", path, `{"op":"remove","path":"/text"}`, http.StatusBadRequest)
	assert.Equal(t, "Allowed Patch Operations", errorCode(t, body))
	w.send("PATCH", fmt.Sprintf("/v2/conversations/%d/threads/99", id), `{"op":"replace","path":"/hidden","value":true}`, http.StatusNotFound)
}
