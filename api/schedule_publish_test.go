package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// Publish Thread Schedule and sendAsCreator, as Help Scout documents them
// (developer.helpscout.com/mailbox-api/endpoints/conversations/threads/schedule/).
func TestPublishSchedule(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	draft := func(text string) int64 { // written by Olivia, the owner
		rec := w.call(ownerToken, http.MethodPost, path+"/reply", map[string]any{"text": text, "draft": true})
		return resourceID(t, rec)
	}
	schedule := func(tid int64, asCreator bool) { // scheduled by Adam, an administrator
		rec := w.call(ownerToken2, http.MethodPut, fmt.Sprintf("%s/threads/%d/schedule", path, tid),
			map[string]any{"scheduledFor": parley.FormatTime(w.clock.Now().Add(2 * time.Hour)), "unscheduleOnCustomerReply": false, "sendAsCreator": asCreator})
		require.Equal(t, http.StatusNoContent, rec.Code, rec.Body.String())
	}
	publish := `{"op":"replace","path":"/state","value":"published"}`

	bySchedule, byCreator := draft("Sent as the scheduler."), draft("Sent as its author.")
	schedule(bySchedule, false)
	schedule(byCreator, true)
	w.clock.advance(time.Minute)
	events := w.eventCount()
	w.send(http.MethodPatch, fmt.Sprintf("%s/threads/%d/schedule", path, bySchedule), publish, http.StatusNoContent)
	w.send(http.MethodPatch, fmt.Sprintf("%s/threads/%d/schedule", path, byCreator), "["+publish+"]", http.StatusNoContent)
	assert.Equal(t, []string{fmt.Sprintf("convo.agent.reply.created %d", id), fmt.Sprintf("convo.agent.reply.created %d", id)}, w.eventKinds(events))
	w.clock.advance(3 * time.Hour)
	assert.Equal(t, 0, w.wake(), "the wake-ups went with the schedules")

	rec := w.get(path + "/threads")
	require.Equal(t, http.StatusOK, rec.Code)
	goldenJSON(t, "threads_published_schedules", rec.Body.Bytes())
	c := w.conv(id)
	assert.Equal(t, float64(3), c["threads"])
	assert.Nil(t, c["nextEvent"])

	for _, tc := range []struct {
		name, body string
		thread     int64
		status     int
		want       []string
	}{
		{"no schedule", publish, bySchedule, 404, nil},
		{"another path", `{"op":"replace","path":"/status","value":"published"}`, byCreator, 400, []string{"[0]: Allowed Patch Operations"}},
		{"another value", `{"op":"replace","path":"/state","value":"draft"}`, byCreator, 400, []string{"[0].value: Value not supported"}},
		{"not JSON Patch", `"published"`, byCreator, 400, []string{": Invalid JSON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodPatch, path: fmt.Sprintf("%s/threads/%d/schedule", path, tc.thread), token: ownerToken, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.want != nil {
				assert.Equal(t, tc.want, errorSummary(t, rec))
			}
		})
	}
	t.Run("a schedule shows sendAsCreator", func(t *testing.T) {
		tid := draft("Later.")
		schedule(tid, true)
		for _, th := range field(t, w.conv(id), "_embedded", "threads").([]any) {
			if m := th.(map[string]any); m["id"] == float64(tid) {
				assert.Equal(t, true, field(t, m, "scheduled", "sendAsCreator"))
				return
			}
		}
		t.Fatal("thread not found")
	})
}
