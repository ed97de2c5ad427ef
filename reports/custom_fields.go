package reports

import (
	"context"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// CustomFieldsStats is the conversations report's summary of the dropdown
// custom fields: Count is how many fields it lists.
type CustomFieldsStats struct {
	Count  int                `json:"count"`
	Fields []CustomFieldStats `json:"fields"`
}

// CustomFieldStats is one dropdown field of a mailbox: how many of the
// current period's conversations worked on in its mailbox have each
// option, and how many have none.
type CustomFieldStats struct {
	ID        int64              `json:"id"`
	Name      string             `json:"name"`
	MailboxID int64              `json:"mailboxId"`
	Values    []CustomValueStats `json:"values"`
	Summary   CustomFieldSummary `json:"summary"`
}

// CustomValueStats is one option of a dropdown field: its conversations
// and their share of the field's total (exact; null over none).
type CustomValueStats struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	Count   int      `json:"count"`
	Percent *float64 `json:"percent"`
}

// CustomFieldSummary counts a field's conversations: Total those worked on
// in its mailbox, TotalAnswered those with a value; the unanswered percent
// is of Total (null over none), now and before (previous figures null
// without a previous period), and UnansweredDelta its change in points
// (null when either is).
type CustomFieldSummary struct {
	Total                     int      `json:"total"`
	TotalAnswered             int      `json:"totalAnswered"`
	PreviousTotal             *int     `json:"previousTotal"`
	PreviousTotalAnswered     *int     `json:"previousTotalAnswered"`
	UnansweredPercent         *float64 `json:"unansweredPercent"`
	UnansweredPreviousPercent *float64 `json:"unansweredPreviousPercent"`
	UnansweredDelta           *float64 `json:"unansweredDelta"`
}

// fieldCounts are a dropdown field's conversations in one period: the
// total in its mailbox and the count per option id (as indexed).
type fieldCounts struct {
	total    int
	byOption map[string]int
}

// customFields summarizes the dropdown fields of the mailboxes, in mailbox
// then field order, over the conversations worked on (TotalFilter); a
// field whose mailbox had none in the current period is left out.
func customFields(ctx context.Context, e Engine, r Request, mailboxes []parley.Mailbox) (CustomFieldsStats, error) {
	out := CustomFieldsStats{Fields: []CustomFieldStats{}}
	for _, m := range mailboxes {
		var dropdowns []parley.FieldDef
		for _, f := range m.Fields {
			if f.Type == parley.FieldDropdown {
				dropdowns = append(dropdowns, f)
			}
		}
		if len(dropdowns) == 0 {
			continue
		}
		cur, err := mailboxFieldCounts(ctx, e, r, r.Current, m.ID, dropdowns)
		if err != nil {
			return out, err
		}
		var prev map[int64]fieldCounts
		if r.Previous != nil {
			if prev, err = mailboxFieldCounts(ctx, e, r, *r.Previous, m.ID, dropdowns); err != nil {
				return out, err
			}
		}
		for _, f := range dropdowns {
			now := cur[f.ID]
			if now.total == 0 {
				continue
			}
			stats := CustomFieldStats{ID: f.ID, Name: f.Name, MailboxID: m.ID, Values: []CustomValueStats{}}
			answered := 0
			for _, o := range f.Options {
				n := now.byOption[index.FormatID(o.ID)]
				answered += n
				stats.Values = append(stats.Values, CustomValueStats{ID: o.ID, Name: o.Label, Count: n, Percent: share(n, now.total)})
			}
			stats.Summary = CustomFieldSummary{Total: now.total, TotalAnswered: answered, UnansweredPercent: share(now.total-answered, now.total)}
			if prev != nil {
				before := prev[f.ID]
				answeredBefore := 0
				for _, o := range f.Options {
					answeredBefore += before.byOption[index.FormatID(o.ID)]
				}
				stats.Summary.PreviousTotal, stats.Summary.PreviousTotalAnswered = &before.total, &answeredBefore
				stats.Summary.UnansweredPreviousPercent = share(before.total-answeredBefore, before.total)
				if now, then := stats.Summary.UnansweredPercent, stats.Summary.UnansweredPreviousPercent; now != nil && then != nil {
					change := *now - *then
					stats.Summary.UnansweredDelta = &change
				}
			}
			out.Fields = append(out.Fields, stats)
		}
	}
	out.Count = len(out.Fields)
	return out, nil
}

// mailboxFieldCounts counts, in one facet request, the conversations
// worked on in a period in one mailbox and their values of its dropdown
// fields.
func mailboxFieldCounts(ctx context.Context, e Engine, r Request, p Period, mailbox int64, dropdowns []parley.FieldDef) (map[int64]fieldCounts, error) {
	values := map[string]string{}
	for _, f := range dropdowns {
		id := index.FormatID(f.ID)
		values[id] = index.CustomKeywordPrefix + id
	}
	res, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company,
		Filter: and(TotalFilter(p, r.Filter), query.EqualID("mailboxId", mailbox)), Values: values})
	if err != nil {
		return nil, err
	}
	out := map[int64]fieldCounts{}
	for _, f := range dropdowns {
		out[f.ID] = fieldCounts{total: res.Total, byOption: res.Values[index.FormatID(f.ID)]}
	}
	return out, nil
}
