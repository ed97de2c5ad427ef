package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
)

// visitor is a chat's visitor side.
type visitor struct {
	w            *world
	widget, chat string
	token        string
}

func (w *world) startChat(widget, body string) *visitor {
	w.t.Helper()
	rec := w.do(request{method: "POST", path: "/v2/widgets/" + widget + "/chats", body: body})
	require.Equal(w.t, http.StatusCreated, rec.Code, rec.Body.String())
	out := decode(w.t, rec)
	require.Equal(w.t, out["id"], rec.Header().Get("Resource-ID"))
	return &visitor{w: w, widget: widget, chat: out["id"].(string), token: out["visitorToken"].(string)}
}

func (v *visitor) do(method, suffix, body string) *httpResponse {
	rec := v.w.do(request{method: method, path: "/v2/widgets/" + v.widget + "/chats/" + v.chat + suffix, body: body,
		header: map[string]string{"X-Visitor-Token": v.token}})
	return &httpResponse{code: rec.Code, body: rec.Body.String()}
}

type httpResponse struct {
	code int
	body string
}

func (v *visitor) events(after string) []map[string]any {
	r := v.do("GET", "/events?after="+after, "")
	require.Equal(v.w.t, http.StatusOK, r.code, r.body)
	var out struct {
		Events []map[string]any `json:"events"`
	}
	require.NoError(v.w.t, json.Unmarshal([]byte(r.body), &out))
	return out.Events
}

// agent calls a chat endpoint with a token.
func (w *world) agent(token, method, path, body string) (int, map[string]any) {
	w.t.Helper()
	rec := w.do(request{method: method, path: path, token: token, body: body})
	var out map[string]any
	if rec.Body.Len() > 0 {
		require.NoError(w.t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	}
	return rec.Code, out
}

func uuidN(n int) string { return fmt.Sprintf("11111111-1111-4111-8111-%012d", n) }

func actions(chat map[string]any) []string {
	var out []string
	for _, e := range chat["_embedded"].(map[string]any)["events"].([]any) {
		e := e.(map[string]any)
		out = append(out, e["action"].(string))
	}
	return out
}

// TestChatEndToEnd plays a whole chat through HTTP.
func TestChatEndToEnd(t *testing.T) {
	w := newWorld(t)
	w.create(convJSON(map[string]any{"tags": []string{"Shipping"}})) // an account tag the chat tags will match
	step := func() { w.clock.advance(1500 * time.Millisecond) }
	chatPath := func(v *visitor) string { return "/v2/chats/" + v.chat }

	v := w.startChat(supportWidget, `{"name":"Vera Visitor","email":"vera@example.com","message":"Hi, my order is late."}`)
	step()
	assert.Equal(t, http.StatusCreated, v.do("POST", "/timeline", `{"type":"page-viewed","url":"https://shop.example.com/orders/42","title":"Order 42"}`).code)

	rec := w.get(chatPath(v))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "timeout=60", rec.Header().Get("Keep-Alive"))
	chat := decode(t, rec)
	assert.Nil(t, chat["assignee"])
	assert.Equal(t, []string{"message-added"}, actions(chat))
	first := chat["_embedded"].(map[string]any)["events"].([]any)[0].(map[string]any)["id"].(string)

	step()
	code, chat := w.agent(ownerToken, "PUT", chatPath(v)+"/messages/"+uuidN(1), `{"body":"Hello Vera! Let me check."}`)
	require.Equal(t, http.StatusOK, code, chat)
	assert.Equal(t, []string{"message-added", "chat-accepted", "message-added"}, actions(chat))
	assert.Equal(t, float64(ownerID), field(t, chat, "assignee", "id"))

	// The visitor sees the agent's message with first name and last initial;
	// line items stay with the agents.
	seen := v.events(first)
	require.Len(t, seen, 1)
	assert.Equal(t, map[string]any{"type": "user", "name": "Olivia O."}, seen[0]["author"])
	assert.Equal(t, "Hello Vera! Let me check.", seen[0]["body"])
	assert.Equal(t, uuidN(1), seen[0]["id"])

	step()
	assert.Equal(t, http.StatusCreated, v.do("POST", "/messages", `{"body":"Thanks!"}`).code)
	step()
	for _, tags := range []string{`["VIP","shipping"]`, `["vip","Shipping"]`, `["shipping","Late Delivery"]`} {
		code, chat = w.agent(ownerToken, "PUT", chatPath(v)+"/tags", `{"tags":`+tags+`}`)
		require.Equal(t, http.StatusOK, code, chat)
	}
	assert.Equal(t, []any{
		map[string]any{"id": nil, "slug": "shipping", "color": parley.DefaultTagColor("shipping")},
		map[string]any{"id": nil, "slug": "late-delivery", "color": parley.DefaultTagColor("late delivery")},
	}, chat["tags"])
	// One line item per changed tag; the unchanged second request recorded nothing.
	assert.Equal(t, []string{"message-added", "chat-accepted", "message-added", "message-added",
		"tag-added", "tag-added", "tag-removed", "tag-added"}, actions(chat))

	step()
	code, _ = w.agent(ownerToken, "PUT", chatPath(v)+"/messages/"+uuidN(2), `{"body":"It ships today."}`)
	require.Equal(t, http.StatusOK, code)
	step()
	code, chat = w.agent(ownerToken, "PUT", chatPath(v)+"/end", `{"status":"closed"}`)
	require.Equal(t, http.StatusOK, code, chat)
	assert.Equal(t, "2026-11-21T12:00:09.000Z", chat["endedAt"])

	// The visitor gets the closing message for an answered chat.
	last := v.events(uuidN(2))
	require.Len(t, last, 1)
	assert.Equal(t, "chat-ended", last[0]["action"])
	assert.Equal(t, parley.ClosingAnswered, last[0]["body"])

	// The chat stays readable; its whole history is golden.
	rec = w.get(chatPath(v))
	require.Equal(t, http.StatusOK, rec.Code)
	goldenJSON(t, "chat_ended", rec.Body.Bytes())

	// The conversation: type chat, the requested status, the customer, the
	// assignee, the chat's tags as account tags, the transcript as one thread.
	convs := ids(t, w.get("/v2/conversations?status=closed&query=type:chat"), "conversations")
	require.Len(t, convs, 1)
	conv := w.conv(convs[0])
	assert.Equal(t, "chat", conv["type"])
	assert.Equal(t, "closed", conv["status"])
	assert.Equal(t, "vera@example.com", field(t, conv, "primaryCustomer", "email"))
	assert.Equal(t, float64(ownerID), field(t, conv, "assignee", "id"))
	assert.Equal(t, "chat", field(t, conv, "source", "type"))
	var tags []string
	for _, tag := range conv["tags"].([]any) {
		tags = append(tags, tag.(map[string]any)["tag"].(string))
	}
	assert.Equal(t, []string{"shipping", "late delivery"}, tags)
	threads := conv["_embedded"].(map[string]any)["threads"].([]any)
	require.Len(t, threads, 1)
	assert.Equal(t, "chat", threads[0].(map[string]any)["type"])
	assert.Equal(t, strings.Join([]string{
		"[12:00:00] Vera Visitor: Hi, my order is late.",
		"[12:00:03] Olivia Owner: Hello Vera! Let me check.",
		"[12:00:04] Vera Visitor: Thanks!",
		"[12:00:07] Olivia Owner: It ships today.",
	}, "\n"), threads[0].(map[string]any)["body"])
	assert.True(t, w.found(convs[0], `tag:"late delivery" AND body:"ships today"`))

	// Every write to an ended chat answers 404.
	for _, r := range []struct{ method, suffix, body string }{
		{"PUT", "/messages/" + uuidN(3), `{"body":"x"}`}, {"PUT", "/tags", `{"tags":[]}`}, {"PUT", "/end", `{"status":"closed"}`},
	} {
		code, _ := w.agent(ownerToken, r.method, chatPath(v)+r.suffix, r.body)
		assert.Equal(t, http.StatusNotFound, code, r.suffix)
	}
	assert.Equal(t, http.StatusNotFound, v.do("POST", "/messages", `{"body":"hello?"}`).code)
}

func TestChatClosingMessageWhenUnanswered(t *testing.T) {
	w := newWorld(t)
	v := w.startChat(supportWidget, `{"name":"Nora","email":"nora@example.com"}`)
	w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(1), `{"body":"Hi Nora, how can I help?"}`)
	v.do("POST", "/messages", `{"body":"My invoice is wrong."}`)
	// An internal note is not an answer.
	code, _ := w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(2), `{"body":"checking billing","internal":true}`)
	require.Equal(t, http.StatusOK, code)
	code, chat := w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/end", `{"status":"pending"}`)
	require.Equal(t, http.StatusOK, code, chat)
	events := chat["_embedded"].(map[string]any)["events"].([]any)
	assert.Equal(t, parley.ClosingUnanswered, events[len(events)-1].(map[string]any)["body"])
	visible := v.events("")
	for _, e := range visible {
		assert.NotEqual(t, "checking billing", e["body"], "the visitor never sees notes")
	}
}

func TestChatErrors(t *testing.T) {
	w := newWorld(t)
	// A chat-capable user without a last name.
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		u := &parley.User{CompanyID: acmeID, FirstName: "Mono", Email: "mono@acme.test", Role: parley.RoleAdmin, Active: true, CanChat: true}
		if err := tx.PutUser(u); err != nil {
			return err
		}
		return tx.PutToken(&parley.Token{Hash: parley.HashToken("mono-token"), CompanyID: acmeID, UserID: u.ID, ExpiresAt: epoch.Add(24 * time.Hour)})
	})
	require.NoError(t, err)
	v := w.startChat(supportWidget, `{"name":"Vic","email":"vic@example.com","message":"hello"}`)
	billing := w.startChat(billingWidget, `{"name":"Bo","email":"bo@example.com"}`)
	globex := w.startChat(globexWidget, `{"name":"Gil","email":"gil@example.com"}`)
	code, _ := w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(1), `{"body":"hi"}`)
	require.Equal(t, http.StatusOK, code)
	path := "/v2/chats/" + v.chat

	cases := []struct {
		name, token, method, path, body string
		status                          int
		errCode                         string
	}{
		{"held by another agent", ownerToken2, "PUT", path + "/messages/" + uuidN(2), `{"body":"me too"}`, http.StatusBadRequest, "Value not supported"},
		{"reused message id", ownerToken, "PUT", path + "/messages/" + uuidN(1), `{"body":"again"}`, http.StatusUnprocessableEntity, "Conflict"},
		{"missing body", ownerToken, "PUT", path + "/messages/" + uuidN(3), `{}`, http.StatusUnprocessableEntity, "Empty value"},
		{"message id not a UUID", ownerToken, "PUT", path + "/messages/42", `{"body":"x"}`, http.StatusBadRequest, "Invalid identifier"},
		{"end without status", ownerToken, "PUT", path + "/end", `{}`, http.StatusUnprocessableEntity, "Enum Value"},
		{"end with a bad status", ownerToken, "PUT", path + "/end", `{"status":"spam"}`, http.StatusUnprocessableEntity, "Enum Value"},
		{"tags missing", ownerToken, "PUT", path + "/tags", `{}`, http.StatusUnprocessableEntity, "Null value"},
		{"tags not an array", ownerToken, "PUT", path + "/tags", `{"tags":"vip"}`, http.StatusUnprocessableEntity, "Null value"},
		{"empty tag name", ownerToken, "PUT", path + "/tags", `{"tags":["ok",""]}`, http.StatusUnprocessableEntity, "Size"},
		{"tag name too long", ownerToken, "PUT", path + "/tags", `{"tags":["` + strings.Repeat("t", 256) + `"]}`, http.StatusUnprocessableEntity, "Size"},
		{"user who cannot chat", userToken, "GET", path, "", http.StatusForbidden, "Access denied"},
		{"user without a last name", "mono-token", "PUT", path + "/tags", `{"tags":[]}`, http.StatusForbidden, "Access denied"},
		{"no access to the mailbox", userToken, "GET", "/v2/chats/" + billing.chat, "", http.StatusForbidden, "Access denied"},
		{"another company's chat", globexToken, "GET", path, "", http.StatusNotFound, "Not found"},
		{"another company's chat, write", ownerToken, "PUT", "/v2/chats/" + globex.chat + "/end", `{"status":"closed"}`, http.StatusNotFound, "Not found"},
		{"unknown chat", ownerToken, "GET", "/v2/chats/nope", "", http.StatusNotFound, "Not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := w.agent(tc.token, tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, code, body)
			assert.Equal(t, tc.errCode, errorCode(t, body))
		})
	}
	code, chat := w.agent(ownerToken, "GET", path, "")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, []string{"message-added", "chat-accepted", "message-added"}, actions(chat), "refused writes posted nothing")

	// The visitor side.
	assert.Equal(t, http.StatusUnauthorized, (&visitor{w: w, widget: supportWidget, chat: v.chat, token: "wrong"}).do("POST", "/messages", `{"body":"x"}`).code)
	assert.Equal(t, http.StatusNotFound, (&visitor{w: w, widget: globexWidget, chat: v.chat, token: v.token}).do("POST", "/messages", `{"body":"x"}`).code)
	assert.Equal(t, http.StatusUnprocessableEntity, v.do("POST", "/messages", `{"body":"`+strings.Repeat("x", 10001)+`"}`).code)
	assert.Equal(t, http.StatusNotFound, w.do(request{method: "POST", path: "/v2/widgets/nope/chats", body: `{"name":"A","email":"a@example.com"}`}).Code)
	assert.Equal(t, http.StatusBadRequest, w.do(request{method: "POST", path: "/v2/widgets/" + supportWidget + "/chats", body: `{"name":"A","email":"nope"}`}).Code)
}

func TestChatAbuseLimits(t *testing.T) {
	w := newWorld(t)
	w.clock.advance(15 * time.Second) // 45 s left in the minute's window
	var last *httptest.ResponseRecorder
	for i := 0; i < 6; i++ {
		last = w.do(request{method: "POST", path: "/v2/widgets/" + supportWidget + "/chats", body: fmt.Sprintf(`{"name":"A","email":"a%d@example.com"}`, i)})
		if i < 5 {
			require.Equal(t, http.StatusCreated, last.Code, "chat %d", i)
		}
	}
	assert.Equal(t, http.StatusTooManyRequests, last.Code, "5 chats a minute per address")
	assert.Equal(t, "45", last.Header().Get("Retry-After"))
	assert.Equal(t, "Rate limit exceeded", errorCode(t, decode(t, last)))
	w.clock.advance(time.Minute)
	v := w.startChat(supportWidget, `{"name":"A","email":"a@example.com"}`)
	for i := 0; i < 30; i++ {
		require.Equal(t, http.StatusCreated, v.do("POST", "/messages", `{"body":"spam"}`).code)
	}
	r := v.do("POST", "/messages", `{"body":"spam"}`)
	assert.Equal(t, http.StatusTooManyRequests, r.code)
	assert.Contains(t, r.body, `"code":"Rate limit exceeded"`)
	w.clock.advance(time.Minute)
	assert.Equal(t, http.StatusCreated, v.do("POST", "/messages", `{"body":"again"}`).code, "a new minute, a new budget")
}

func TestChatLongPoll(t *testing.T) {
	t.Run("an agent's message wakes the waiting visitor", func(t *testing.T) {
		// A poll that could only end by being woken: its own deadline is
		// far beyond the test's.
		w := newWorld(t, func(c *api.Config) { c.ChatPollWait = time.Hour })
		parked := make(chan string, 1)
		api.OnChatPark(w.server, func(chatID string) {
			select {
			case parked <- chatID:
			default:
			}
		})
		v := w.startChat(supportWidget, `{"name":"Lee","email":"lee@example.com","message":"anyone?"}`)
		first := v.events("")[0]["id"].(string)
		got := make(chan []map[string]any)
		go func() { got <- v.events(first) }()
		require.Equal(t, v.chat, <-parked, "the visitor's poll is waiting")
		code, _ := w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(1), `{"body":"here!"}`)
		require.Equal(t, http.StatusOK, code)
		events := <-got
		require.Len(t, events, 1, "the waiting visitor is woken by the agent's message")
		assert.Equal(t, "here!", events[0]["body"])
	})
	t.Run("nothing new: the poll times out empty", func(t *testing.T) {
		w := newWorld(t) // ChatPollWait 200 ms
		parked := make(chan string, 1)
		api.OnChatPark(w.server, func(chatID string) {
			select {
			case parked <- chatID:
			default:
			}
		})
		v := w.startChat(supportWidget, `{"name":"Lee","email":"lee@example.com","message":"anyone?"}`)
		first := v.events("")[0]["id"].(string)
		assert.Empty(t, v.events(first))
		assert.Equal(t, v.chat, <-parked, "it waited before answering")
	})
}

// TestChatConcurrency: many agents send the first message at once; exactly
// one accepts the chat. Many tag updates at once: the last write wins and
// the history replays to the final tags.
func TestChatConcurrency(t *testing.T) {
	w := newWorld(t)
	v := w.startChat(supportWidget, `{"name":"Cy","email":"cy@example.com","message":"hi"}`)
	path := "/v2/chats/" + v.chat
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			token := ownerToken
			if i%2 == 1 {
				token = ownerToken2
			}
			codes[i], _ = w.agent(token, "PUT", fmt.Sprintf("%s/messages/%s", path, uuidN(100+i)), `{"body":"first!"}`)
		}(i)
	}
	wg.Wait()
	_, chat := w.agent(ownerToken, "GET", path, "")
	accepted := 0
	for _, a := range actions(chat) {
		if a == "chat-accepted" {
			accepted++
		}
	}
	assert.Equal(t, 1, accepted)
	winner := field(t, chat, "assignee", "id").(float64)
	for i, code := range codes {
		mine := (i%2 == 0 && winner == ownerID) || (i%2 == 1 && winner == adminID)
		if mine {
			assert.Equal(t, http.StatusOK, code)
		} else {
			assert.Equal(t, http.StatusBadRequest, code)
		}
	}
	token := ownerToken
	if winner == adminID {
		token = ownerToken2
	}
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code, _ := w.agent(token, "PUT", path+"/tags", fmt.Sprintf(`{"tags":["tag-%d","common"]}`, i%4))
			assert.Equal(t, http.StatusOK, code)
		}(i)
	}
	wg.Wait()
	_, chat = w.agent(token, "GET", path, "")
	replayed := map[string]bool{}
	for _, e := range chat["_embedded"].(map[string]any)["events"].([]any) {
		e := e.(map[string]any)
		switch e["action"] {
		case "tag-added":
			assert.False(t, replayed[e["body"].(string)], "added twice without a removal")
			replayed[e["body"].(string)] = true
		case "tag-removed":
			assert.True(t, replayed[e["body"].(string)], "removed without being there")
			delete(replayed, e["body"].(string))
		}
	}
	final := map[string]bool{}
	for _, tag := range chat["tags"].([]any) {
		final[tag.(map[string]any)["slug"].(string)] = true
	}
	assert.Equal(t, final, replayed, "the history replays to the final tags")
	assert.Len(t, final, 2)
}

// TestChatUnassignedShape: an unaccepted chat is read with "assignee": null,
// as the real service sends it, not without the field.
func TestChatUnassignedShape(t *testing.T) {
	w := newWorld(t)
	v := w.startChat(supportWidget, `{"name":"Ida","email":"ida@example.com","message":"hello"}`)
	rec := w.do(request{method: http.MethodGet, path: "/v2/chats/" + v.chat, token: ownerToken})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "chat_unassigned", rec.Body.Bytes())
}

// record posts a page view of the visitor's chat.
func (v *visitor) record(body string) *httptest.ResponseRecorder {
	v.w.t.Helper()
	return v.w.do(request{method: "POST", path: "/v2/widgets/" + v.widget + "/chats/" + v.chat + "/timeline", body: body,
		header: map[string]string{"X-Visitor-Token": v.token}})
}

// refusal is apiError with the path of the field refused, if any.
func refusal(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	out := apiError(t, rec)
	if path, _ := field(t, decode(t, rec), "_embedded", "errors").([]any)[0].(map[string]any)["path"].(string); path != "" {
		out += " at " + path
	}
	return out
}

// timelineURLs reads the URLs of a chat's timeline as the agents see it.
func (w *world) timelineURLs(chatID string) []string {
	w.t.Helper()
	code, chat := w.agent(ownerToken, "GET", "/v2/chats/"+chatID, "")
	require.Equal(w.t, http.StatusOK, code, chat)
	urls := []string{}
	for _, e := range chat["timeline"].([]any) {
		urls = append(urls, e.(map[string]any)["url"].(string))
	}
	return urls
}

// TestChatTimelineEntries: a page view is an http or https URL with a
// type and title of bounded length; anything else is refused with the
// field that is wrong, and nothing is recorded. A chat's timeline holds at
// most MaxTimelineEntries.
func TestChatTimelineEntries(t *testing.T) {
	w := newWorld(t, func(c *api.Config) { c.ChatPageViewsPerMinute, c.WidgetPageViewsPerMinute = 1<<30, 1<<30 })
	v := w.startChat(supportWidget, `{"name":"Tia","email":"tia@example.com"}`)
	js := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	size := func(field string, max int) string {
		return fmt.Sprintf("400 Size: Bad request (length must be at most %d) at %s", max, field)
	}
	notWeb := "400 Value not supported: Bad request (must be an http or https URL) at url"
	badLength := "400 Size: Bad request (length must be between 1 and 2000) at url"
	cases := []struct {
		name, body, want string
	}{
		{"https", `{"type":"page-viewed","url":"https://shop.example.com/a","title":"A"}`, ""},
		{"http, no type nor title", `{"url":"http://shop.example.com/b"}`, ""},
		{"spaces around the URL", `{"url":"  https://shop.example.com/c  "}`, ""},
		{"scheme in capitals", `{"url":"HTTPS://shop.example.com/d"}`, ""},
		{"longest type and title", `{"url":"https://shop.example.com/e","type":` + js(strings.Repeat("t", parley.MaxTimelineType)) +
			`,"title":` + js(strings.Repeat("é", parley.MaxTimelineTitle)) + `}`, ""},
		{"longest URL", `{"url":"https://shop.example.com/` + strings.Repeat("f", parley.MaxTimelineURL-len("https://shop.example.com/")) + `"}`, ""},
		{"javascript URL", `{"url":"javascript:alert(document.cookie)"}`, notWeb},
		{"javascript URL in capitals", `{"url":"JavaScript://shop.example.com/%0Aalert(1)"}`, notWeb},
		{"data URL", `{"url":"data:text/html,<script>alert(1)</script>"}`, notWeb},
		{"ftp URL", `{"url":"ftp://shop.example.com/g"}`, notWeb},
		{"relative URL", `{"url":"/orders/42"}`, notWeb},
		{"no host", `{"url":"https:///orders/42"}`, notWeb},
		{"missing URL", `{"title":"x"}`, badLength},
		{"URL too long", `{"url":"https://shop.example.com/` + strings.Repeat("f", parley.MaxTimelineURL) + `"}`, badLength},
		{"type too long", `{"url":"https://shop.example.com/h","type":` + js(strings.Repeat("t", parley.MaxTimelineType+1)) + `}`, size("type", parley.MaxTimelineType)},
		{"title too long", `{"url":"https://shop.example.com/i","title":` + js(strings.Repeat("é", parley.MaxTimelineTitle+1)) + `}`, size("title", parley.MaxTimelineTitle)},
	}
	var recorded []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := v.record(tc.body)
			if tc.want == "" {
				require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
				recorded = append(recorded, tc.name)
				return
			}
			assert.Equal(t, tc.want, refusal(t, rec))
		})
	}
	urls := w.timelineURLs(v.chat)
	require.Len(t, urls, len(recorded), "only the valid page views are recorded")
	assert.Equal(t, "https://shop.example.com/c", urls[2], "the URL is stored trimmed")

	// The timeline fills up: the page view past the bound is refused, the
	// timeline kept whole.
	for i := len(urls); i < parley.MaxTimelineEntries; i++ {
		require.Equal(t, http.StatusCreated, v.record(fmt.Sprintf(`{"url":"https://shop.example.com/p/%d"}`, i)).Code, "entry %d", i)
	}
	assert.Equal(t, "422 Size: the chat's timeline is full: it holds at most 200 page views", apiError(t, v.record(`{"url":"https://shop.example.com/more"}`)))
	urls = w.timelineURLs(v.chat)
	assert.Len(t, urls, parley.MaxTimelineEntries)
	assert.Equal(t, fmt.Sprintf("https://shop.example.com/p/%d", parley.MaxTimelineEntries-1), urls[len(urls)-1])
}

// TestChatIntegrationLength: a chat's integration name is bounded.
func TestChatIntegrationLength(t *testing.T) {
	w := newWorld(t)
	start := func(integration string) *httptest.ResponseRecorder {
		return w.do(request{method: "POST", path: "/v2/widgets/" + supportWidget + "/chats",
			body: `{"name":"Ivo","email":"ivo@example.com","integration":"` + integration + `"}`})
	}
	assert.Equal(t, http.StatusCreated, start(strings.Repeat("i", parley.MaxChatIntegrationLength)).Code)
	assert.Equal(t, "400 Size: Bad request (length must be at most 64) at integration", refusal(t, start(strings.Repeat("i", parley.MaxChatIntegrationLength+1))))
}

// TestChatTimelineRateLimits: page views are limited per chat and per
// widget, all its chats together, in the minute's window; only the chat's
// visitor spends them, and a visitor past its chat's budget spends nothing
// of the widget's.
func TestChatTimelineRateLimits(t *testing.T) {
	w := newWorld(t, func(c *api.Config) { c.ChatPageViewsPerMinute, c.WidgetPageViewsPerMinute = 3, 5 })
	w.clock.advance(20 * time.Second) // 40 s left in the minute's window
	page := `{"url":"https://shop.example.com/"}`
	a := w.startChat(supportWidget, `{"name":"Ann","email":"ann@example.com"}`)
	b := w.startChat(supportWidget, `{"name":"Bob","email":"bob@example.com"}`)
	c := w.startChat(supportWidget, `{"name":"Cat","email":"cat@example.com"}`)
	other := w.startChat(billingWidget, `{"name":"Dan","email":"dan@example.com"}`)
	stranger := &visitor{w: w, widget: supportWidget, chat: a.chat, token: "not-the-token"}

	for i := 0; i < 10; i++ {
		require.Equal(t, http.StatusUnauthorized, stranger.record(page).Code, "a stranger spends no budget")
	}
	for i := 0; i < 3; i++ {
		require.Equal(t, http.StatusCreated, a.record(page).Code, "a's page view %d", i)
	}
	refused := a.record(page)
	assert.Equal(t, "429 Rate limit exceeded: Too many requests (too many chat requests; retry in 40 seconds)", apiError(t, refused))
	assert.Equal(t, "40", refused.Header().Get("Retry-After"))
	for i := 0; i < 5; i++ {
		require.Equal(t, http.StatusTooManyRequests, a.record(page).Code, "a, past its own budget, spends none of the widget's")
	}
	require.Equal(t, http.StatusCreated, b.record(page).Code)
	require.Equal(t, http.StatusCreated, b.record(page).Code, "the widget's fifth")
	assert.Equal(t, http.StatusTooManyRequests, c.record(page).Code, "the widget's budget is spent for all its chats")
	assert.Equal(t, http.StatusCreated, other.record(page).Code, "another widget has its own")
	assert.Equal(t, []string{"https://shop.example.com/", "https://shop.example.com/", "https://shop.example.com/"}, w.timelineURLs(a.chat))
	assert.Len(t, w.timelineURLs(c.chat), 0)

	w.clock.advance(time.Minute)
	assert.Equal(t, http.StatusCreated, c.record(page).Code, "a new minute, new budgets")
	assert.Equal(t, http.StatusCreated, a.record(page).Code)
}
