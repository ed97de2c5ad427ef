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
