package api_test

import (
	"encoding/json"
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
// give each report's answer, in the response example of its page under
// developer.helpscout.com/mailbox-api/endpoints/reports/, by path in the
// answer: "" is the top level, "current.volume" an object in it,
// "users[]" the items of an array ("[]" alone: the items of an answer that
// is an array). A report answers at least these names; Parley's own
// extensions may be added beside them. User 1 is the owner; customer 1 is
// Alice.
var documentedFields = map[string]map[string][]string{
	"/v2/reports/chat": {
		"":                         {"current", "previous", "deltas", "waitTime", "responseTime", "messagesPerChat", "duration"},
		"current":                  chatRangeFields,
		"current.volume":           chatVolumeFields,
		"current.responses":        chatResponsesFields,
		"current.resolutions":      chatResolutionsFields,
		"previous":                 chatRangeFields,
		"previous.volume":          chatVolumeFields,
		"previous.responses":       chatResponsesFields,
		"previous.resolutions":     chatResolutionsFields,
		"deltas":                   {"volume", "responses", "resolutions"},
		"deltas.volume":            chatVolumeFields,
		"deltas.responses":         chatResponsesFields,
		"deltas.resolutions":       chatResolutionsFields,
		"waitTime":                 distributionFields,
		"waitTime.ranges[]":        rangeFields,
		"responseTime":             distributionFields,
		"responseTime.ranges[]":    rangeFields,
		"messagesPerChat":          distributionFields,
		"messagesPerChat.ranges[]": rangeFields,
		"duration":                 distributionFields,
		"duration.ranges[]":        rangeFields,
	},
	"/v2/reports/company": {
		"":         {"filterTags", "current", "previous", "deltas", "users"},
		"current":  companyRangeFields,
		"previous": companyRangeFields,
		"deltas":   {"customersHelped", "totalReplies", "repliesPerDay", "closed", "totalUsers", "repliesPerDayPerUser"},
		"users[]": {"customersHelped", "happinessScore", "previousCustomersHelped", "replies", "name", "previousHappinessScore",
			"previousReplies", "user", "previousHandleTime", "handleTime"},
	},
	"/v2/reports/company/customers-helped": {
		"":           {"current", "previous"},
		"current[]":  {"date", "customers"},
		"previous[]": {"date", "customers"},
	},
	"/v2/reports/company/drilldown?range=replies&rangeId=1": drillPageFields,
	"/v2/reports/conversations": {
		"": {"filterTags", "busiestDay", "busyTimeStart", "busyTimeEnd", "current", "previous", "deltas",
			"tags", "customers", "replies", "workflows", "customFields"},
		"busiestDay":                     {"day", "hour", "count"},
		"current":                        conversationsRangeFields,
		"previous":                       conversationsRangeFields,
		"deltas":                         {"newConversations", "totalConversations", "customers", "conversationsCreated", "conversationsPerDay"},
		"tags":                           {"count", "top"},
		"tags.top[]":                     {"id", "count", "previousCount", "percent", "previousPercent", "deltaPercent"},
		"customers":                      {"count", "top"},
		"customers.top[]":                {"count", "deltaPercent", "id", "name", "percent", "previousCount", "previousPercent"},
		"replies":                        {"count", "top"},
		"replies.top[]":                  {"name", "id", "mailboxId", "count", "previousCount", "percent", "previousPercent", "deltaPercent"},
		"workflows":                      {"count", "top"},
		"workflows.top[]":                {"name", "id", "count", "previousCount", "percent", "previousPercent", "deltaPercent"},
		"customFields":                   {"count", "fields"},
		"customFields.fields[]":          {"id", "name", "mailboxId", "values", "summary"},
		"customFields.fields[].values[]": {"name", "id", "count", "percent"},
		"customFields.fields[].summary": {"total", "totalAnswered", "previousTotal", "previousTotalAnswered", "unansweredDelta",
			"unansweredPreviousPercent", "unansweredPercent"},
	},
	"/v2/reports/conversations/busy-times": {
		"[]": {"day", "hour", "count"},
	},
	"/v2/reports/conversations/new": {
		"":           {"current", "previous"},
		"current[]":  {"start", "count"},
		"previous[]": {"start", "count"},
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
		"deltas":   happinessDeltaFields,
	},
	"/v2/reports/happiness/ratings": ratingsPageFields,
	"/v2/reports/productivity": {
		"":         {"filterTags", "current", "previous", "deltas", "responseTime", "handleTime", "firstResponseTime", "repliesToResolve"},
		"current":  productivityFields,
		"previous": productivityFields,
		"deltas": {"totalConversations", "repliesSent", "firstResponseTime", "resolved", "repliesToResolve", "closed",
			"resolvedOnFirstReply", "responseTime", "handleTime", "resolutionTime"},
		"responseTime":               distributionFields,
		"responseTime.ranges[]":      rangeFields,
		"handleTime":                 distributionFields,
		"handleTime.ranges[]":        rangeFields,
		"firstResponseTime":          distributionFields,
		"firstResponseTime.ranges[]": rangeFields,
		"repliesToResolve":           distributionFields,
		"repliesToResolve.ranges[]":  append(slices.Clone(rangeFields), "resolutionTime"),
	},
	"/v2/reports/productivity/first-response-time": timeSeriesFields("time"),
	"/v2/reports/productivity/replies-sent":        timeSeriesFields("replies"),
	"/v2/reports/productivity/resolution-time":     timeSeriesFields("time"),
	"/v2/reports/productivity/resolved":            timeSeriesFields("resolved"),
	"/v2/reports/productivity/response-time":       timeSeriesFields("time"),
	"/v2/reports/email": {
		"":                     {"filterTags", "current", "previous", "deltas", "handleTime"},
		"current":              {"startDate", "endDate", "volume", "resolutions", "responses"},
		"current.volume":       {"emailConversations", "emailsCreated", "repliesSent", "messagesReceived"},
		"current.resolutions":  {"resolved", "resolvedOnFirstReply", "percentResolvedOnFirstReply", "resolutionTime", "repliesToResolve", "handleTime", "closed"},
		"current.responses":    {"responseTime", "firstResponseTime"},
		"previous":             {"startDate", "endDate", "volume", "resolutions", "responses"},
		"previous.volume":      {"emailConversations", "emailsCreated", "repliesSent", "messagesReceived"},
		"previous.resolutions": {"resolved", "resolvedOnFirstReply", "percentResolvedOnFirstReply", "resolutionTime", "repliesToResolve", "handleTime", "closed"},
		"previous.responses":   {"responseTime", "firstResponseTime"},
		"handleTime":           {"count", "previousCount", "ranges"},
		"handleTime.ranges[]":  {"id", "count", "percent", "previousCount", "previousPercent"},
	},
	"/v2/reports/phone": {
		"":         {"current", "previous", "deltas", "users"},
		"current":  phoneRangeFields,
		"previous": phoneRangeFields,
		"deltas":   {"newConversations", "phoneCallsCreated", "customers"},
		"users[]":  {"id", "name", "current", "previous"},
	},
	"/v2/reports/user?user=1": {
		"":        {"filterTags", "user", "current", "previous", "deltas"},
		"user":    {"id", "hasPhoto", "createdAt", "name", "totalCustomersHelped", "photoUrl"},
		"current": append(slices.Clone(userRangeFields), "busiestDay"),
		// The example's previous range has no busiestDay.
		"previous": userRangeFields,
		// The example's deltas also carry activeConversations, a name the
		// docs define nowhere (no user report figure counts "active"
		// conversations), so Parley cannot compute it.
		"deltas": {"totalConversations", "customersHelped", "happinessScore", "repliesPerDay", "resolvedOnFirstReply", "handleTime",
			"conversationsPerDay", "resolved", "repliesToResolve", "totalReplies", "closed", "responseTime", "resolutionTime",
			"conversationsCreated"},
	},
	"/v2/reports/user/conversation-history?user=1": {
		"":                      {"results", "page", "count", "pages"},
		"results[]":             {"id", "number", "customers", "avgHandleTime", "firstResponseTime", "repliesSent", "responseTime", "resolveTime"},
		"results[].customers[]": {"id", "name"},
	},
	"/v2/reports/user/customers-helped?user=1": timeSeriesFields("customers"),
	"/v2/reports/user/drilldown?user=1": {
		"":              {"conversations"},
		"conversations": {"results", "page", "count", "pages"},
		// The example's rows also carry waitingSinceType, a number whose
		// values the docs do not define; it is left out.
		"conversations.results[]": {"id", "number", "type", "mailboxid", "attachments", "subject", "status", "threadCount", "preview",
			"customerName", "modifiedAt", "assignedid", "waitingSince", "tags"},
	},
	"/v2/reports/user/happiness?user=1": {
		"":         {"filterTags", "current", "previous", "deltas"},
		"current":  happinessFields,
		"previous": happinessFields,
		"deltas":   happinessDeltaFields,
	},
	"/v2/reports/user/ratings?user=1":     ratingsPageFields,
	"/v2/reports/user/replies?user=1":     timeSeriesFields("replies"),
	"/v2/reports/user/resolutions?user=1": timeSeriesFields("resolved"),
}

var (
	drillPageFields = map[string][]string{
		"":                        {"conversations"},
		"conversations":           {"pages", "page", "count", "results"},
		"conversations.results[]": drillRowFields,
	}
	drillRowFields = []string{"id", "number", "type", "mailboxid", "attachments", "subject", "status", "threadCount", "preview",
		"customerName", "customerEmail", "customerIds", "modifiedAt", "assignedid", "tags", "assignedName"}
	ratingsPageFields = map[string][]string{
		"": {"results", "page", "count", "pages"},
		"results[]": {"number", "threadid", "threadCreatedAt", "id", "type", "ratingId", "ratingCustomerId", "ratingComments",
			"ratingCreatedAt", "ratingCustomerName", "ratingUserId", "ratingUserName"},
	}
	happinessFields = []string{"ratingsPercent", "okay", "great", "happinessScore", "okayCount", "totalCustomersWithRatings",
		"notGoodCount", "ratingsCount", "notGood", "greatCount", "totalCustomers"}
	happinessDeltaFields = []string{"okay", "great", "okayCount", "happinessScore", "notGoodCount", "notGood", "greatCount"}
	productivityFields   = []string{"startDate", "endDate", "totalConversations", "resolutionTime", "repliesToResolve", "responseTime",
		"firstResponseTime", "resolved", "resolvedOnFirstReply", "closed", "repliesSent", "handleTime", "percentResolvedOnFirstReply"}
	companyRangeFields = []string{"startDate", "endDate", "customersHelped", "closed", "totalReplies", "totalUsers", "totalDays",
		"repliesPerDayPerUser", "repliesPerDay", "resolvedPerDay"}
	conversationsRangeFields = []string{"startDate", "endDate", "totalConversations", "conversationsCreated", "newConversations",
		"customers", "conversationsPerDay"}
	userRangeFields = []string{"startDate", "endDate", "totalDays", "resolved", "conversationsCreated", "closed", "totalReplies",
		"resolvedOnFirstReply", "percentResolvedOnFirstReply", "repliesToResolve", "handleTime", "happinessScore", "responseTime",
		"resolutionTime", "repliesPerDay", "customersHelped", "totalConversations", "conversationsPerDay"}
	phoneRangeFields      = []string{"startDate", "endDate", "phoneConversations", "phoneCallsCreated", "customers"}
	chatRangeFields       = []string{"startDate", "endDate", "volume", "responses", "resolutions"}
	chatVolumeFields      = []string{"chatConversations", "completedChats", "missedChats", "chatsPerDay"}
	chatResponsesFields   = []string{"waitTime", "responseTime"}
	chatResolutionsFields = []string{"messagesPerChat", "duration"}
	distributionFields    = []string{"count", "previousCount", "ranges"}
	rangeFields           = []string{"id", "count", "percent", "previousCount", "previousPercent"}
)

// timeSeriesFields is the answer of a report by period: a list of
// {date, name} for each range.
func timeSeriesFields(name string) map[string][]string {
	return map[string][]string{
		"":           {"current", "previous"},
		"current[]":  {"date", name},
		"previous[]": {"date", name},
	}
}

func TestReportsHaveTheDocumentedFields(t *testing.T) {
	onEachBackend(t, testReportsHaveTheDocumentedFields)
}

// testReportsHaveTheDocumentedFields asks every report of documentedFields,
// over answerDay with a previous period (and a tag for filterTags, a saved
// reply, a workflow run, a dropdown custom field's value and a phone call
// for the tops, custom fields and the phone report's users), and checks
// each documented name is in its answer.
func testReportsHaveTheDocumentedFields(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	w.clock.advance(24 * time.Hour)
	a, _, _ := answerDay(w)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/tags", a), `{"tags":["vip"]}`, http.StatusNoContent)
	savedReply := resourceID(t, w.must("POST", fmt.Sprintf("/v2/mailboxes/%d/saved-replies", supportID), map[string]any{"name": "Thanks", "text": "Thank you!"}, http.StatusCreated))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", a), fmt.Sprintf(`{"text":"Thank you!","savedReplyId":%d}`, savedReply), http.StatusCreated)
	workflow := resourceID(t, w.must("POST", "/v2/workflows", map[string]any{"mailboxId": supportID, "name": "Follow up", "type": "manual",
		"conditions": []string{}, "actions": []any{map[string]any{"type": "note", "text": "Followed up"}}}, http.StatusCreated))
	w.send("POST", fmt.Sprintf("/v2/workflows/%d/run", workflow), fmt.Sprintf(`{"conversationIds":[%d]}`, a), http.StatusNoContent)
	w.create(convJSON(map[string]any{"type": "phone", "customer": customer("carol@example.com"), "threads": []any{thread("phone", "Called")}}))
	priority := w.fields["Priority"]
	w.create(convJSON(map[string]any{"customer": customer("dave@example.com"),
		"fields": []any{map[string]any{"id": priority.ID, "value": fmt.Sprint(priority.Options[0].ID)}}}))
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
			var body any // busy-times answers an array
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
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
	if list, ok := v.([]any); ok && path == "[]" {
		var out []map[string]any
		for _, item := range list {
			out = append(out, objectsAt(item, "")...)
		}
		return out
	}
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
