package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Query is one reference query: a GET path and the token to send.
type Query struct {
	Name, Path, Token string
}

// QueryResult is what a query measured.
type QueryResult struct {
	Name    string        `json:"name"`
	Hits    int           `json:"hits"`
	P50     time.Duration `json:"p50"`
	P99     time.Duration `json:"p99"`
	ScanP50 time.Duration `json:"scanP50,omitempty"`
	// Peer is the same query on PostgreSQL; nil for the reports (no SQL
	// form) and when the peer did not run.
	Peer *PeerResult `json:"postgres,omitempty"`
	// PeerHTTP is the same SQL behind a minimal HTTP service (peer_http.go),
	// called over loopback HTTP as Parley is; nil when the peer did not run.
	PeerHTTP *PeerResult `json:"postgresHTTP,omitempty"`
	// Backend is the same query on Parley's own PostgreSQL backend; nil
	// when it did not run.
	Backend *BackendResult `json:"parleyOnPostgres,omitempty"`
}

// referenceQueries are issue 10's twelve queries, on company 1, and issue
// 22's lists with facets beside the same lists without.
func referenceQueries(w *world, now time.Time, convID int64) []Query {
	co := w.companies[0]
	token := w.tokens[co]
	box := w.mailboxes[co][0]
	q := func(s string) string { return url.QueryEscape(s) }
	email := recentEmail(w)
	day := func(d int) string { return now.AddDate(0, 0, -d).Format(time.RFC3339) }
	return []Query{
		{"1 ranked body term", "/v2/conversations?status=all&sortField=score&query=" + q("body:refund"), token},
		{"2 two body terms AND status AND mailbox", fmt.Sprintf("/v2/conversations?status=active&mailbox=%d&query=%s", box.ID, q("body:refund AND body:order")), token},
		{"3 list: status, last 7 days", "/v2/conversations?status=active&modifiedSince=" + q(day(7)), token},
		{"3f the same list with every facet (issue 22)", "/v2/conversations?status=active&facets=status,tag,assignee,mailbox,type,createdAt:month&modifiedSince=" + q(day(7)), token},
		{"4 customFieldsByIds and tag", fmt.Sprintf("/v2/conversations?status=all&mailbox=%d&tag=vip&customFieldsByIds=%d:%s", box.ID, w.numberFld[box.ID], "250"), token},
		{"5 prefix subject:refun*", "/v2/conversations?status=all&query=" + q("subject:refun*"), token},
		{"6 body phrase by createdAt", "/v2/conversations?status=all&query=" + q(`body:"tracking number"`), token},
		{"7 status AND NOT tag AND subject OR", "/v2/conversations?status=all&query=" + q("status:active AND NOT tag:spam AND subject:(invoice OR password)"), token},
		{"8 last 30 days for one customer", "/v2/conversations?status=all&query=" + q(fmt.Sprintf("createdAt:[NOW-30DAYS TO NOW] AND email:%s", email)), token},
		{"9 page 200 of a broad list", "/v2/conversations?status=all&page=200", token},
		{"9f a broad list with every facet (issue 22)", "/v2/conversations?status=all&facets=status,tag,assignee,mailbox,type,createdAt:month", token},
		{"9b the same broad list without facets", "/v2/conversations?status=all", token},
		{"10 one conversation with threads", fmt.Sprintf("/v2/conversations/%d?embed=threads", convID), token},
		{"11a chat report, 30 days", "/v2/reports/chat?start=" + q(day(30)) + "&end=" + q(day(0)), token},
		{"11b chat report, whole range", "/v2/reports/chat?start=" + q(day(730)) + "&end=" + q(day(0)), token},
		{"12 customer by e-mail fragment", "/v2/customers?query=" + q("email:customer00012"), token},
	}
}

// recentEmail is query 8's customer: one with a conversation in the last
// 30 days, or any in a data set too small to have one.
func recentEmail(w *world) string {
	if w.recent != "" {
		return w.recent
	}
	return w.customers[w.companies[0]][0]
}

// reportQueries are the reports over conversations (issue 21), each over
// the last 30 days with the 30 days before as the previous period; the
// user reports are those of the first company's first user.
func reportQueries(w *world, now time.Time) []Query {
	company := w.companies[0]
	token := w.tokens[company]
	day := func(d int) string { return url.QueryEscape(now.AddDate(0, 0, -d).Format(time.RFC3339)) }
	period := "start=" + day(30) + "&end=" + day(0)
	both := period + "&previousStart=" + day(60) + "&previousEnd=" + day(30)
	user := fmt.Sprintf("&user=%d", w.users[company][0])
	var out []Query
	for _, path := range []string{
		"happiness?" + both, "happiness/ratings?" + period,
		"conversations?" + both, "conversations/busy-times?" + period, "conversations/new?" + both,
		"conversations/received-messages?" + both, "conversations/volume-by-channel?" + both,
		"conversations/drilldown?" + period, "conversations/new-drilldown?" + period,
		"productivity?" + both, "productivity/first-response-time?" + both, "productivity/replies-sent?" + both,
		"productivity/resolution-time?" + both, "productivity/resolved?" + both, "productivity/response-time?" + both,
		"company?" + both, "company/customers-helped?" + both, "company/drilldown?range=resolved&" + period,
		"email?" + both, "phone?" + both, "chat/drilldown?range=waitTime&rangeId=2&" + period,
		"user?" + both + user, "user/customers-helped?" + both + user, "user/replies?" + both + user,
		"user/resolutions?" + both + user, "user/conversation-history?" + period + user, "user/drilldown?" + period + user,
		"user/happiness?" + both + user, "user/ratings?" + period + user, "user/chat?" + both + user,
	} {
		name := "R " + path[:strings.IndexByte(path, '?')]
		out = append(out, Query{Name: name, Path: "/v2/reports/" + path, Token: token})
	}
	return out
}

// runQueries times each query repeat times (after one warm-up run). With
// a profiles directory, each query's runs are profiled into a file of
// their own there, named after the query (profileName).
func runQueries(base string, queries []Query, repeat int, profiles string) ([]QueryResult, error) {
	client := &http.Client{}
	var out []QueryResult
	for _, q := range queries {
		var times []time.Duration
		hits := 0
		stopProfile := func() {}
		for i := 0; i <= repeat; i++ {
			if i == 1 && profiles != "" {
				stop, err := profileTo(filepath.Join(profiles, profileName(q.Name)))
				if err != nil {
					return nil, err
				}
				stopProfile = stop
			}
			req, _ := http.NewRequest(http.MethodGet, base+q.Path, nil)
			req.Header.Set("Authorization", "Bearer "+q.Token)
			start := time.Now()
			res, err := client.Do(req)
			if err != nil {
				stopProfile()
				return nil, err
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			elapsed := time.Since(start)
			if err != nil {
				stopProfile()
				return nil, err
			}
			if res.StatusCode != http.StatusOK {
				stopProfile()
				return nil, fmt.Errorf("query %q: status %d: %s", q.Name, res.StatusCode, body)
			}
			if i == 0 {
				hits = countHits(body)
				continue
			}
			times = append(times, elapsed)
		}
		stopProfile()
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		out = append(out, QueryResult{Name: q.Name, Hits: hits, P50: percentile(times, 50), P99: percentile(times, 99)})
	}
	return out, nil
}

// profileName is the file of a query's profile: its name in lower case,
// runs of other characters than letters and digits made one dash, ".cpu".
func profileName(query string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(query) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String() + ".cpu"
}

// countHits reads a list's total, a report's chat count, or 1 for a record.
func countHits(body []byte) int {
	var v struct {
		Page *struct {
			TotalElements int `json:"totalElements"`
		} `json:"page"`
		Current *struct {
			Volume struct {
				ChatConversations float64 `json:"chatConversations"`
			} `json:"volume"`
		} `json:"current"`
	}
	if json.Unmarshal(body, &v) != nil {
		return 0
	}
	switch {
	case v.Page != nil:
		return v.Page.TotalElements
	case v.Current != nil:
		return int(v.Current.Volume.ChatConversations)
	}
	return 1
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// firstConversation finds a conversation of the company, for query 10.
func firstConversation(base, token string) (int64, error) {
	req, _ := http.NewRequest(http.MethodGet, base+"/v2/conversations?status=all&sortField=number&sortOrder=asc", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var list struct {
		Embedded struct {
			Conversations []struct {
				ID int64 `json:"id"`
			} `json:"conversations"`
		} `json:"_embedded"`
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil || len(list.Embedded.Conversations) == 0 {
		return 0, fmt.Errorf("no conversation to read: %v", err)
	}
	return list.Embedded.Conversations[0].ID, nil
}
