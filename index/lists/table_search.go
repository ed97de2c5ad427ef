package lists

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parley/parley/index"
)

// Searches over report rows: the lists of a textless kind (the happiness
// report's ratings, the chat report's drill-down), which only the list
// engine holds (see index.Router). A search is one pass over the company's
// table with the compiled filter; the matches are then ranked as the full
// engine ranks: each sort field by its smallest value, missing values
// last whatever the direction, then index.TieBreak's fields, then the
// document id.

// tableHit is a matching row with its values of the sort fields.
type tableHit struct {
	row  int32
	id   string
	vals []sortValue
}

// tablePlan checks a textless kind's request and returns its sorts
// (index.TieBreak's whole order) and the direction of the final tie on
// the document id. Such a kind has no text, so a request's words (Query)
// or a score sort cannot be answered.
func tablePlan(r index.Request) ([]sortField, bool, error) {
	s := schemas[r.Kind]
	if s == nil || !r.Kind.Textless() {
		return nil, false, errUnsupported
	}
	if r.Query != nil {
		return nil, false, fmt.Errorf("lists: %s documents have no text to search; filter them", r.Kind)
	}
	if !filterSupported(r.Kind, r.Filter) {
		return nil, false, errUnsupported
	}
	var sorts []sortField
	desc := true
	for _, o := range index.TieBreak(r.Kind, r.Sort) {
		desc = o.Desc
		if f, ok := s.numbers[o.Field]; ok {
			sorts = append(sorts, sortField{num: f, word: -1, desc: o.Desc})
			continue
		}
		if f, ok := s.words[o.Field]; ok {
			sorts = append(sorts, sortField{num: -1, word: f, desc: o.Desc})
			continue
		}
		return nil, false, fmt.Errorf("lists: %s documents cannot be sorted on %q", r.Kind, o.Field)
	}
	return sorts, desc, nil
}

// searchTable answers a request on a textless kind.
func (e *Engine) searchTable(ctx context.Context, r index.Request) (index.Result, error) {
	sorts, idDesc, err := tablePlan(r)
	if err != nil {
		return index.Result{}, err
	}
	unlock, err := e.readRows(ctx, r.Company, r.Kind)
	if err != nil {
		return index.Result{}, err
	}
	defer unlock()
	t := e.tableOf(r.Company, r.Kind)
	var hits []tableHit
	total := 0
	err = e.scan(ctx, t, r.Filter, func(i int32) {
		total++
		if r.Limit > 0 {
			hits = append(hits, tableHit{row: i, vals: t.sortValues(i, sorts, e.vocab)})
		}
	})
	if err != nil {
		return index.Result{}, err
	}
	out := index.Result{Total: total, IDs: []string{}}
	if r.Limit <= 0 || r.Offset >= len(hits) {
		return out, nil
	}
	for k := range hits {
		hits[k].id = string(t.ids.at(int(hits[k].row)))
	}
	slices.SortFunc(hits, func(a, b tableHit) int { return compareHits(a, b, sorts, idDesc) })
	for _, h := range hits[r.Offset:min(len(hits), r.Offset+r.Limit)] {
		out.IDs = append(out.IDs, h.id)
	}
	return out, nil
}

// sortValues are row i's values of the sort fields.
func (t *table) sortValues(i int32, sorts []sortField, vocab *vocabulary) []sortValue {
	out := make([]sortValue, len(sorts))
	for k, s := range sorts {
		if s.num >= 0 {
			for j, c := range t.codesOf(i, s.num) {
				if v := t.value(s.num, c); j == 0 || v < out[k].num {
					out[k].num = v
				}
				out[k].has = true
			}
			continue
		}
		for j, w := range t.wordsOf(i, s.word) {
			if word := vocab.word(w); j == 0 || word < out[k].word {
				out[k].word = word
			}
			out[k].has = true
		}
	}
	return out
}

// compareHits orders two matches: by each sort field (compareValues),
// then by document id in the direction idDesc.
func compareHits(a, b tableHit, sorts []sortField, idDesc bool) int {
	for k, s := range sorts {
		if c := compareValues(a.vals[k], b.vals[k], s.num < 0, s.desc); c != 0 {
			return c
		}
	}
	c := strings.Compare(a.id, b.id)
	if idDesc {
		c = -c
	}
	return c
}
