package lists

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVocabularyAgreesWithAMap interns keywords at random, repeats and the
// empty keyword among them, and checks every keyword against a plain map
// and list after each step. The words read early are kept and checked at
// the end: they view bytes the vocabulary has since outgrown many times.
// A new vocabulary holds the empty keyword, as noWord.
func TestVocabularyAgreesWithAMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	v := newVocabulary()
	ids := map[string]uint32{"": noWord}
	list := []string{""}
	var early []string
	for step := range 3000 {
		s := fmt.Sprintf("%d %s", rnd.IntN(1000), strings.Repeat("x", rnd.IntN(40)))
		if rnd.IntN(50) == 0 {
			s = ""
		}
		want, held := ids[s]
		if !held {
			want = uint32(len(list))
			ids[s] = want
			list = append(list, s)
		}
		got, found := v.find(s)
		require.Equal(t, held, found, "step %d: find %q before intern", step, s)
		if held {
			require.Equal(t, want, got)
		}
		require.Equal(t, want, v.intern(s), "step %d: intern %q", step, s)
		require.Equal(t, s, v.word(want))
		require.Equal(t, len(list), v.len())
		if step < 100 {
			early = append(early, v.word(want))
		}
	}
	for id, s := range list {
		assert.Equal(t, s, v.word(uint32(id)))
	}
	for _, s := range early {
		id, ok := v.find(s)
		require.True(t, ok)
		assert.Equal(t, list[id], s, "a word read at the start still reads the same")
	}
	_, ok := v.find("never interned")
	assert.False(t, ok)
}
