package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReportsHandleTime(t *testing.T) { onEachBackend(t, testReportsHandleTime) }

// testReportsHandleTime: a reply's handle time runs from its draft's
// creation to when a user sent it. 12:00 Alice writes and a draft answer
// is saved; 12:06 it is scheduled, 12:10 sent now: 600 s. 12:10 a draft
// conversation (Bob's, with a draft answer) is created; 12:30 it is
// published: 1199.999 s (a conversation's second thread is stamped a
// millisecond after its first). 12:30 Carol is answered at once: no
// handle time. 12:30 a draft answer to Dave is saved, 12:33 scheduled for
// 13:00, which sends it: 180 s, its user's last action being at 12:33.
func testReportsHandleTime(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	alice := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	path := fmt.Sprintf("/v2/conversations/%d", alice)
	draft := resourceID(t, w.must("POST", path+"/reply", map[string]any{"text": "Answer", "draft": true}, http.StatusCreated))
	w.clock.advance(6 * time.Minute)
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, draft), `{"scheduledFor":"2026-11-21T14:00:00Z"}`, http.StatusNoContent)
	w.clock.advance(4 * time.Minute)
	w.send("PATCH", fmt.Sprintf("%s/threads/%d/schedule", path, draft), `{"op":"replace","path":"/state","value":"published"}`, http.StatusNoContent)
	bob := w.create(convJSON(map[string]any{"customer": customer("bob@example.com"), "threads": []any{
		thread("customer", "Question"), map[string]any{"type": "reply", "text": "Draft answer", "draft": true}}}))
	w.clock.advance(20 * time.Minute)
	w.send("PATCH", fmt.Sprintf("/v2/conversations/%d", bob), `{"op":"replace","path":"/draft","value":false}`, http.StatusNoContent)
	carol := w.create(convJSON(map[string]any{"customer": customer("carol@example.com")}))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", carol), `{"text":"Answer"}`, http.StatusCreated)
	dave := w.create(convJSON(map[string]any{"customer": customer("dave@example.com")}))
	path = fmt.Sprintf("/v2/conversations/%d", dave)
	draft = resourceID(t, w.must("POST", path+"/reply", map[string]any{"text": "Answer", "draft": true}, http.StatusCreated))
	w.clock.advance(3 * time.Minute)
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, draft), `{"scheduledFor":"2026-11-21T13:00:00Z"}`, http.StatusNoContent)
	w.clock.advance(27 * time.Minute)
	require.Equal(t, 1, w.wake(), "the scheduled answer is sent")

	day := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339))
	get := func(path string) map[string]any {
		t.Helper()
		rec := w.get(path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return decode(t, rec)
	}
	const average = (600 + 1199.999 + 180) / 3
	assert.InDelta(t, average, field(t, get("/v2/reports/productivity?"+day), "current", "handleTime"), 1e-9)
	assert.InDelta(t, average, field(t, get(fmt.Sprintf("/v2/reports/user?%s&user=%d", day, ownerID)), "current", "handleTime"), 1e-9)
	assert.Nil(t, field(t, get(fmt.Sprintf("/v2/reports/user?%s&user=%d", day, adminID)), "current", "handleTime"), "Adam sent nothing")
	email := get("/v2/reports/email?" + day)
	assert.InDelta(t, average, field(t, email, "current", "resolutions", "handleTime"), 1e-9)
	handle, ok := email["handleTime"].(map[string]any)
	require.True(t, ok, "the handle time distribution: %v", email["handleTime"])
	assert.Equal(t, float64(3), handle["count"])
	counts := []any{}
	for _, r := range handle["ranges"].([]any) {
		counts = append(counts, r.(map[string]any)["count"])
	}
	assert.Equal(t, []any{2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, counts, "600 s and 180 s: under 15 min; 1199.999 s: 15-30 min")

	// The company drill-down by handle time: a conversation's is the
	// average of its replies'.
	drilled := func(rangeID int) []int64 {
		t.Helper()
		var ids []int64
		for id := range drillRows(t, get(fmt.Sprintf("/v2/reports/company/drilldown?%s&range=handleTime&rangeId=%d", day, rangeID))) {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids
	}
	assert.Equal(t, []int64{alice, dave}, drilled(1))
	assert.Equal(t, []int64{bob}, drilled(2))
	assert.Empty(t, drilled(3))
}

func TestHappinessCountsTheCustomersWhoRated(t *testing.T) {
	onEachBackend(t, testHappinessCountsTheCustomersWhoRated)
}

// testHappinessCountsTheCustomersWhoRated: the period's customers are those
// helped in it and those who rated in it. Erin is answered the day before
// and rates today; Frank is answered today and does not rate: two
// customers, one rated (50%).
func testHappinessCountsTheCustomersWhoRated(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	erin := w.rated("erin@example.com", "", nil)
	w.clock.advance(24 * time.Hour)
	w.rated("frank@example.com", "", nil)
	reply := w.conv(erin)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/%v/rating", erin, reply["id"]), `{"rating":"great"}`, http.StatusNoContent)

	day := reportQuery("start", epoch.Add(24*time.Hour).Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339))
	want := map[string]any{"totalCustomers": float64(2), "totalCustomersWithRatings": float64(1), "ratingsPercent": float64(50)}
	for _, path := range []string{"/v2/reports/happiness?" + day, fmt.Sprintf("/v2/reports/user/happiness?%s&user=%d", day, ownerID)} {
		rec := w.get(path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.Equal(t, want, pick(decode(t, rec)["current"].(map[string]any), "totalCustomers", "totalCustomersWithRatings", "ratingsPercent"), path)
	}
}

// documentedFields are the field names Help Scout's Mailbox API 2.0 docs
// give each report's answer (developer.helpscout.com/mailbox-api/
// endpoints/reports/...), by path in the answer: "" is the top level,
// "current.volume" an object in it, "users[]" the items of an array. A
// report answers at least these names; Parley's own extensions may be
// added beside them. User 1 is the owner; customer 1 is Alice.
var documentedFields = map[string]map[string][]string{
	"/v2/reports/company": {
		"":         {"filterTags", "current", "previous", "deltas", "users"},
		"current":  {"startDate", "endDate", "customersHelped", "closed", "totalReplies", "totalUsers", "totalDays", "repliesPerDayPerUser", "repliesPerDay", "resolvedPerDay"},
		"previous": {"startDate", "endDate", "customersHelped", "closed", "totalReplies", "totalUsers", "totalDays", "repliesPerDayPerUser", "repliesPerDay", "resolvedPerDay"},
		"users[]":  {"id", "name", "current", "previous"},
	},
	"/v2/reports/company/customers-helped": {
		"":           {"current", "previous"},
		"current[]":  {"date", "customers"},
		"previous[]": {"date", "customers"},
	},
	"/v2/reports/company/drilldown?range=replies&rangeId=1": drillPageFields,
	"/v2/reports/conversations": {
		"":         {"filterTags", "busiestDay", "busyTimeStart", "busyTimeEnd", "current", "previous", "deltas"},
		"current":  {"startDate", "endDate", "totalConversations", "conversationsCreated", "newConversations", "customers", "conversationsPerDay"},
		"previous": {"startDate", "endDate", "totalConversations", "conversationsCreated", "newConversations", "customers", "conversationsPerDay"},
		"deltas":   {"newConversations", "totalConversations", "customers", "conversationsCreated"},
	},
	"/v2/reports/conversations/volume-by-channel": {
		"":           {"current", "previous"},
		"current[]":  {"date", "chat", "email", "phone"},
		"previous[]": {"date", "chat", "email", "phone"},
	},
	"/v2/reports/conversations/received-messages": {
		"":           {"current", "previous"},
		"current[]":  {"start", "count"},
		"previous[]": {"start", "count"},
	},
	"/v2/reports/conversations/drilldown":                                   drillPageFields,
	"/v2/reports/conversations/new-drilldown":                               drillPageFields,
	"/v2/reports/conversations/fields-drilldown?field=customerid&fieldid=1": drillPageFields,
	"/v2/reports/happiness": {
		"":         {"current", "previous", "deltas"},
		"current":  happinessFields,
		"previous": happinessFields,
	},
	"/v2/reports/productivity": {
		"":         {"filterTags", "current", "previous", "deltas"},
		"current":  productivityFields,
		"previous": productivityFields,
	},
	"/v2/reports/email": {
		"":                     {"filterTags", "current", "previous", "deltas", "handleTime"},
		"current":              {"startDate", "endDate", "volume", "resolutions", "responses"},
		"current.volume":       {"emailConversations", "emailsCreated", "repliesSent", "messagesReceived"},
		"current.resolutions":  {"resolved", "resolvedOnFirstReply", "percentResolvedOnFirstReply", "resolutionTime", "repliesToResolve", "handleTime", "closed"},
		"current.responses":    {"responseTime", "firstResponseTime"},
		"previous.volume":      {"emailConversations", "emailsCreated", "repliesSent", "messagesReceived"},
		"previous.resolutions": {"resolved", "resolvedOnFirstReply", "percentResolvedOnFirstReply", "resolutionTime", "repliesToResolve", "handleTime", "closed"},
		"previous.responses":   {"responseTime", "firstResponseTime"},
		"handleTime":           {"count", "previousCount", "ranges"},
		"handleTime.ranges[]":  {"id", "count", "percent", "previousCount", "previousPercent"},
	},
	"/v2/reports/user?user=1": {
		"":         {"filterTags", "user", "current", "previous", "deltas"},
		"user":     {"id", "hasPhoto", "createdAt", "name", "totalCustomersHelped", "photoUrl"},
		"current":  {"startDate", "endDate", "totalReplies", "handleTime"},
		"previous": {"startDate", "endDate", "totalReplies", "handleTime"},
		"deltas":   {"handleTime"},
	},
	"/v2/reports/user/replies?user=1": {
		"":          {"current"},
		"current[]": {"date", "replies"},
	},
	"/v2/reports/user/resolutions?user=1": {
		"":          {"current"},
		"current[]": {"date", "resolved"},
	},
	"/v2/reports/user/happiness?user=1": {
		"":         {"filterTags", "current", "previous", "deltas"},
		"current":  happinessFields,
		"previous": happinessFields,
	},
}

var (
	drillPageFields = map[string][]string{
		"":                        {"conversations"},
		"conversations":           {"pages", "page", "count", "results"},
		"conversations.results[]": drillRowFields,
	}
	drillRowFields = []string{"id", "number", "type", "mailboxid", "attachments", "subject", "status", "threadCount", "preview",
		"customerName", "customerEmail", "customerIds", "modifiedAt", "assignedid", "tags", "assignedName"}
	happinessFields = []string{"ratingsPercent", "okay", "great", "happinessScore", "okayCount", "totalCustomersWithRatings",
		"notGoodCount", "ratingsCount", "notGood", "greatCount", "totalCustomers"}
	productivityFields = []string{"startDate", "endDate", "totalConversations", "resolutionTime", "repliesToResolve", "responseTime",
		"firstResponseTime", "resolved", "resolvedOnFirstReply", "closed", "repliesSent", "handleTime", "percentResolvedOnFirstReply"}
)

func TestReportsHaveTheDocumentedFields(t *testing.T) {
	onEachBackend(t, testReportsHaveTheDocumentedFields)
}

// testReportsHaveTheDocumentedFields asks every report of documentedFields,
// over answerDay with a previous period (and a tag for filterTags), and
// checks each documented name is in its answer.
func testReportsHaveTheDocumentedFields(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	w.clock.advance(24 * time.Hour)
	a, _, _ := answerDay(w)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/tags", a), `{"tags":["vip"]}`, http.StatusNoContent)
	day := reportQuery("start", epoch.Add(24*time.Hour).Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339),
		"previousStart", epoch.Format(time.RFC3339), "previousEnd", epoch.Add(24*time.Hour).Format(time.RFC3339))
	paths := make([]string, 0, len(documentedFields))
	for path := range documentedFields {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			rec := w.get(path + sep + day)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			body := decode(t, rec)
			for at, names := range documentedFields[path] {
				objects := objectsAt(body, at)
				require.NotEmpty(t, objects, "%s: nothing at %q", path, at)
				for _, o := range objects {
					for _, name := range names {
						assert.Contains(t, o, name, "%s: %q lacks %s", path, at, name)
					}
				}
			}
		})
	}
}

// objectsAt finds the JSON objects at a path of documentedFields: dotted
// keys, "[]" for every item of an array.
func objectsAt(v any, path string) []map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if path == "" {
		return []map[string]any{m}
	}
	key, rest, _ := strings.Cut(path, ".")
	key, items := strings.CutSuffix(key, "[]")
	if !items {
		return objectsAt(m[key], rest)
	}
	list, _ := m[key].([]any)
	var out []map[string]any
	for _, item := range list {
		out = append(out, objectsAt(item, rest)...)
	}
	return out
}
