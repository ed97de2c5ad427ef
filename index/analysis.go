package index

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// The text analysis of Parley is one small pipeline that every engine
// applies to text fields and to the words of text queries, so that they
// agree on what matches. A third engine (PostgreSQL) reproduces it by
// storing the tokens this code computes (a tsvector of pre-analysed
// lexemes under the 'simple' configuration), never by re-analysing with
// its own dictionaries. The steps, in order:
//
//  1. Fold: lowercase (strings.ToLower), decompose (Unicode NFD), drop
//     every nonspacing mark (category Mn), recompose (NFC). "Café",
//     "CAFE\u0301" and "cafe" all become "cafe"; "Résumé" becomes "resume".
//     Letters without a decomposition (ß, ø, ł, æ) stay as they are.
//  2. Split: a token is a maximal run of letters and digits (Unicode
//     categories L and N) of the folded text; everything else separates.
//     These are the exact forms: quoted words and phrases, prefixes and
//     suggestions use them.
//  3. Stem: each exact form passes through the Snowball English stemmer
//     (github.com/blevesearch/snowballstem/english, the algorithm of
//     snowballstem.org). "refunds", "refunded" and "refunding" become
//     "refund". These are the stemmed forms: unquoted words use them.
//
// Every text field is indexed in both forms: the stemmed form under the
// field's name, the exact form under ExactField(name). An engine may leave
// out a stemmed form equal to its exact form and find it in the exact
// twin instead (the Bleve engine does). No stop words are removed, so
// every word can be searched.

// Fold lowercases s and removes its diacritics (steps 1 of the analysis).
// Prefix values of text fields are folded the same way.
func Fold(s string) string {
	lower := strings.ToLower(s)
	if isASCII(lower) {
		return lower // nothing to decompose: the common case, spared the transform
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, lower)
	if err != nil {
		return lower // transform.String fails only on invalid input it cannot hold; keep the lowercase
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// IsWordRune reports whether r belongs to a word: letters and digits.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Tokens is steps 1 and 2 of the analysis: the exact forms of s, folded,
// in order.
func Tokens(s string) []string {
	s = Fold(s)
	var out []string
	start := -1
	for i, r := range s {
		word := IsWordRune(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// Stem is step 3 of the analysis: the Snowball English stem of an exact
// form (a token from Tokens).
func Stem(token string) string {
	shard := &stems[maphash.String(stemSeed, token)%uint64(len(stems))]
	shard.mu.RLock()
	stem, ok := shard.memo[token]
	shard.mu.RUnlock()
	if ok {
		return stem
	}
	env := snowballstem.NewEnv(token)
	english.Stem(env)
	stem = env.Current()
	if stemsCached.Add(1) <= maxCachedStems {
		shard.mu.Lock()
		if shard.memo == nil {
			shard.memo = map[string]string{}
		}
		shard.memo[token] = stem
		shard.mu.Unlock()
	}
	return stem
}

// Stems is the full analysis of s: the stemmed forms of its tokens, in
// order.
func Stems(s string) []string {
	out := Tokens(s)
	for i, t := range out {
		out[i] = Stem(t)
	}
	return out
}

// The stems of the first words seen are memoized: a vocabulary is mostly
// a few thousand words, and stemming is most of the cost of analysis. Stem
// is a pure function, so the memo changes no answer; the bound keeps a
// stream of unique tokens (ids, codes) from growing it.
const maxCachedStems = 1 << 16

// The memo is split in shards, each a map under its own lock, so that
// the analysis of a bulk load on several cores rarely waits on one lock;
// a sync.Map's lookup (an interface key's hash, a walk down its trie) took
// twice as long, and was most of Stem's cost in a rebuild's profile.
var (
	stems [64]struct {
		mu   sync.RWMutex
		memo map[string]string
	}
	stemSeed    = maphash.MakeSeed()
	stemsCached atomic.Int64
)

// ExactField names the index field that holds the exact forms of a text
// field; the field's own name holds the stemmed forms.
func ExactField(name string) string { return ExactPrefix + name }

// ExactPrefix starts the name of every exact-form twin of a text field.
const ExactPrefix = "e_"
