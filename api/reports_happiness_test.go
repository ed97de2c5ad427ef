package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rated creates a conversation with a customer message and a reply
// and, unless rating is empty, rates the reply; it returns the
// conversation's id.
func (w *world) rated(email, rating string, overrides map[string]any) int64 {
	w.t.Helper()
	body := map[string]any{"customer": customer(email), "threads": []any{thread("customer", "Help"), thread("reply", "Done!")}}
	for k, v := range overrides {
		body[k] = v
	}
	id := w.create(convJSON(body))
	if rating != "" {
		threads := w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)
		reply := threads[0].(map[string]any) // newest first
		w.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/%v/rating", id, reply["id"]),
			fmt.Sprintf(`{"rating":%q,"comments":"about %s"}`, rating, email), http.StatusNoContent)
	}
	return id
}

func TestHappinessReport(t *testing.T) { onEachBackend(t, testHappinessReport) }

func testHappinessReport(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	// Previous day: Alice rates okay.
	w.rated("alice@example.com", "okay", nil)
	w.clock.advance(24 * time.Hour)
	// Current day: Bob great (tagged vip), Carol not good on a phone
	// conversation, Dave unrated, Alice great again, a minute apart.
	w.rated("bob@example.com", "great", map[string]any{"tags": []string{"vip"}})
	w.clock.advance(time.Minute)
	w.rated("carol@example.com", "not-good", map[string]any{"type": "phone", "threads": []any{thread("phone", "Called"), thread("customer", "Still broken"), thread("reply", "Fixed")}})
	w.clock.advance(time.Minute)
	w.rated("dave@example.com", "", nil)
	w.clock.advance(time.Minute)
	w.rated("alice@example.com", "great", nil)

	day := func(offset int) string { return epoch.Add(time.Duration(offset) * 24 * time.Hour).Format(time.RFC3339) }
	current := reportQuery("start", day(1), "end", day(2))
	rec := w.get("/v2/reports/happiness?" + current + "&previousStart=" + day(0) + "&previousEnd=" + day(1))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
	goldenJSON(t, "report_happiness", rec.Body.Bytes())
	body := decode(t, rec)
	cur := body["current"].(map[string]any)
	assert.Equal(t, []any{float64(3), float64(2), float64(0), float64(1), float64(3)},
		[]any{cur["ratingsCount"], cur["greatCount"], cur["okayCount"], cur["notGoodCount"], cur["totalCustomersWithRatings"]})
	assert.InDelta(t, 200.0/3, cur["great"], 1e-9)
	assert.InDelta(t, 100.0/3, cur["happinessScore"], 1e-9)
	assert.Equal(t, []any{float64(4), 75.0}, []any{cur["totalCustomers"], cur["ratingsPercent"]}, "3 of the 4 customers helped rated")

	// Filters: a type, a tag; an empty period has null percentages.
	rec = w.get("/v2/reports/happiness?" + current + "&types=phone")
	assert.Equal(t, float64(1), field(t, decode(t, rec), "current", "notGoodCount"))
	rec = w.get("/v2/reports/happiness?" + current + "&tags=1")
	assert.Equal(t, float64(1), field(t, decode(t, rec), "current", "ratingsCount"))
	rec = w.get("/v2/reports/happiness?" + reportQuery("start", day(5), "end", day(6)))
	goldenJSON(t, "report_happiness_empty", rec.Body.Bytes())

	// The ratings list: newest rating first by default, ten a page.
	rec = w.get("/v2/reports/happiness/ratings?" + current)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_happiness_ratings", rec.Body.Bytes())
	list := func(q string) (ids []any, page map[string]any) {
		rec := w.get("/v2/reports/happiness/ratings?" + current + q)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		body := decode(t, rec)
		for _, r := range body["results"].([]any) {
			ids = append(ids, r.(map[string]any)["rating"])
		}
		return ids, map[string]any{"page": body["page"], "pages": body["pages"], "count": body["count"]}
	}
	got, _ := list("")
	assert.Equal(t, []any{"great", "not-good", "great"}, got)
	got, _ = list("&rating=great")
	assert.Equal(t, []any{"great", "great"}, got)
	got, _ = list("&rating=ok")
	assert.Empty(t, got)
	got, _ = list("&sortField=rating&sortOrder=ASC")
	assert.Equal(t, []any{"great", "great", "not-good"}, got)
	got, page := list("&sortFieldRatings=modifiedAt&sortOrder=ASC&rows=2&page=2")
	assert.Equal(t, []any{"great"}, got)
	assert.Equal(t, map[string]any{"page": float64(2), "pages": float64(2), "count": float64(3)}, page)

	for _, tc := range []struct{ name, path, code, param string }{
		{"unknown type", "/v2/reports/happiness?" + current + "&types=email,fax", "List Of Enum Values", "types"},
		{"start missing", "/v2/reports/happiness?end=" + day(1), "Missing parameter", "start"},
		{"unknown rating", "/v2/reports/happiness/ratings?" + current + "&rating=meh", "Enum Value", "rating"},
		{"unknown sort", "/v2/reports/happiness/ratings?" + current + "&sortField=customer", "Enum Value", "sortField"},
		{"too many rows", "/v2/reports/happiness/ratings?" + current + "&rows=51", "Invalid number", "rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			badParam(t, w, tc.path, tc.code, tc.param)
		})
	}
	rec = w.do(request{method: "GET", path: "/v2/reports/happiness?" + current, token: globexToken})
	assert.Equal(t, http.StatusForbidden, rec.Code, "Globex's plan has no reports")
}

// badParam asserts that a GET answers 400 naming the parameter and the code.
func badParam(t *testing.T, w *world, path, code, param string) {
	t.Helper()
	rec := w.get(path)
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	item := field(t, decode(t, rec), "_embedded", "errors").([]any)[0].(map[string]any)
	assert.Equal(t, code, item["code"], path)
	assert.Equal(t, param, item["path"], path)
}

// TestReportsFollowAMerge: a merged conversation's replies and ratings
// count once, under the conversation they moved to.
func TestReportsFollowAMerge(t *testing.T) { onEachBackend(t, testReportsFollowAMerge) }

func testReportsFollowAMerge(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	src := w.rated("alice@example.com", "great", nil)
	dst := w.rated("bob@example.com", "okay", nil)
	w.clock.advance(time.Minute)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/merge", src), fmt.Sprintf(`{"targetId":%d}`, dst), http.StatusNoContent)
	q := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(time.Hour).Format(time.RFC3339))
	assert.Equal(t, float64(2), field(t, decode(t, w.get("/v2/reports/happiness?"+q)), "current", "ratingsCount"))
	cur := decode(t, w.get("/v2/reports/productivity?"+q))["current"].(map[string]any)
	assert.Equal(t, []any{float64(2), float64(1)}, []any{cur["repliesSent"], cur["totalConversations"]})
	ratings := decode(t, w.get("/v2/reports/happiness/ratings?"+q))["results"].([]any)
	require.Len(t, ratings, 2)
	for _, r := range ratings {
		assert.Equal(t, float64(dst), r.(map[string]any)["id"])
	}
}
