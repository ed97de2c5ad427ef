package lists

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
)

// TestRowsShareTheirShapes: rows with the same fields and as many values
// each keep one shape between them, rows that differ get their own, and
// every row reads back its own values, before and after a compaction.
func TestRowsShareTheirShapes(t *testing.T) {
	tbl := newTable(schemas[index.Messages])
	words := map[string]uint32{}
	intern := func(w string) uint32 {
		if _, ok := words[w]; !ok {
			words[w] = uint32(len(words))
		}
		return words[w]
	}
	doc := func(i int) index.Document {
		d := index.NewDocument(fmt.Sprint("m", i), 1)
		d.Numbers["createdAt"] = []float64{float64(i)}
		d.Keywords["from"] = []string{"user"}
		switch i % 3 { // three shapes
		case 1:
			d.Numbers["responseSeconds"] = []float64{float64(i), float64(i + 1)}
		case 2:
			d.Keywords["tag"] = []string{"a", fmt.Sprint("t", i)}
		}
		return d
	}
	const rows = 3000
	for i := range rows {
		tbl.put(doc(i), intern)
	}
	require.Len(t, tbl.shapes.index, 3)
	check := func() {
		t.Helper()
		created, response := tbl.s.numbers["createdAt"], tbl.s.numbers["responseSeconds"]
		tag := tbl.s.words["tag"]
		for i := range int32(tbl.size()) {
			if !tbl.live(int(i)) {
				continue
			}
			var n int
			_, err := fmt.Sscanf(string(tbl.ids.at(int(i))), "m%d", &n)
			require.NoError(t, err)
			d := doc(n)
			require.Equal(t, d.Numbers["createdAt"], tbl.numbersOf(nil, i, created))
			require.Equal(t, append([]float64{}, d.Numbers["responseSeconds"]...), append([]float64{}, tbl.numbersOf(nil, i, response)...))
			wantTags := []uint32{}
			for _, w := range d.Keywords["tag"] {
				wantTags = append(wantTags, words[w])
			}
			require.Equal(t, wantTags, append([]uint32{}, tbl.wordsOf(i, tag)...))
		}
	}
	check()
	for i := range rows { // the rows of two shapes; the table compacts on the way
		if i%3 != 2 {
			tbl.remove(fmt.Sprint("m", i))
		}
	}
	check()
	tbl.compact()
	require.Equal(t, rows/3, tbl.size())
	require.Len(t, tbl.shapes.index, 1, "a compacted table holds the shapes of its rows only")
	check()
}
