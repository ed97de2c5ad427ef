package lists

import (
	"hash/maphash"
	"slices"
)

// rowIDs are a report table's row ids, kept without pointers: the ids'
// bytes end to end in one array, and an open-addressing table of rows by
// the ids' hashes. At a million conversations the ids as strings, and a
// map keyed by them, were 300 MB of the live heap (session 9's heap
// profile), every byte of it scanned by each garbage collection; a map
// from each id's hash to its row was still 206 MB of the 1.25 GB live
// heap after a restore at 1M (session 17), where these slots take 5 bytes
// for every row and at most as many again free.
//
// A slot holds a row plus one, 0 when empty, removed when its row was
// removed (so that probes go on past it), and beside it a tag, eight more
// bits of its id's hash: a probe compares the bytes of a row only when the
// tags agree, so ids whose hashes meet are told apart without reading the
// ids of every row on the way.
type rowIDs struct {
	seed  maphash.Seed
	bytes []byte
	ends  []uint32 // per row, where its id ends in bytes
	dead  []uint64 // a bit per row: removed
	slots []int32  // a power of two of them, linear probing
	tags  []uint8  // per slot, the top byte of its id's hash
	used  int      // slots not empty: rows and removed marks
	held  int      // rows not removed
}

// removed marks a slot whose row was removed.
const removed = -1

func newRowIDs(rows int) rowIDs {
	n := slotsFor(rows)
	return rowIDs{seed: maphash.MakeSeed(), ends: make([]uint32, 0, rows), slots: make([]int32, n), tags: make([]uint8, n)}
}

// slotsFor is the number of slots that holds rows at most three quarters
// full.
func slotsFor(rows int) int {
	n := 8
	for n*3 < rows*4 {
		n *= 2
	}
	return n
}

// len is the number of rows, dead ones included.
func (r *rowIDs) len() int { return len(r.ends) }

// at is row i's id, as bytes that stay valid until the next add.
func (r *rowIDs) at(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.bytes[start:r.ends[i]]
}

func (r *rowIDs) live(i int) bool { return r.dead[i/64]&(1<<(i%64)) == 0 }

// probe is the slot of id's live row if it has one (found), else the
// first slot an add of id may take.
func (r *rowIDs) probe(id string) (slot int, tag uint8, found bool) {
	h := maphash.String(r.seed, id)
	mask, tag := uint64(len(r.slots)-1), uint8(h>>56)
	free := -1
	for at := h & mask; ; at = (at + 1) & mask {
		switch s := r.slots[at]; {
		case s == 0:
			if free < 0 {
				free = int(at)
			}
			return free, tag, false
		case s == removed:
			if free < 0 {
				free = int(at)
			}
		case r.tags[at] == tag && string(r.at(int(s-1))) == id:
			return int(at), tag, true
		}
	}
}

// find is the live row of id.
func (r *rowIDs) find(id string) (int32, bool) {
	at, _, ok := r.probe(id)
	if !ok {
		return 0, false
	}
	return r.slots[at] - 1, true
}

// add appends a row for id, which no live row holds.
func (r *rowIDs) add(id string) int32 {
	i := int32(len(r.ends))
	r.bytes = append(r.bytes, id...)
	r.ends = append(r.ends, uint32(len(r.bytes)))
	if len(r.ends) > 64*len(r.dead) {
		r.dead = append(r.dead, 0)
	}
	at, tag, _ := r.probe(id)
	if r.slots[at] == 0 {
		r.used++
	}
	r.slots[at], r.tags[at] = i+1, tag
	r.held++
	if r.used*4 > len(r.slots)*3 {
		r.rehash(2 * r.held)
	}
	return i
}

// reserve makes room for rows more ids of size bytes in all, so that a
// restore, which knows both, grows each array once rather than by
// appends that leave up to a quarter of it unused (and its old copy
// garbage) and slots sized for twice the rows.
func (r *rowIDs) reserve(rows, size int) {
	r.bytes = slices.Grow(r.bytes, size)
	r.ends = slices.Grow(r.ends, rows)
	r.dead = slices.Grow(r.dead, max(0, (len(r.ends)+rows)/64+1-len(r.dead)))
	if slotsFor(r.held+rows) > len(r.slots) {
		r.rehash(r.held + rows)
	}
}

// rehash puts the live rows in new slots sized for rows, dropping the
// removed marks.
func (r *rowIDs) rehash(rows int) {
	n := slotsFor(rows)
	r.slots, r.tags, r.used = make([]int32, n), make([]uint8, n), 0
	mask := uint64(n - 1)
	for i := range len(r.ends) {
		if !r.live(i) {
			continue
		}
		h := maphash.Bytes(r.seed, r.at(i))
		at := h & mask
		for r.slots[at] != 0 {
			at = (at + 1) & mask
		}
		r.slots[at], r.tags[at] = int32(i)+1, uint8(h>>56)
		r.used++
	}
}

// remove marks the live row of id dead, and reports its row.
func (r *rowIDs) remove(id string) (int32, bool) {
	at, _, ok := r.probe(id)
	if !ok {
		return 0, false
	}
	i := r.slots[at] - 1
	r.slots[at] = removed
	r.held--
	r.dead[i/64] |= 1 << (i % 64)
	return i, true
}
