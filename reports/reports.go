// Package reports computes the reports from search-engine facets over the
// chat, call, reply and conversation documents: numeric range
// facets for the distributions, value facets for sums, averages, distinct
// customers and per-user rows. It never loads the records it counts and
// knows no HTTP.
package reports

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
)

// Period is a report interval: Start inclusive, End exclusive.
type Period struct {
	Start, End time.Time
}

// days is the number of days the period spans, at least one.
func (p Period) days() float64 {
	return math.Max(1, math.Ceil(p.End.Sub(p.Start).Hours()/24))
}

// Filter restricts a report; lists are ORed within, ANDed together.
type Filter struct {
	// Visible are the mailboxes the caller may see
	// (parley.ConversationFilter.VisibleTo); nil is every mailbox. Every
	// figure, row and list of a report keeps to them, as a conversation
	// list does: Mailboxes naming another mailbox counts nothing of it.
	Visible   *[]int64
	Mailboxes []int64
	Tags      []parley.Tag
	Folders   []int64
	// Types are conversation types (email, chat, phone), for reports over
	// documents that have a type (conversations, replies).
	Types []string
	// OfficeHours counts times in the company's office hours; set it only
	// when the company has them enabled (Help Scout's docs: otherwise false is used).
	OfficeHours bool
	// View is a saved view's selection of conversation documents; the
	// reports of conversations (TotalFilter, NewFilter) AND it in, and no
	// report over other documents sets it.
	View query.Node
}

// bothFigures computes a period's figures for the request's current period
// and, when it has one, its previous period (prev is nil otherwise), both
// at once: each period is its own statements on the engine, so a report
// waits for the slower of the two rather than for their sum.
func bothFigures[T any](ctx context.Context, r Request, figures func(context.Context, Period) (*T, error)) (cur, prev *T, err error) {
	if r.Previous == nil {
		cur, err = figures(ctx, r.Current)
		return cur, nil, err
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { cur, err = figures(ctx, r.Current); return err })
	g.Go(func() (err error) { prev, err = figures(ctx, *r.Previous); return err })
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return cur, prev, nil
}

// Request is one report: the current period, an optional previous one to
// compare with, and the filter.
type Request struct {
	Company  int64
	Current  Period
	Previous *Period
	Filter   Filter
}

// Engine is what reports need from a search engine.
type Engine interface {
	index.Engine
	index.Faceter
	index.Aggregator
}

// node of the filter, for documents whose tags hold tagValue of a tag.
func (f Filter) node(tagValue func(parley.Tag) string) query.Node {
	cf := parley.ConversationFilter{Visible: f.Visible, MailboxIDs: f.Mailboxes, FolderIDs: f.Folders, Types: f.Types}
	for _, t := range f.Tags {
		cf.Tags = append(cf.Tags, tagValue(t))
	}
	return search.ConversationFilter(cf)
}

func during(field string, p Period) query.Node {
	start, end := p.Start, p.End
	return query.TimeRange{Field: field, From: &start, To: &end, FromInclusive: true}
}

// Delta is the percentage change from previous to current, rounded to two
// decimals. From zero it is 0 when current is zero too, else 100.
func Delta(current, previous float64) float64 {
	switch {
	case previous == 0 && current == 0:
		return 0
	case previous == 0:
		return 100
	}
	return round2((current - previous) / previous * 100)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// percent is part of whole in percent, two decimals; 0 of 0 is 0.
func percent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return round2(float64(part) / float64(whole) * 100)
}

// valueStats sums a Values facet of numbers: how many documents have a
// value, and the sum of their values.
func valueStats(values map[string]int) (count int, sum float64, err error) {
	for k, n := range values {
		v, perr := index.ParseValueKey(k)
		if perr != nil {
			return 0, 0, fmt.Errorf("reports: facet value %q is not a number", k)
		}
		count += n
		sum += v * float64(n)
	}
	return count, sum, nil
}

// Date renders a period bound in the wire format.
func Date(t time.Time) string { return parley.FormatTime(t) }

func facets(ctx context.Context, e Engine, r index.FacetRequest) (index.FacetResult, error) {
	res, err := e.Facets(ctx, r)
	if err != nil {
		return res, fmt.Errorf("reports: %w", err)
	}
	return res, nil
}

// eachUserRow calls row, in id order, for every user with figures in the
// current period or (when there is one) the previous: its name, its
// figures now, and its figures before (nil without a previous period).
func eachUserRow[F any](users []parley.User, cur, prev map[int64]F, hasPrevious bool, row func(id int64, name string, now F, then *F)) {
	names := map[int64]string{}
	for _, u := range users {
		names[u.ID] = u.Name()
	}
	seen := map[int64]bool{}
	var ids []int64
	for _, m := range []map[int64]F{cur, prev} {
		for id := range m {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		var then *F
		if hasPrevious {
			p := prev[id]
			then = &p
		}
		row(id, names[id], cur[id], then)
	}
}
