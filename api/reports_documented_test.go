package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The figures the report pages of Help Scout's docs list that Parley
// computes, each with a story worked out by hand.

func TestHappinessDeltasCountEachRating(t *testing.T) {
	onEachBackend(t, testHappinessDeltasCountEachRating)
}

// testHappinessDeltasCountEachRating: the deltas of the rating counts are
// percentage changes. The day before, Alice and Bob rate great and Carol
// okay; today Dave rates great and Erin not good: great 2 to 1 (-50%),
// okay 1 to 0 (-100%), not good 0 to 1 (100%, a change from nothing).
func testHappinessDeltasCountEachRating(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	w.rated("alice@example.com", "great", nil)
	w.rated("bob@example.com", "great", nil)
	w.rated("carol@example.com", "okay", nil)
	w.clock.advance(24 * time.Hour)
	w.rated("dave@example.com", "great", nil)
	w.rated("erin@example.com", "not-good", nil)

	day := reportQuery("start", epoch.Add(24*time.Hour).Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339),
		"previousStart", epoch.Format(time.RFC3339), "previousEnd", epoch.Add(24*time.Hour).Format(time.RFC3339))
	want := map[string]any{"greatCount": float64(-50), "okayCount": float64(-100), "notGoodCount": float64(100)}
	for _, path := range []string{"/v2/reports/happiness?" + day, fmt.Sprintf("/v2/reports/user/happiness?%s&user=%d", day, ownerID)} {
		rec := w.get(path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.Equal(t, want, pick(decode(t, rec)["deltas"].(map[string]any), "greatCount", "okayCount", "notGoodCount"), path)
	}
}

func TestConversationsTopsChangeOfShare(t *testing.T) {
	onEachBackend(t, testConversationsTopsChangeOfShare)
}

// testConversationsTopsChangeOfShare: a top tag's or customer's
// deltaPercent is its share now minus its share before, in percentage
// points. The day before, Alice writes (tagged vip) and Bob writes: vip
// and Alice have 50% each. Today Alice writes again (vip), Carol and Dave
// write: vip and Alice have 1/3, a change of -50/3 points; Carol goes
// from 0% to 1/3, +100/3.
func testConversationsTopsChangeOfShare(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	w.create(convJSON(map[string]any{"customer": customer("alice@example.com"), "tags": []string{"vip"}}))
	w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.clock.advance(24 * time.Hour)
	w.create(convJSON(map[string]any{"customer": customer("alice@example.com"), "tags": []string{"vip"}}))
	w.create(convJSON(map[string]any{"customer": customer("carol@example.com")}))
	w.create(convJSON(map[string]any{"customer": customer("dave@example.com")}))

	day := reportQuery("start", epoch.Add(24*time.Hour).Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339),
		"previousStart", epoch.Format(time.RFC3339), "previousEnd", epoch.Add(24*time.Hour).Format(time.RFC3339))
	rec := w.get("/v2/reports/conversations?" + day)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	body := decode(t, rec)
	changes := func(breakdown string) map[string]float64 {
		out := map[string]float64{}
		for _, item := range field(t, body, breakdown, "top").([]any) {
			it := item.(map[string]any)
			out[it["name"].(string)] = it["deltaPercent"].(float64)
		}
		return out
	}
	vip := changes("tags")
	require.Len(t, vip, 1)
	assert.InDelta(t, -50.0/3, vip["vip"], 1e-9)
	customers := changes("customers")
	require.Len(t, customers, 3)
	assert.InDelta(t, -50.0/3, customers["alice@example.com"], 1e-9)
	assert.InDelta(t, 100.0/3, customers["carol@example.com"], 1e-9)
	assert.InDelta(t, 100.0/3, customers["dave@example.com"], 1e-9)
}

func TestProductivityDistributionsOfHandleAndRepliesToResolve(t *testing.T) {
	onEachBackend(t, testProductivityDistributionsOfHandleAndRepliesToResolve)
}

// testProductivityDistributionsOfHandleAndRepliesToResolve: the
// productivity report's handle time distribution counts the replies that
// have a handle time; each replies-to-resolve range carries the average
// resolution time of its conversations. 12:00 Alice writes and a draft
// answer is saved; 12:05 it is scheduled, 12:10 sent, and Alice's
// conversation closed: one reply, handle time 600 s (under 15 min),
// resolved in 600 s. 12:10 Bob writes and is answered at once, 12:40
// answered again and closed: two replies, resolved in 1800 s. 12:40 Carol
// writes and is answered at once, 13:40 again and closed: two replies,
// resolved in 3600 s. One reply: Alice, 600 s; two: (1800 + 3600) / 2 =
// 2700 s; the other ranges have none.
func testProductivityDistributionsOfHandleAndRepliesToResolve(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	alice := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	path := fmt.Sprintf("/v2/conversations/%d", alice)
	sendDraft(t, w, alice, 10*time.Minute)
	w.send("PATCH", path, `{"op":"replace","path":"/status","value":"closed"}`, http.StatusNoContent)
	for _, email := range []string{"bob@example.com", "carol@example.com"} {
		id := w.create(convJSON(map[string]any{"customer": customer(email)}))
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), `{"text":"Answer"}`, http.StatusCreated)
		if email == "bob@example.com" {
			w.clock.advance(30 * time.Minute)
		} else {
			w.clock.advance(time.Hour)
		}
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), `{"text":"Answer","status":"closed"}`, http.StatusCreated)
	}

	rec := w.get("/v2/reports/productivity?" + reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	body := decode(t, rec)
	handle := body["handleTime"].(map[string]any)
	assert.Equal(t, float64(1), handle["count"])
	first := handle["ranges"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{float64(1), float64(1), float64(100)}, []any{first["id"], first["count"], first["percent"]})

	var times []any
	for _, r := range field(t, body, "repliesToResolve", "ranges").([]any) {
		times = append(times, r.(map[string]any)["resolutionTime"])
	}
	require.Len(t, times, 5)
	assert.InDelta(t, 600, times[0], 0.01)
	assert.InDelta(t, 2700, times[1], 0.01)
	assert.Equal(t, []any{nil, nil, nil}, times[2:])
}

func TestUserDrillDownWaitingSince(t *testing.T) { onEachBackend(t, testUserDrillDownWaitingSince) }

// testUserDrillDownWaitingSince: a drill-down row's waitingSince is the
// conversation's customerWaitingSince time. 12:00 Alice and Bob write;
// 12:20 the owner answers both; 12:50 Alice writes again: Alice has waited
// since 12:50, and Bob's conversation was last acted on by a user at 12:20.
func testUserDrillDownWaitingSince(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	alice := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	bob := w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.clock.advance(20 * time.Minute)
	for _, id := range []int64{alice, bob} {
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), `{"text":"Answer"}`, http.StatusCreated)
	}
	w.clock.advance(30 * time.Minute)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/customer", alice), `{"customer":{"email":"alice@example.com"},"text":"more"}`, http.StatusCreated)

	rec := w.get(fmt.Sprintf("/v2/reports/user/drilldown?%s&user=%d",
		reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339)), ownerID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rows := drillRows(t, decode(t, rec))
	require.Len(t, rows, 2)
	assert.Equal(t, "2026-11-21T12:50:00Z", rows[alice]["waitingSince"])
	assert.Equal(t, "2026-11-21T12:20:00Z", rows[bob]["waitingSince"])
}

func TestConversationHistoryAverageHandleTime(t *testing.T) {
	onEachBackend(t, testConversationHistoryAverageHandleTime)
}

// testConversationHistoryAverageHandleTime: a history row's avgHandleTime
// averages the handle times of the user's replies to it in the period,
// over those that have one. 12:00 Alice writes and a draft answer is
// saved; 12:05 it is scheduled, 12:10 sent (600 s), and Alice is answered
// again at once (no handle time): 600 s. 12:10 Bob is answered at once:
// null.
func testConversationHistoryAverageHandleTime(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	alice := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	path := fmt.Sprintf("/v2/conversations/%d", alice)
	sendDraft(t, w, alice, 10*time.Minute)
	w.send("POST", path+"/reply", `{"text":"And more"}`, http.StatusCreated)
	bob := w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", bob), `{"text":"Answer"}`, http.StatusCreated)

	rec := w.get(fmt.Sprintf("/v2/reports/user/conversation-history?%s&user=%d",
		reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339)), ownerID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	handle := map[float64]any{}
	for _, r := range decode(t, rec)["results"].([]any) {
		row := r.(map[string]any)
		handle[row["id"].(float64)] = row["avgHandleTime"]
	}
	assert.Equal(t, map[float64]any{float64(alice): float64(600), float64(bob): nil}, handle)
}

// sendDraft answers a conversation with a draft saved now and sent after
// handle: its handle time.
func sendDraft(t *testing.T, w *world, conv int64, handle time.Duration) {
	t.Helper()
	path := fmt.Sprintf("/v2/conversations/%d", conv)
	draft := resourceID(t, w.must("POST", path+"/reply", map[string]any{"text": "Answer", "draft": true}, http.StatusCreated))
	w.clock.advance(handle / 2)
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, draft),
		fmt.Sprintf(`{"scheduledFor":%q}`, w.clock.Now().Add(time.Hour).Format(time.RFC3339)), http.StatusNoContent)
	w.clock.advance(handle - handle/2)
	w.send("PATCH", fmt.Sprintf("%s/threads/%d/schedule", path, draft), `{"op":"replace","path":"/state","value":"published"}`, http.StatusNoContent)
}

// rateLatestReply rates the newest thread of a conversation, its reply.
func rateLatestReply(w *world, conv int64, rating string) {
	reply := w.conv(conv)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/%v/rating", conv, reply["id"]), fmt.Sprintf(`{"rating":%q}`, rating), http.StatusNoContent)
}

func TestCompanyUserRowsAsDocumented(t *testing.T) { onEachBackend(t, testCompanyUserRowsAsDocumented) }

// testCompanyUserRowsAsDocumented: a company report's user row carries the
// user's figures of both periods flat. The day before, the owner answers
// Alice with a draft held 600 s, and Alice rates it great. Today the owner
// answers Bob at once (Bob rates it not good) and Carol with a draft held
// 300 s; Adam answers Dave at once. Owner: 2 replies, 2 customers, score
// 0% - 100% = -100, handle time 300 s (the one reply that has one); before
// 1, 1, 100, 600 s. Adam: 1, 1, no rating, no handle time; before nothing.
func testCompanyUserRowsAsDocumented(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	alice := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	sendDraft(t, w, alice, 10*time.Minute)
	rateLatestReply(w, alice, "great")
	w.clock.advance(24 * time.Hour)
	bob := w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", bob), `{"text":"Answer"}`, http.StatusCreated)
	rateLatestReply(w, bob, "not-good")
	sendDraft(t, w, w.create(convJSON(map[string]any{"customer": customer("carol@example.com")})), 5*time.Minute)
	dave := w.create(convJSON(map[string]any{"customer": customer("dave@example.com")}))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", dave), fmt.Sprintf(`{"text":"Answer","user":%d}`, adminID), http.StatusCreated)

	rec := w.get("/v2/reports/company?" + reportQuery("start", epoch.Add(24*time.Hour).Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339),
		"previousStart", epoch.Format(time.RFC3339), "previousEnd", epoch.Add(24*time.Hour).Format(time.RFC3339)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	flat := []string{"user", "replies", "customersHelped", "happinessScore", "handleTime",
		"previousReplies", "previousCustomersHelped", "previousHappinessScore", "previousHandleTime"}
	var rows []map[string]any
	for _, u := range decode(t, rec)["users"].([]any) {
		rows = append(rows, pick(u.(map[string]any), flat...))
	}
	assert.Equal(t, []map[string]any{
		{"user": fmt.Sprint(ownerID), "replies": float64(2), "customersHelped": float64(2), "happinessScore": float64(-100), "handleTime": float64(300),
			"previousReplies": float64(1), "previousCustomersHelped": float64(1), "previousHappinessScore": float64(100), "previousHandleTime": float64(600)},
		{"user": fmt.Sprint(adminID), "replies": float64(1), "customersHelped": float64(1), "happinessScore": nil, "handleTime": nil,
			"previousReplies": float64(0), "previousCustomersHelped": float64(0), "previousHappinessScore": nil, "previousHandleTime": nil},
	}, rows)
}

func TestProductivityCountSeriesUnderTheDocsNames(t *testing.T) {
	onEachBackend(t, testProductivityCountSeriesUnderTheDocsNames)
}

// testProductivityCountSeriesUnderTheDocsNames: the replies sent and
// resolved series answer each step under both names, {start, count} and
// the docs' {date, replies} or {date, resolved}. The first day Alice is
// answered and her conversation closed, and Bob is answered; the second
// day Bob is answered again: replies 2 then 1, resolved 1 then 0.
func testProductivityCountSeriesUnderTheDocsNames(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	alice := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	bob := w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", alice), `{"text":"Answer","status":"closed"}`, http.StatusCreated)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", bob), `{"text":"Answer"}`, http.StatusCreated)
	w.clock.advance(24 * time.Hour)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", bob), `{"text":"More"}`, http.StatusCreated)

	days := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339), "viewBy", "day")
	first, second := epoch.Format(time.RFC3339), epoch.Add(24*time.Hour).Format(time.RFC3339)
	for path, name := range map[string]string{"/v2/reports/productivity/replies-sent": "replies", "/v2/reports/productivity/resolved": "resolved"} {
		rec := w.get(path + "?" + days)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		counts := map[string][]float64{"replies": {2, 1}, "resolved": {1, 0}}[name]
		assert.Equal(t, map[string]any{"current": []any{
			map[string]any{"start": first, "count": counts[0], "date": first, name: counts[0]},
			map[string]any{"start": second, "count": counts[1], "date": second, name: counts[1]},
		}}, decode(t, rec), path)
	}
}

func TestConversationsTopSavedRepliesAndWorkflows(t *testing.T) {
	onEachBackend(t, testConversationsTopSavedRepliesAndWorkflows)
}

// testConversationsTopSavedRepliesAndWorkflows: the conversations report's
// replies and workflows tops count the conversations worked on that have a
// thread written from the saved reply, or that the workflow ran on. The
// day before, Alice and Bob write; Alice is answered with "Thanks" and
// "Follow up" runs on Bob: 1 of 2 each. Today Carol, Dave and Erin write;
// Carol and Dave are answered with "Thanks", Erin with "Sorry", and
// "Follow up" runs on Erin. Thanks: 2 of 3 (before 1 of 2: +50/3
// points); Sorry: 1 of 3 (before none); Follow up: 1 of 3 (before 1 of 2:
// -50/3 points).
func testConversationsTopSavedRepliesAndWorkflows(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	savedReply := func(name string) int64 {
		return resourceID(t, w.must("POST", fmt.Sprintf("/v2/mailboxes/%d/saved-replies", supportID), map[string]any{"name": name, "text": name + "!"}, http.StatusCreated))
	}
	thanks, sorry := savedReply("Thanks"), savedReply("Sorry")
	followUp := resourceID(t, w.must("POST", "/v2/workflows", map[string]any{"mailboxId": supportID, "name": "Follow up", "type": "manual",
		"conditions": []string{}, "actions": []any{map[string]any{"type": "note", "text": "Followed up"}}}, http.StatusCreated))
	answer := func(conv, reply int64) {
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", conv), fmt.Sprintf(`{"text":"Answer","savedReplyId":%d}`, reply), http.StatusCreated)
	}
	run := func(conv int64) {
		w.send("POST", fmt.Sprintf("/v2/workflows/%d/run", followUp), fmt.Sprintf(`{"conversationIds":[%d]}`, conv), http.StatusNoContent)
	}
	write := func(email string) int64 { return w.create(convJSON(map[string]any{"customer": customer(email)})) }
	answer(write("alice@example.com"), thanks)
	run(write("bob@example.com"))
	w.clock.advance(24 * time.Hour)
	answer(write("carol@example.com"), thanks)
	answer(write("dave@example.com"), thanks)
	erin := write("erin@example.com")
	answer(erin, sorry)
	run(erin)

	rec := w.get("/v2/reports/conversations?" + reportQuery("start", epoch.Add(24*time.Hour).Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339),
		"previousStart", epoch.Format(time.RFC3339), "previousEnd", epoch.Add(24*time.Hour).Format(time.RFC3339)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	body := decode(t, rec)
	type item struct {
		name                         string
		count, previousCount         float64
		percent, previous, deltaPerc float64
		mailbox                      any
	}
	items := func(breakdown string) (float64, []item) {
		var out []item
		for _, i := range field(t, body, breakdown, "top").([]any) {
			it := i.(map[string]any)
			out = append(out, item{it["name"].(string), it["count"].(float64), it["previousCount"].(float64),
				it["percent"].(float64), it["previousPercent"].(float64), it["deltaPercent"].(float64), it["mailboxId"]})
		}
		return field(t, body, breakdown, "count").(float64), out
	}
	percent := func(part, whole float64) float64 { return part / whole * 100 } // as the report divides, at run time
	count, replies := items("replies")
	assert.Equal(t, float64(2), count)
	require.Len(t, replies, 2)
	assert.Equal(t, item{"Thanks", 2, 1, percent(2, 3), 50, percent(2, 3) - 50, float64(supportID)}, replies[0])
	assert.Equal(t, item{"Sorry", 1, 0, percent(1, 3), 0, percent(1, 3), float64(supportID)}, replies[1])
	count, workflows := items("workflows")
	assert.Equal(t, float64(1), count)
	assert.Equal(t, []item{{"Follow up", 1, 1, percent(1, 3), 50, percent(1, 3) - 50, nil}}, workflows)
}

func TestConversationsCustomFields(t *testing.T) { onEachBackend(t, testConversationsCustomFields) }

// testConversationsCustomFields: the conversations report summarizes each
// dropdown custom field over the conversations worked on in its mailbox:
// per option, the conversations with it and their share of that total;
// how many have a value, and the unanswered share now, before and its
// change in points. Support's Priority (Low, High): the day before, Alice
// writes with Low, Bob and Bea without: 3, 1 answered, 200/3% unanswered.
// Today Carol writes with Low, Dave with High, Erin and Frank without: 4,
// Low 1 (25%), High 1 (25%), 2 answered, 50% unanswered, a change of
// 50 - 200/3 points. Billing defines no field.
func testConversationsCustomFields(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	priority := w.fields["Priority"]
	low, high := priority.Options[0].ID, priority.Options[1].ID
	write := func(email string, option int64) {
		body := map[string]any{"customer": customer(email)}
		if option != 0 {
			body["fields"] = []any{map[string]any{"id": priority.ID, "value": fmt.Sprint(option)}}
		}
		w.create(convJSON(body))
	}
	write("alice@example.com", low)
	write("bob@example.com", 0)
	write("bea@example.com", 0)
	w.clock.advance(24 * time.Hour)
	write("carol@example.com", low)
	write("dave@example.com", high)
	write("erin@example.com", 0)
	write("frank@example.com", 0)

	rec := w.get("/v2/reports/conversations?" + reportQuery("start", epoch.Add(24*time.Hour).Format(time.RFC3339), "end", epoch.Add(48*time.Hour).Format(time.RFC3339),
		"previousStart", epoch.Format(time.RFC3339), "previousEnd", epoch.Add(24*time.Hour).Format(time.RFC3339)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	percent := func(part, whole float64) float64 { return part / whole * 100 } // as the report divides, at run time
	assert.Equal(t, map[string]any{"count": float64(1), "fields": []any{map[string]any{
		"id": float64(priority.ID), "name": "Priority", "mailboxId": float64(supportID),
		"values": []any{
			map[string]any{"id": float64(low), "name": "Low", "count": float64(1), "percent": float64(25)},
			map[string]any{"id": float64(high), "name": "High", "count": float64(1), "percent": float64(25)},
		},
		"summary": map[string]any{"total": float64(4), "totalAnswered": float64(2), "previousTotal": float64(3), "previousTotalAnswered": float64(1),
			"unansweredPercent": float64(50), "unansweredPreviousPercent": percent(2, 3), "unansweredDelta": 50 - percent(2, 3)},
	}}}, decode(t, rec)["customFields"])
}
