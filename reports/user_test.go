package reports_test

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
	"github.com/parley/parley/storage"
)

// demoSubjects are the user reports' subjects over the demo's first
// company: the first member of its team, and the team.
func demoSubjects(t *testing.T, d *demo) (user, team reports.Subject) {
	require.NoError(t, d.db.View(func(tx *storage.Tx) error {
		teams, err := tx.Teams(1)
		require.NoError(t, err)
		require.Len(t, teams, 1)
		team = reports.TeamSubject(&teams[0])
		u, err := tx.User(1, teams[0].MemberIDs[0])
		require.NoError(t, err)
		user = reports.UserSubject(u)
		return nil
	}))
	require.NotContains(t, team.Members, team.ID, "a team's id is no member's")
	return user, team
}

// userByHand is what the user reports count, recounted from the records
// of the conversations matching a request.
type userByHand struct {
	replies, resolved, firstReply, closed, created int
	conversations, customers                       map[int64]bool
	responses, resolutions, repliesToResolve       []float64
	ratings                                        map[string]int
	weekdays                                       [8]int
	rows                                           map[int64]*reports.UserConversation
	newest                                         []*parley.Conversation
}

func countUser(t *testing.T, d *demo, r reports.Request, s reports.Subject, loc *time.Location) userByHand {
	h := userByHand{conversations: map[int64]bool{}, customers: map[int64]bool{}, ratings: map[string]int{}, rows: map[int64]*reports.UserConversation{}}
	member := func(p parley.Party) bool { return p.Type == parley.PartyUser && slices.Contains(s.Members, p.ID) }
	eachMatching(t, d.db, r, func(c *parley.Conversation, threads []parley.Thread) {
		sort.SliceStable(threads, func(i, j int) bool {
			if !threads[i].CreatedAt.Equal(threads[j].CreatedAt) {
				return threads[i].CreatedAt.Before(threads[j].CreatedAt)
			}
			return threads[i].ID < threads[j].ID
		})
		var waiting, firstCustomer *time.Time
		var first *float64
		replies := 0
		var row *reports.UserConversation
		var rowResponses []float64
		for _, th := range threads {
			if th.State != parley.ThreadPublished {
				continue
			}
			at := th.CreatedAt
			if th.Type.IsCustomerKind() && th.CreatedBy.Type == parley.PartyCustomer {
				if firstCustomer == nil {
					firstCustomer = &at
				}
				if waiting == nil {
					waiting = &at
				}
				continue
			}
			if th.Type != parley.ThreadMessage || th.CreatedBy.Type != parley.PartyUser {
				continue
			}
			replies++
			if firstCustomer != nil && first == nil {
				v := at.Sub(*firstCustomer).Seconds()
				first = &v
			}
			if member(th.CreatedBy) && in(r.Current, at) {
				h.replies++
				h.conversations[c.ID] = true
				if c.CustomerID != 0 {
					h.customers[c.CustomerID] = true
				}
				day, _ := parley.WeekHour(at, loc)
				h.weekdays[day]++
				if row == nil {
					row = &reports.UserConversation{ID: c.ID, Number: c.Number}
				}
				row.RepliesSent++
				if waiting != nil {
					h.responses = append(h.responses, at.Sub(*waiting).Seconds())
					rowResponses = append(rowResponses, at.Sub(*waiting).Seconds())
				}
			}
			if member(th.CreatedBy) && th.Rating != nil && in(r.Current, th.Rating.CreatedAt) {
				h.ratings[th.Rating.Rating]++
			}
			waiting = nil
		}
		closedByMember := c.Status == parley.StatusClosed && c.ClosedAt != nil && in(r.Current, *c.ClosedAt) &&
			c.ClosedBy != 0 && slices.Contains(s.Members, c.ClosedBy)
		var resolution *float64
		if c.Status == parley.StatusClosed && c.ClosedAt != nil && c.ClosedBy != 0 && replies > 0 {
			v := c.ClosedAt.Sub(c.CreatedAt).Seconds()
			resolution = &v
		}
		if closedByMember {
			h.closed++
			if replies > 0 {
				h.resolved++
				h.resolutions = append(h.resolutions, *resolution)
				h.repliesToResolve = append(h.repliesToResolve, float64(replies))
				if replies == 1 {
					h.firstReply++
				}
			}
		}
		if in(r.Current, c.CreatedAt) && member(c.CreatedBy) {
			h.created++
		}
		if row != nil {
			row.FirstResponseTime, row.ResolveTime = first, resolution
			if len(rowResponses) > 0 {
				sum := 0.0
				for _, v := range rowResponses {
					sum += v
				}
				avg := sum / float64(len(rowResponses))
				row.ResponseTime = &avg
			}
			h.rows[c.ID] = row
			h.newest = append(h.newest, c)
		}
	})
	sort.Slice(h.newest, func(i, j int) bool {
		a, b := h.newest[i], h.newest[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return a.ID > b.ID
	})
	return h
}

// agree runs a report on the engine under test and on the brute-force
// engine and asserts they answer the same.
func agree[T any](t *testing.T, d *demo, name string, compute func(reports.Engine) (T, error)) T {
	t.Helper()
	want, err := compute(d.oracle)
	require.NoError(t, err, name)
	got, err := compute(d.engine)
	require.NoError(t, err, name)
	assert.Equal(t, want, got, name)
	return got
}

// demoUserReportsAgreeWithTheRecords: over the demo data with ratings,
// every user report of a user and of its team, from the engine, equals the
// brute-force engine's, and its figures a recount over the records.
func demoUserReportsAgreeWithTheRecords(t *testing.T, d *demo) {
	ctx := context.Background()
	user, team := demoSubjects(t, d)
	var loc *time.Location
	var tags []parley.Tag
	require.NoError(t, d.db.View(func(tx *storage.Tx) error {
		c, err := tx.Company(1)
		require.NoError(t, err)
		loc = c.ReportLocation()
		tags, err = tx.Tags(1)
		return err
	}))
	replies := map[string]int{}
	for i, r := range demoRequests(t, d) {
		if r.Company != 1 {
			continue
		}
		viewBy, err := reports.ViewBy(r, "")
		require.NoError(t, err)
		for _, s := range []reports.Subject{user, team} {
			name := func(report string) string { return report + " " + string(s.Type) }
			got := agree(t, d, name("user"), func(e reports.Engine) (*reports.UserReport, error) { return reports.User(ctx, e, r, s, tags) })
			helped := agree(t, d, name("customers-helped"), func(e reports.Engine) (*reports.CustomersSeries, error) {
				return reports.UserCustomersHelped(ctx, e, r, s, viewBy)
			})
			series := agree(t, d, name("replies"), func(e reports.Engine) (*reports.RepliesSeries, error) {
				return reports.UserReplies(ctx, e, r, s, viewBy)
			})
			resolutions := agree(t, d, name("resolutions"), func(e reports.Engine) (*reports.ResolutionsSeries, error) {
				return reports.UserResolutions(ctx, e, r, s, viewBy)
			})
			happy := agree(t, d, name("happiness"), func(e reports.Engine) (*reports.UserHappinessReport, error) {
				return reports.UserHappiness(ctx, e, r, s, tags)
			})
			agree(t, d, name("chat"), func(e reports.Engine) (*reports.UserChatReport, error) { return reports.UserChat(ctx, e, r, s) })
			ratings := agree(t, d, name("ratings"), func(e reports.Engine) (int, error) {
				res, err := reports.UserRatingsList(ctx, e, r, s, "", "modifiedAt", true, search.Paging{Number: 1, Size: 10})
				return res.Total, err
			})

			h := countUser(t, d, r, s, loc)
			cur := got.Current
			assert.Equal(t, []int{h.replies, len(h.conversations), len(h.customers), h.resolved, h.firstReply, h.closed, h.created},
				[]int{cur.TotalReplies, cur.TotalConversations, cur.CustomersHelped, cur.Resolved, cur.ResolvedOnFirstReply, cur.Closed, cur.ConversationsCreated}, name("user"))
			mean(t, h.responses, cur.ResponseTime)
			mean(t, h.resolutions, cur.ResolutionTime)
			mean(t, h.repliesToResolve, cur.RepliesToResolve)
			if h.replies > 0 {
				require.NotNil(t, cur.BusiestDay)
				assert.Equal(t, slices.Max(h.weekdays[1:]), h.weekdays[*cur.BusiestDay])
			}
			rated := h.ratings["great"] + h.ratings["okay"] + h.ratings["not-good"]
			assert.Equal(t, []int{rated, rated}, []int{happy.Current.RatingsCount, ratings})
			assert.Equal(t, h.ratings["great"], happy.Current.GreatCount)
			if rated > 0 {
				require.NotNil(t, cur.HappinessScore)
				assert.InDelta(t, float64(h.ratings["great"]-h.ratings["not-good"])/float64(rated)*100, *cur.HappinessScore, 1e-9)
			}
			sum := func(points []reports.RepliesPoint) (n int) {
				for _, p := range points {
					n += p.Replies
				}
				return n
			}
			assert.Equal(t, h.replies, sum(series.Current))
			resolvedInSteps := 0
			for _, p := range resolutions.Current {
				resolvedInSteps += p.Resolved
			}
			assert.Equal(t, h.resolved, resolvedInSteps)
			stepCustomers := 0
			for _, p := range helped.Current {
				assert.LessOrEqual(t, p.Customers, len(h.customers))
				stepCustomers += p.Customers
			}
			assert.GreaterOrEqual(t, stepCustomers, len(h.customers), "every customer helped is helped in some step")
			replies[string(s.Type)] += h.replies

			if i > 2 {
				continue // the lists over the first requests
			}
			for _, sortField := range reports.HistorySorts {
				for _, desc := range []bool{false, true} {
					rows := agree(t, d, name("history "+sortField), func(e reports.Engine) ([]reports.UserConversation, error) {
						rows, total, err := reports.ConversationHistory(ctx, e, r, s, "", sortField, desc, 0, 10000)
						assert.Equal(t, len(h.rows), total)
						return rows, err
					})
					require.Len(t, rows, len(h.rows))
					for _, row := range rows {
						wantRow := h.rows[row.ID]
						require.NotNil(t, wantRow)
						assert.Equal(t, []any{wantRow.Number, wantRow.RepliesSent}, []any{row.Number, row.RepliesSent}, "conversation %d", row.ID)
						for _, pair := range [][2]*float64{{wantRow.ResponseTime, row.ResponseTime}, {wantRow.FirstResponseTime, row.FirstResponseTime},
							{wantRow.ResolveTime, row.ResolveTime}} {
							if pair[0] == nil {
								assert.Nil(t, pair[1], "conversation %d", row.ID)
								continue
							}
							require.NotNil(t, pair[1], "conversation %d", row.ID)
							assert.InDelta(t, *pair[0], *pair[1], 1e-6, "conversation %d", row.ID)
						}
					}
				}
			}
			closed := agree(t, d, name("history closed"), func(e reports.Engine) (int, error) {
				_, total, err := reports.ConversationHistory(ctx, e, r, s, "closed", "number", true, 0, 1)
				return total, err
			})
			wantClosed := 0
			require.NoError(t, d.db.View(func(tx *storage.Tx) error {
				for id := range h.rows {
					c, err := tx.Conversation(1, id)
					require.NoError(t, err)
					if c.Status == parley.StatusClosed {
						wantClosed++
					}
				}
				return nil
			}))
			assert.Equal(t, wantClosed, closed)
			ids := agree(t, d, name("drilldown"), func(e reports.Engine) ([]int64, error) {
				ids, total, err := reports.UserDrillDown(ctx, e, r, s, 0, 10000)
				assert.Equal(t, len(h.newest), total)
				return ids, err
			})
			var wantIDs []int64
			for _, c := range h.newest {
				wantIDs = append(wantIDs, c.ID)
			}
			assert.Equal(t, wantIDs, ids)
		}
	}
	assert.Greater(t, replies["user"], 100, "the user's replies are counted")
	assert.Greater(t, replies["team"], replies["user"], "the team counts more than one member")
}

// demoTeamSumsItsMembers: a team's counts of replies, resolutions and
// closings are its members' added up (each has one author).
func demoTeamSumsItsMembers(t *testing.T, d *demo) {
	ctx := context.Background()
	_, team := demoSubjects(t, d)
	r := demoRequests(t, d)[1]
	got, err := reports.User(ctx, d.engine, r, team, nil)
	require.NoError(t, err)
	var sum reports.UserFigures
	require.NoError(t, d.db.View(func(tx *storage.Tx) error {
		for _, id := range team.Members {
			u, err := tx.User(1, id)
			require.NoError(t, err)
			one, err := reports.User(ctx, d.engine, r, reports.UserSubject(u), nil)
			require.NoError(t, err)
			sum.TotalReplies += one.Current.TotalReplies
			sum.Resolved += one.Current.Resolved
			sum.Closed += one.Current.Closed
			sum.ConversationsCreated += one.Current.ConversationsCreated
		}
		return nil
	}))
	cur := got.Current
	assert.Equal(t, []int{sum.TotalReplies, sum.Resolved, sum.Closed, sum.ConversationsCreated},
		[]int{cur.TotalReplies, cur.Resolved, cur.Closed, cur.ConversationsCreated})
	assert.Greater(t, cur.TotalReplies, 0)
}

func demoUserOnTheDemoData(t *testing.T, d *demo) {
	ctx := context.Background()
	user, team := demoSubjects(t, d)
	r := demoRequests(t, d)[0]
	var tags []parley.Tag
	require.NoError(t, d.db.View(func(tx *storage.Tx) (err error) {
		tags, err = tx.Tags(1)
		return err
	}))
	rep, err := reports.User(ctx, d.engine, r, user, tags)
	require.NoError(t, err)
	goldenReport(t, "user_demo", rep)
	teamRep, err := reports.User(ctx, d.engine, r, team, tags)
	require.NoError(t, err)
	goldenReport(t, "user_team_demo", teamRep)
	history, total, err := reports.ConversationHistory(ctx, d.engine, r, user, "", "responseTime", true, 0, 5)
	require.NoError(t, err)
	goldenReport(t, "user_history_demo", map[string]any{"count": total, "rows": history})
}
