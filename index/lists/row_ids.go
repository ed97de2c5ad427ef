package lists

import "hash/maphash"

// rowIDs are a report table's row ids, kept without pointers: the ids'
// bytes end to end in one array, and a map from each id's hash to its
// row. At a million conversations the ids as strings, and a map keyed by
// them, were 300 MB of the live heap (session 9's heap profile), every
// byte of it scanned by each garbage collection; here the garbage
// collector has nothing to follow.
//
// Two ids with one hash are told apart: an id whose hash a live row
// already holds is kept in clash, keyed by the id itself, and every
// lookup compares the bytes of the row it finds.
type rowIDs struct {
	seed  maphash.Seed
	bytes []byte
	ends  []uint32 // per row, where its id ends in bytes
	dead  []uint64 // a bit per row: removed
	byKey map[uint64]int32
	clash map[string]int32
}

func newRowIDs(rows int) rowIDs {
	return rowIDs{seed: maphash.MakeSeed(), ends: make([]uint32, 0, rows), byKey: make(map[uint64]int32, rows)}
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

// find is the live row of id.
func (r *rowIDs) find(id string) (int32, bool) {
	if i, ok := r.clash[id]; ok {
		return i, true
	}
	i, ok := r.byKey[maphash.String(r.seed, id)]
	if !ok || string(r.at(int(i))) != id {
		return 0, false
	}
	return i, true
}

// add appends a row for id, which no live row holds.
func (r *rowIDs) add(id string) int32 {
	i := int32(len(r.ends))
	r.bytes = append(r.bytes, id...)
	r.ends = append(r.ends, uint32(len(r.bytes)))
	if len(r.ends) > 64*len(r.dead) {
		r.dead = append(r.dead, 0)
	}
	key := maphash.String(r.seed, id)
	if _, taken := r.byKey[key]; taken {
		if r.clash == nil {
			r.clash = map[string]int32{}
		}
		r.clash[id] = i
		return i
	}
	r.byKey[key] = i
	return i
}

// remove marks the live row of id dead, and reports its row.
func (r *rowIDs) remove(id string) (int32, bool) {
	i, ok := r.find(id)
	if !ok {
		return 0, false
	}
	if _, clashed := r.clash[id]; clashed {
		delete(r.clash, id)
	} else {
		delete(r.byKey, maphash.String(r.seed, id))
	}
	r.dead[i/64] |= 1 << (i % 64)
	return i, true
}
