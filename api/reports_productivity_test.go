package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestProductivityReports(t *testing.T) { onEachBackend(t, testProductivityReports) }

func testProductivityReports(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	w.clock.advance(24 * time.Hour) // the previous day stays empty
	reply := func(id int64, status string) {
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), fmt.Sprintf(`{"text":"Answer","status":%q}`, status), http.StatusCreated)
	}
	// 12:00 Alice writes; 12:10 Bob writes; 12:20 Alice is answered and
	// closed; 13:10 Bob is answered; 13:20 he writes again; 13:30 he is
	// answered and closed.
	a := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	w.clock.advance(10 * time.Minute)
	b := w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.clock.advance(10 * time.Minute)
	reply(a, "closed")
	w.clock.advance(50 * time.Minute)
	reply(b, "active")
	w.clock.advance(10 * time.Minute)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/customer", b), `{"customer":{"email":"bob@example.com"},"text":"One more thing"}`, http.StatusCreated)
	w.clock.advance(10 * time.Minute)
	reply(b, "closed")

	day := func(offset int) string { return epoch.Add(time.Duration(offset) * 24 * time.Hour).Format(time.RFC3339) }
	q := reportQuery("start", day(1), "end", day(2), "previousStart", day(0), "previousEnd", day(1))
	rec := w.get("/v2/reports/productivity?" + q + "&officeHours=true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_productivity", rec.Body.Bytes())
	assert.Equal(t, map[string]any{"startDate": day(1), "endDate": day(2), "totalConversations": float64(2), "repliesSent": float64(3),
		"responseTime": float64(1800), "firstResponseTime": float64(2400), "resolved": float64(2), "resolutionTime": float64(3000),
		"repliesToResolve": 1.5, "resolvedOnFirstReply": float64(1), "percentResolvedOnFirstReply": float64(50), "closed": float64(2),
		"handleTime": nil}, decode(t, rec)["current"])

	for path, want := range map[string]any{
		"first-response-time": []any{map[string]any{"date": day(1), "time": float64(2400)}},
		"response-time":       []any{map[string]any{"date": day(1), "time": float64(1800)}},
		"resolution-time":     []any{map[string]any{"date": day(1), "time": float64(3000)}},
		"replies-sent":        []any{map[string]any{"start": day(1), "count": float64(3), "date": day(1), "replies": float64(3)}},
		"resolved":            []any{map[string]any{"start": day(1), "count": float64(2), "date": day(1), "resolved": float64(2)}},
	} {
		rec := w.get("/v2/reports/productivity/" + path + "?" + reportQuery("start", day(1), "end", day(2)))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.Equal(t, map[string]any{"current": want}, decode(t, rec), path)
	}
	// The resolution-time distribution's buckets drill down (Parley's
	// company drill-down range resolutionTime): Alice's took 20 minutes,
	// Bob's 80.
	resolvedIn := map[string]any{}
	for _, id := range []string{"2", "3", "4"} {
		rec := w.get("/v2/reports/company/drilldown?" + reportQuery("start", day(1), "end", day(2)) + "&range=resolutionTime&rangeId=" + id)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		resolvedIn[id] = field(t, decode(t, rec), "conversations", "count")
	}
	assert.Equal(t, map[string]any{"2": float64(1), "3": float64(0), "4": float64(1)}, resolvedIn)

	// An empty step averages nothing: null.
	rec = w.get("/v2/reports/productivity/response-time?" + reportQuery("start", day(1), "end", day(3)))
	goldenJSON(t, "report_productivity_response_time", rec.Body.Bytes())
	rec = w.get("/v2/reports/productivity/resolved?" + reportQuery("start", day(1), "end", day(2)) + "&officeHours=maybe")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
}

// answerDay plays the company and user reports' day: Olivia answers Alice
// (rated great) and closes; 20 minutes in, Adam answers Bob and Bob again
// in a second conversation (b2), which Olivia closes three hours later.
func answerDay(w *world) (a, b, b2 int64) {
	a = w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	b = w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	b2 = w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.clock.advance(20 * time.Minute)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", a), `{"text":"Answer","status":"closed"}`, http.StatusCreated)
	for _, id := range []int64{b, b2} {
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), fmt.Sprintf(`{"text":"Answer","user":%d}`, adminID), http.StatusCreated)
	}
	w.clock.advance(3 * time.Hour)
	w.send("PATCH", fmt.Sprintf("/v2/conversations/%d", b2), `{"op":"replace","path":"/status","value":"closed"}`, http.StatusNoContent)
	threads := w.conv(a)["_embedded"].(map[string]any)["threads"].([]any)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/%v/rating", a, threads[0].(map[string]any)["id"]), `{"rating":"great"}`, http.StatusNoContent)
	return a, b, b2
}

func TestCompanyReports(t *testing.T) { onEachBackend(t, testCompanyReports) }

func testCompanyReports(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	a, _, _ := answerDay(w)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/tags", a), `{"tags":["vip"]}`, http.StatusNoContent)

	day := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339))
	rec := w.get("/v2/reports/company?" + day)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_company", rec.Body.Bytes())
	body := decode(t, rec)
	cur := body["current"].(map[string]any)
	assert.Equal(t, []any{float64(2), float64(2), float64(2), float64(3), float64(2), float64(100)},
		[]any{cur["customersHelped"], cur["closed"], cur["resolved"], cur["totalReplies"], cur["totalUsers"], cur["happinessScore"]})
	// A day: 3 replies by 2 users, 2 resolved.
	assert.Equal(t, []any{1.5, float64(2)}, []any{cur["repliesPerDayPerUser"], cur["resolvedPerDay"]})
	assert.Equal(t, []any{map[string]any{"id": float64(1), "name": "vip"}}, body["filterTags"])
	assert.Nil(t, field(t, decode(t, w.get("/v2/reports/company?"+reportQuery("start", epoch.Add(-24*time.Hour).Format(time.RFC3339),
		"end", epoch.Format(time.RFC3339)))), "current", "repliesPerDayPerUser"), "no user replied the day before")

	rec = w.get("/v2/reports/company/customers-helped?" + day)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, map[string]any{"current": []any{map[string]any{"date": epoch.Format(time.RFC3339), "customers": float64(2)}}}, decode(t, rec))

	count := func(q string) any {
		rec := w.get("/v2/reports/company/drilldown?" + day + q)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return field(t, decode(t, rec), "conversations", "count")
	}
	assert.Equal(t, float64(2), count("&range=resolved"))
	assert.Equal(t, float64(2), count("&range=firstReplyResolved"))
	assert.Equal(t, float64(3), count("&range=replies&rangeId=1"), "one reply each")
	assert.Equal(t, float64(3), count("&range=firstResponseTime&rangeId=2"), "20 minutes: 15-30 min")
	assert.Equal(t, float64(0), count("&range=responseTime&rangeId=1"))
	rec = w.get("/v2/reports/company/drilldown?" + day + "&range=resolved&rows=1")
	goldenJSON(t, "report_company_drilldown", rec.Body.Bytes())

	for _, tc := range []struct{ q, code, param string }{
		{"&range=handleTime", "Missing parameter", "rangeId"},
		{"&range=handleTime&rangeId=11", "Invalid number", "rangeId"},
		{"&range=size", "Enum Value", "range"},
		{"&range=replies", "Missing parameter", "rangeId"},
		{"&range=resolutionTime&rangeId=0", "Invalid number", "rangeId"},
		{"&range=responseTime&rangeId=11", "Invalid number", "rangeId"},
		{"", "Missing parameter", "range"},
	} {
		badParam(t, w, "/v2/reports/company/drilldown?"+day+tc.q, tc.code, tc.param)
	}
}

func TestEmailReport(t *testing.T) { onEachBackend(t, testEmailReport) }

func testEmailReport(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	// An e-mail answered after 20 minutes and closed; a phone conversation
	// (not counted) answered too.
	a := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	p := w.create(convJSON(map[string]any{"type": "phone", "customer": customer("carol@example.com"), "threads": []any{thread("customer", "Call me")}}))
	w.clock.advance(20 * time.Minute)
	for _, id := range []int64{a, p} {
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), `{"text":"Answer","status":"closed"}`, http.StatusCreated)
	}
	day := func(offset int) string { return epoch.Add(time.Duration(offset) * 24 * time.Hour).Format(time.RFC3339) }
	rec := w.get("/v2/reports/email?" + reportQuery("start", day(0), "end", day(1), "previousStart", day(-1), "previousEnd", day(0)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_email", rec.Body.Bytes())
	body := decode(t, rec)
	assert.Equal(t, map[string]any{"emailConversations": float64(1), "emailsCreated": float64(1), "newConversations": float64(1), "messagesReceived": float64(1),
		"repliesSent": float64(1), "customersHelped": float64(1)}, field(t, body, "current", "volume"))
	assert.Equal(t, map[string]any{"responseTime": float64(1200), "firstResponseTime": float64(1200)}, field(t, body, "current", "responses"))
	assert.Equal(t, map[string]any{"resolved": float64(1), "resolutionTime": float64(1200), "repliesToResolve": float64(1), "resolvedOnFirstReply": float64(1),
		"percentResolvedOnFirstReply": float64(100), "closed": float64(1), "handleTime": nil}, field(t, body, "current", "resolutions"))
	assert.Equal(t, []any{}, body["filterTags"])
	rec = w.get("/v2/reports/email?" + reportQuery("start", day(0), "end", day(1)) + "&types=phone")
	assert.Equal(t, "types", rec.Header().Get("X-Parley-Ignored-Parameters"), "the e-mail report counts e-mail only")
}

func TestProductivityOfficeHours(t *testing.T) { onEachBackend(t, testProductivityOfficeHours) }

func testProductivityOfficeHours(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		c, err := tx.Company(acmeID)
		if err != nil {
			return err
		}
		c.OfficeHours = parley.Weekdays("UTC", 9*60, 17*60)
		return tx.PutCompany(c)
	})
	require.NoError(t, err)
	// Saturday 12:00 the customer writes; Monday 09:30 the answer.
	id := w.create(convJSON(nil))
	w.clock.advance(45*time.Hour + 30*time.Minute)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), `{"text":"Answer","status":"closed"}`, http.StatusCreated)

	q := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(72*time.Hour).Format(time.RFC3339))
	for office, want := range map[string]float64{"false": 163800, "true": 1800} {
		cur := decode(t, w.get("/v2/reports/productivity?"+q+"&officeHours="+office))["current"].(map[string]any)
		assert.Equal(t, []any{want, want, want}, []any{cur["firstResponseTime"], cur["responseTime"], cur["resolutionTime"]}, "officeHours=%s", office)
	}
	rec := w.get("/v2/reports/company/drilldown?" + q + "&officeHours=true&range=firstResponseTime&rangeId=3")
	assert.Equal(t, float64(1), field(t, decode(t, rec), "conversations", "count"), "30 office minutes: 30-60 min")
}
