package lists

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRowIDsAgreeWithAMap adds and removes ids at random and checks every
// id against a plain map after each step.
func TestRowIDsAgreeWithAMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	ids := newRowIDs(0)
	want := map[string]int32{}
	for step := range 5000 {
		id := fmt.Sprintf("%d-%d", rnd.IntN(300), rnd.IntN(3))
		_, held := want[id]
		if held && rnd.IntN(2) == 0 {
			i, ok := ids.remove(id)
			require.True(t, ok, "step %d: remove %s", step, id)
			assert.Equal(t, want[id], i)
			assert.False(t, ids.live(int(i)))
			delete(want, id)
			continue
		}
		if !held {
			want[id] = ids.add(id)
		}
		for id, i := range want {
			got, ok := ids.find(id)
			require.True(t, ok, "step %d: find %s", step, id)
			require.Equal(t, i, got)
			require.True(t, ids.live(int(i)))
			require.Equal(t, id, string(ids.at(int(i))))
		}
	}
	_, ok := ids.find("absent")
	assert.False(t, ok)
	live := 0
	for i := range ids.len() {
		if ids.live(i) {
			live++
		}
	}
	assert.Equal(t, len(want), live)
}

// TestRowIDsTellMeetingHashesApart: three ids whose hashes name the same
// slot and carry the same tag make one run of slots; each is found by its
// own bytes, a probe goes on past a removed id's slot, and an id removed
// and added again gets a row of its own.
func TestRowIDsTellMeetingHashesApart(t *testing.T) {
	ids := newRowIDs(0)
	require.Len(t, ids.slots, 8)
	home := func(id string) uint64 { h := maphash.String(ids.seed, id); return h&7 | h>>56<<8 }
	var names []string
	for i := 0; len(names) < 3; i++ {
		if id := fmt.Sprint("id", i); home(id) == home("id0") {
			names = append(names, id)
		}
	}
	rows := map[string]int32{}
	for _, id := range names {
		rows[id] = ids.add(id)
	}
	for id, row := range rows {
		got, ok := ids.find(id)
		assert.True(t, ok, id)
		assert.Equal(t, row, got, id)
	}
	_, ok := ids.remove(names[1])
	require.True(t, ok)
	_, ok = ids.find(names[1])
	assert.False(t, ok)
	got, ok := ids.find(names[2])
	assert.True(t, ok, "found past the removed slot")
	assert.Equal(t, rows[names[2]], got)
	again := ids.add(names[1])
	assert.Equal(t, int32(3), again, "a new row")
	got, ok = ids.find(names[1])
	assert.True(t, ok)
	assert.Equal(t, again, got)
	assert.False(t, ids.live(int(rows[names[1]])), "its old row stays dead")
}

// TestRowIDsDropRemovedMarks: removing and adding ids over and over fills
// slots with removal marks; a rehash drops them, so the slots stay sized
// for the live rows.
func TestRowIDsDropRemovedMarks(t *testing.T) {
	ids := newRowIDs(0)
	for i := range 10_000 {
		id := fmt.Sprint(i)
		ids.add(id)
		if i >= 4 {
			_, ok := ids.remove(fmt.Sprint(i - 4))
			require.True(t, ok)
		}
	}
	assert.Equal(t, 4, ids.held)
	assert.LessOrEqual(t, len(ids.slots), 16, "slots for the 4 live rows, not the 10,000 added")
	for i := 10_000 - 4; i < 10_000; i++ {
		_, ok := ids.find(fmt.Sprint(i))
		assert.True(t, ok)
	}
}

// TestRowIDsReserve checks that ids added within a reservation find their
// rows without growing any array, from empty and from rows already held.
func TestRowIDsReserve(t *testing.T) {
	for _, held := range []int{0, 1, 100} {
		ids := newRowIDs(0)
		for i := range held {
			ids.add(fmt.Sprint("held-", i))
		}
		ids.reserve(1000, 1000*len("new-999"))
		slots, bytes, ends := len(ids.slots), cap(ids.bytes), cap(ids.ends)
		for i := range 1000 {
			ids.add(fmt.Sprintf("new-%03d", i))
		}
		assert.Equal(t, slots, len(ids.slots), "held %d: no rehash", held)
		assert.Equal(t, bytes, cap(ids.bytes), "held %d: bytes grew once", held)
		assert.Equal(t, ends, cap(ids.ends), "held %d: ends grew once", held)
		for i := range held {
			got, ok := ids.find(fmt.Sprint("held-", i))
			require.True(t, ok)
			assert.Equal(t, int32(i), got)
		}
		for i := range 1000 {
			got, ok := ids.find(fmt.Sprintf("new-%03d", i))
			require.True(t, ok)
			assert.Equal(t, int32(held+i), got)
		}
	}
}
