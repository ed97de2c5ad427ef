package lists

import (
	"math"
	"slices"

	"github.com/parley/parley/index"
)

// Report rows: what the reports read of conversations (their figures),
// messages, calls and chats, held as numbers so that an aggregate or a
// facet over a year of a company's documents is one pass over memory,
// where the full engine decodes each match's doc values.
//
// A row holds its document's keyword and number fields of the kind's
// catalog (text is the full engine's; dynamic custom fields too). Rows
// are flat: a table keeps every row's numbers in one []uint32 and its
// keywords, interned, in one []uint32, and per row where its values start
// and its shape: the offsets of each field's values. Rows of one kind
// mostly hold the same fields with as many values each, so a table keeps
// each distinct shape once and a row names its shape: a row costs its
// values and 12 bytes, and no map or slice of its own.
//
// A number takes 4 bytes, a code (see encode): nearly all of a report
// row's numbers are whole and under 2^31 (ids, counts, seconds) or times
// in whole seconds, and the code holds them; the others (fractions,
// negatives, times with milliseconds) take 8 bytes more in the table's
// wide values, the code naming their place. Held as float64s, the numbers
// were two fifths of the engine's memory (about 45 numbers a
// conversation, with its messages', calls' and chats').

// schema is the slots of a kind's report rows, by field name.
type schema struct {
	numbers map[string]int
	words   map[string]int
	valued  map[string]bool // Valued number fields: Values facets may count them
	// scale is what a code of each number slot counts: 1000 for times
	// (milliseconds held as seconds), else 1.
	scale  []float64
	nNums  int
	nWords int
}

// unreported are a conversation's keywords no report reads: sort keys
// and addresses, strings of their own in nearly every conversation, which
// would double a row's size. Requests naming them go to the full engine.
var unreported = map[string]bool{"subjectSort": true, "customerNameSort": true, "customerEmail": true, "email": true}

// schemas are the kinds that have report rows.
var schemas = func() map[index.Kind]*schema {
	out := map[index.Kind]*schema{}
	for _, kind := range []index.Kind{index.Conversations, index.Messages, index.Calls, index.Chats} {
		s := &schema{numbers: map[string]int{}, words: map[string]int{}, valued: map[string]bool{}}
		for _, f := range index.Catalog[kind] {
			if kind == index.Conversations && unreported[f.Name] {
				continue
			}
			switch f.Type {
			case index.NumberField:
				s.numbers[f.Name] = s.nNums
				s.valued[f.Name] = f.Valued
				scale := 1.0
				if f.Millis {
					scale = 1000
				}
				s.scale = append(s.scale, scale)
				s.nNums++
			case index.KeywordField:
				s.words[f.Name] = s.nWords
				s.nWords++
			}
		}
		out[kind] = s
	}
	return out
}()

// maxRowValues bounds the values of one row (its offsets are 16 bits); a
// document with more makes its table unusable (overflow) rather than
// wrong, and requests on it go to the full engine.
const maxRowValues = 1<<16 - 1

// table is the report rows of one company and kind. Rows are appended; a
// replaced or removed row is marked dead (its id cleared) and skipped
// until the table is compacted.
type table struct {
	s      *schema
	ids    rowIDs
	numAt  []uint32 // per row, its first value in nums
	wordAt []uint32 // per row, its first value in words
	shape  []uint32 // per row, its shape in shapes
	shapes shapes
	nums   []uint32  // codes (encode)
	wide   []float64 // the numbers no code holds, by place
	words  []uint32  // numbers in Engine.vocab
	dead   int
	// overflow is set when a document had more values than a row holds.
	overflow bool
	sorted   *tableOrders // orders for date ranges (order.go)
}

func newTable(s *schema) *table { return sizedTable(s, 0, 0, 0) }

// sizedTable is an empty table with room for the given rows and values.
func sizedTable(s *schema, rows, nums, words int) *table {
	return &table{s: s, ids: newRowIDs(rows), numAt: make([]uint32, 0, rows), wordAt: make([]uint32, 0, rows),
		shape: make([]uint32, 0, rows), shapes: newShapes(s.nNums + 1 + s.nWords + 1),
		nums: make([]uint32, 0, nums), words: make([]uint32, 0, words), sorted: &tableOrders{}}
}

// startRow appends the row of id with its shape (its number offsets, then
// its keyword offsets); the caller appends its values next.
func (t *table) startRow(id string, shape []uint16) {
	t.ids.add(id)
	t.numAt = append(t.numAt, uint32(len(t.nums)))
	t.wordAt = append(t.wordAt, uint32(len(t.words)))
	t.shape = append(t.shape, t.shapes.of(shape))
}

// numOffsets are row i's nNums+1 offsets of its number slots from numAt.
func (t *table) numOffsets(i int32) []uint16 {
	return t.shapes.at(t.shape[i])[:t.s.nNums+1]
}

// wordOffsets are row i's nWords+1 offsets of its keyword slots from
// wordAt.
func (t *table) wordOffsets(i int32) []uint16 {
	return t.shapes.at(t.shape[i])[t.s.nNums+1:]
}

// codesOf are the codes of row i's values of number slot f.
func (t *table) codesOf(i int32, f int) []uint32 {
	off := t.numOffsets(i)
	at := int(t.numAt[i])
	return t.nums[at+int(off[f]) : at+int(off[f+1])]
}

// numbersOf appends row i's values of number slot f to buf[:0]: callers
// keep buf, so that reading a row allocates nothing.
func (t *table) numbersOf(buf []float64, i int32, f int) []float64 {
	buf = buf[:0]
	for _, c := range t.codesOf(i, f) {
		buf = append(buf, t.value(f, c))
	}
	return buf
}

// wideBit marks a code that is a place in wide.
const wideBit = 1 << 31

// encode is the code of value v of number slot f: v counted in the slot's
// scale when that is a whole number under 2^31 (and not -0), else the
// place of v, appended to wide. A table holds under 2^31 wide values (put
// checks).
func (t *table) encode(f int, v float64) uint32 {
	scale := t.s.scale[f]
	if q := v / scale; q >= 0 && q < wideBit && !math.Signbit(v) && float64(uint32(q))*scale == v {
		return uint32(q)
	}
	t.wide = append(t.wide, v)
	return wideBit | uint32(len(t.wide)-1)
}

// value is the number code c of slot f holds.
func (t *table) value(f int, c uint32) float64 {
	if c&wideBit != 0 {
		return t.wide[c&^wideBit]
	}
	return float64(c) * t.s.scale[f]
}

// wordsOf are row i's interned values of keyword slot f.
func (t *table) wordsOf(i int32, f int) []uint32 {
	off := t.wordOffsets(i)
	at := int(t.wordAt[i])
	return t.words[at+int(off[f]) : at+int(off[f+1])]
}

func (t *table) live(i int) bool { return t.ids.live(i) }

// size is the number of rows, dead ones included.
func (t *table) size() int { return t.ids.len() }

func (t *table) rows() int { return t.size() - t.dead }

// put appends the row of a document, replacing its previous row; intern
// turns a keyword into its index in the engine's word list.
func (t *table) put(d index.Document, intern func(string) uint32) {
	t.remove(d.ID)
	total := 0
	for name := range t.s.numbers {
		total += len(d.Numbers[name])
	}
	for name := range t.s.words {
		total += len(d.Keywords[name])
	}
	if total > maxRowValues || len(t.wide)+total >= wideBit {
		t.overflow = true
		return
	}
	shape := make([]uint16, t.shapes.width)
	offs, woffs := shape[:t.s.nNums+1], shape[t.s.nNums+1:]
	for name, f := range t.s.numbers {
		offs[f+1] = uint16(len(d.Numbers[name]))
	}
	for name, f := range t.s.words {
		woffs[f+1] = uint16(len(d.Keywords[name]))
	}
	for f := 1; f < len(offs); f++ {
		offs[f] += offs[f-1]
	}
	for f := 1; f < len(woffs); f++ {
		woffs[f] += woffs[f-1]
	}
	t.startRow(d.ID, shape)
	var nums, words []uint32
	t.nums, nums = extend(t.nums, int(offs[len(offs)-1]))
	t.words, words = extend(t.words, int(woffs[len(woffs)-1]))
	for name, f := range t.s.numbers {
		for i, v := range d.Numbers[name] {
			nums[int(offs[f])+i] = t.encode(f, v)
		}
	}
	for name, f := range t.s.words {
		for i, v := range d.Keywords[name] {
			words[int(woffs[f])+i] = intern(v)
		}
	}
}

// extend lengthens s by n elements and returns it with those elements.
func extend[T any](s []T, n int) (grown, tail []T) {
	s = slices.Grow(s, n)
	s = s[:len(s)+n]
	return s, s[len(s)-n:]
}

// remove marks a document's row dead, and compacts the table once dead
// rows are as many as live ones.
func (t *table) remove(id string) {
	if _, ok := t.ids.remove(id); !ok {
		return
	}
	if t.dead++; t.dead > 1024 && t.dead > t.size()/2 {
		t.compact()
	}
}

// compact drops the dead rows and their values.
func (t *table) compact() {
	fresh := newTable(t.s)
	fresh.overflow = t.overflow
	for i := range t.size() {
		if t.live(i) {
			fresh.copyRow(t, int32(i))
		}
	}
	*t = *fresh
}

// copyRow appends row i of src, values as they are.
func (t *table) copyRow(src *table, i int32) {
	t.startRow(string(src.ids.at(int(i))), src.shapes.at(src.shape[i]))
	for f := range t.s.nNums {
		for _, c := range src.codesOf(i, f) {
			t.nums = append(t.nums, t.encode(f, src.value(f, c)))
		}
	}
	wOff := src.wordOffsets(i)
	t.words = append(t.words, src.words[src.wordAt[i]:][:wOff[t.s.nWords]]...)
}
