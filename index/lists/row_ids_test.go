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

// TestRowIDsTellClashingHashesApart: an id whose hash a live row holds is
// found, removed and found no more by its own bytes, and the row holding
// the hash is untouched. The clash is planted: the hash map is made to
// say that b's hash is a's row.
func TestRowIDsTellClashingHashesApart(t *testing.T) {
	ids := newRowIDs(0)
	a := ids.add("a")
	ids.byKey[maphash.String(ids.seed, "b")] = a
	_, ok := ids.find("b")
	assert.False(t, ok, "the row found by b's hash is a's: its bytes say so")
	b := ids.add("b")
	assert.Equal(t, map[string]int32{"b": b}, ids.clash)
	for id, row := range map[string]int32{"a": a, "b": b} {
		got, ok := ids.find(id)
		assert.True(t, ok, id)
		assert.Equal(t, row, got, id)
	}
	_, ok = ids.remove("b")
	assert.True(t, ok)
	assert.Empty(t, ids.clash)
	_, ok = ids.find("b")
	assert.False(t, ok)
	got, ok := ids.find("a")
	assert.True(t, ok)
	assert.Equal(t, a, got)
}
