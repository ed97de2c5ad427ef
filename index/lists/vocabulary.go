package lists

import (
	"strings"
	"unsafe"
)

// vocabulary interns the keywords of report rows: each distinct keyword
// once, numbered in order of arrival, so rows hold 4-byte numbers.
//
// Most of its keywords are nearly unique: a reply's response figures and
// its conversation's (index.ConversationValues), about two million at a
// million conversations. Held as a []string and a map[string]uint32 they
// were 220 MB of the 1.3 GB live heap after a restore at 1M (session 17's
// heap profile) and two million objects for every garbage collection to
// mark. A vocabulary keeps them as rowIDs keep row ids: the bytes end to
// end and a hash table of numbers, no pointers, and 79 MB for the same
// keywords (about 37 bytes each) once reserved on restore.
//
// Keywords are never removed, as the map before it never dropped one: a
// Load replaces the vocabulary with its fresh engine's.
type vocabulary struct{ ids rowIDs }

// noWord is the number of the empty keyword, which list rows hold for a
// keyword they lack: a new vocabulary holds it first.
const noWord = 0

func newVocabulary() *vocabulary {
	v := &vocabulary{ids: newRowIDs(0)}
	v.intern("")
	return v
}

// intern is the number of s, adding it when new; callers hold the write
// lock or own the engine.
func (v *vocabulary) intern(s string) uint32 {
	if id, ok := v.ids.find(s); ok {
		return uint32(id)
	}
	return uint32(v.ids.add(s))
}

// reserve makes room for words more keywords of size bytes in all.
func (v *vocabulary) reserve(words, size int) { v.ids.reserve(words, size) }

// find is the number of s if the vocabulary holds it.
func (v *vocabulary) find(s string) (uint32, bool) {
	id, ok := v.ids.find(s)
	return uint32(id), ok
}

// word is keyword id. It views the vocabulary's bytes rather than copy
// them, as aggregates read a keyword per row: those bytes are only ever
// appended to, never written again (a growing array is copied, and the
// old one stays as it was while a word still views it), so the string
// is as immutable as any other. A word kept past the request holds the
// array it views, so what leaves the engine is cloned.
func (v *vocabulary) word(id uint32) string {
	b := v.ids.at(int(id))
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// spell is counts by keyword number, by keyword: copies, since counts
// leave the engine (see word).
func (v *vocabulary) spell(counts map[uint32]int) map[string]int {
	out := make(map[string]int, len(counts))
	for w, n := range counts {
		out[strings.Clone(v.word(w))] = n
	}
	return out
}

// len is the number of keywords.
func (v *vocabulary) len() int { return v.ids.len() }
