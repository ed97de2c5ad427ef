package index

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parley/parley/query"
)

// Suggestions: a text search that finds nothing is answered with up to
// MaxSuggestions corrected queries. A word of the query is corrected when
// the company's own documents of the searched kind do not hold it and do
// hold words close to it; the corrected query must find something under
// the same filters, or it is not offered.

// MaxSuggestions is the most corrected queries Suggest returns.
const MaxSuggestions = 3

// Bounds of the work one suggestion does: candidates kept per word, and
// corrected queries verified by a search.
const (
	maxCandidates = 3
	maxVerified   = 9
)

// MaxSuggestableLength is the longest word, in letters, that suggestions
// correct or offer. No word of a language comes near it, while what does
// (an encoded blob, a token, a held-down key) is not worth correcting, and
// a long word is costly to correct: Bleve's edit-distance automaton for a
// word of about 2,500 letters passes its bound of 10,000 states, and the
// look-up fails.
const MaxSuggestableLength = 64

// SuggestableWord reports whether a word (an exact form) can be corrected
// or offered: letters and digits, at least three of them and at most
// MaxSuggestableLength. Digits count because order numbers and product
// codes (zqvolt66104405x) are what agents search for most.
func SuggestableWord(w string) bool {
	if n := utf8.RuneCountInString(w); n < 3 || n > MaxSuggestableLength {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// MaxEdits is how far a word may be corrected, as Elasticsearch's AUTO
// fuzziness: one edit for words of three to five letters, two from six.
// An edit inserts, deletes or substitutes a letter, or swaps two adjacent
// ones.
func MaxEdits(w string) int {
	if utf8.RuneCountInString(w) < 6 {
		return 1
	}
	return 2
}

// Suggester is an engine that can list a company's words near a word.
type Suggester interface {
	// Words lists the distinct words (exact forms) of the company's
	// documents of a kind within maxEdits (1 or 2) edits of word, the
	// word itself included when present, in any order. An engine may
	// return words of documents since deleted; Suggest verifies.
	Words(ctx context.Context, kind Kind, company int64, word string, maxEdits int) ([]string, error)
}

// Suggest proposes up to MaxSuggestions corrections of text, the query a
// user wrote, whose checked form r.Query found nothing under r's filters.
// Each misspelled word (one of the query's words that the company's
// documents lack, outside NOT) is replaced by its nearest words; the
// corrections that find something are ordered by edits, then hits (most
// first), then text. An engine that is not a Suggester gets none.
func Suggest(ctx context.Context, e Engine, r Request, text string) ([]string, error) {
	s, ok := e.(Suggester)
	if !ok || r.Query == nil {
		return nil, nil
	}
	type fix struct {
		word  string
		cands []string // nearest first
		dists []int
	}
	var fixes []fix
	for _, w := range queryWords(r.Query) {
		if !SuggestableWord(w) {
			continue
		}
		words, err := s.Words(ctx, r.Kind, r.Company, w, MaxEdits(w))
		if err != nil {
			return nil, err
		}
		if slices.Contains(words, w) {
			continue // the word exists: the combination found nothing
		}
		f := fix{word: w}
		type cand struct {
			w string
			d int
		}
		var cands []cand
		for _, c := range words {
			if d := EditDistance(w, c); d <= MaxEdits(w) {
				cands = append(cands, cand{c, d})
			}
		}
		slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.w, b.w)) })
		for _, c := range cands[:min(len(cands), maxCandidates)] {
			f.cands, f.dists = append(f.cands, c.w), append(f.dists, c.d)
		}
		if len(f.cands) > 0 {
			fixes = append(fixes, f)
		}
	}
	if len(fixes) == 0 {
		return nil, nil
	}
	// Every combination of candidates, fewest edits first.
	type combo struct {
		repl  map[string]string
		edits int
		rank  []int
	}
	combos := []combo{{repl: map[string]string{}}}
	for _, f := range fixes {
		var next []combo
		for _, c := range combos {
			for i, w := range f.cands {
				repl := map[string]string{f.word: w}
				for k, v := range c.repl {
					repl[k] = v
				}
				next = append(next, combo{repl: repl, edits: c.edits + f.dists[i], rank: append(slices.Clone(c.rank), i)})
			}
		}
		combos = next
	}
	slices.SortStableFunc(combos, func(a, b combo) int { return cmp.Or(cmp.Compare(a.edits, b.edits), slices.Compare(a.rank, b.rank)) })
	type found struct {
		text  string
		edits int
		hits  int
	}
	var out []found
	for _, c := range combos[:min(len(combos), maxVerified)] {
		corrected := r
		corrected.Query = replaceInNode(r.Query, c.repl)
		corrected.Offset, corrected.Limit = 0, 0
		res, err := e.Search(ctx, corrected)
		if err != nil {
			return nil, err
		}
		if res.Total > 0 {
			out = append(out, found{ReplaceWords(text, c.repl), c.edits, res.Total})
		}
	}
	slices.SortStableFunc(out, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.edits, b.edits), cmp.Compare(b.hits, a.hits), strings.Compare(a.text, b.text))
	})
	var texts []string
	for _, f := range out {
		if !slices.Contains(texts, f.text) {
			texts = append(texts, f.text)
		}
	}
	return texts[:min(len(texts), MaxSuggestions)], nil
}

// queryWords lists the distinct exact forms of the words of a query's
// text clauses (Match and Phrase) outside NOT, sorted.
func queryWords(n query.Node) []string {
	var out []string
	var walk func(query.Node)
	walk = func(n query.Node) {
		switch n := n.(type) {
		case query.And:
			for _, c := range n.Nodes {
				walk(c)
			}
		case query.Or:
			for _, c := range n.Nodes {
				walk(c)
			}
		case query.Match:
			out = append(out, Tokens(n.Text)...)
		case query.Phrase:
			out = append(out, Tokens(n.Text)...)
		}
	}
	walk(n)
	slices.Sort(out)
	return slices.Compact(out)
}

// replaceInNode rewrites the text of a query's Match and Phrase clauses
// with ReplaceWords.
func replaceInNode(n query.Node, repl map[string]string) query.Node {
	switch n := n.(type) {
	case query.And:
		nodes := make([]query.Node, len(n.Nodes))
		for i, c := range n.Nodes {
			nodes[i] = replaceInNode(c, repl)
		}
		return query.And{Nodes: nodes}
	case query.Or:
		nodes := make([]query.Node, len(n.Nodes))
		for i, c := range n.Nodes {
			nodes[i] = replaceInNode(c, repl)
		}
		return query.Or{Nodes: nodes}
	case query.Not:
		return query.Not{Node: replaceInNode(n.Node, repl)}
	case query.Match:
		n.Text = ReplaceWords(n.Text, repl)
		return n
	case query.Phrase:
		n.Text = ReplaceWords(n.Text, repl)
		return n
	}
	return n
}

// ReplaceWords replaces in s every word (a run of letters, digits and
// combining marks) whose exact form is a key of repl by its value.
func ReplaceWords(s string, repl map[string]string) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		w := s[start:end]
		if r, ok := repl[Fold(w)]; ok {
			w = r
		}
		b.WriteString(w)
		start = -1
	}
	for i, r := range s {
		word := IsWordRune(r) || unicode.Is(unicode.Mn, r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			flush(i)
		}
		if !word {
			b.WriteRune(r)
		}
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}

// EditDistance is the optimal string alignment distance between two words,
// in runes: insertions, deletions, substitutions and swaps of adjacent
// runes, as Bleve's fuzzy term dictionary counts them.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
