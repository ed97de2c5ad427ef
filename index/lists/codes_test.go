package lists

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
)

// TestNumbersComeBackAsTheyWent: every number a report row holds reads
// back with its bits, whether its code holds it or wide does, and a
// compaction keeps the wide values of live rows only.
func TestNumbersComeBackAsTheyWent(t *testing.T) {
	s := schemas[index.Messages]
	created, response := s.numbers["createdAt"], s.numbers["responseSeconds"]
	cases := []struct {
		name  string
		slot  int
		value float64
		wide  bool
	}{
		{"zero", response, 0, false},
		{"a count", response, 42, false},
		{"the largest code", response, 1<<31 - 1, false},
		{"2^31", response, 1 << 31, true},
		{"a fraction", response, 2.5, true},
		{"a negative", response, -3, true},
		{"minus zero", response, math.Copysign(0, -1), true},
		{"not a number", response, math.NaN(), true},
		{"infinity", response, math.Inf(1), true},
		{"a time in whole seconds", created, 1_764_547_200_000, false},
		{"a time with milliseconds", created, 1_764_547_200_123, true},
		{"the last second a code holds", created, (1<<31 - 1) * 1000, false},
		{"a time past it", created, 1 << 31 * 1000, true},
		{"milliseconds under a second", created, 999, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := newTable(s)
			code := tbl.encode(c.slot, c.value)
			require.Equal(t, c.wide, code&wideBit != 0)
			require.Equal(t, math.Float64bits(c.value), math.Float64bits(tbl.value(c.slot, code)))
		})
	}

	// One row per case; the odd ones removed, then the table compacted.
	tbl := newTable(s)
	field := map[int]string{created: "createdAt", response: "responseSeconds"}
	for i, c := range cases {
		d := index.NewDocument(fmt.Sprint(i), 1)
		d.Numbers[field[c.slot]] = []float64{c.value}
		tbl.put(d, func(string) uint32 { return 0 })
	}
	wide := 0
	for i, c := range cases {
		if i%2 == 1 {
			tbl.ids.remove(fmt.Sprint(i))
			tbl.dead++
		} else if c.wide {
			wide++
		}
	}
	tbl.compact()
	require.Len(t, tbl.wide, wide)
	require.Equal(t, (len(cases)+1)/2, tbl.size())
	for i := range int32(tbl.size()) {
		c := cases[2*i]
		require.Equal(t, fmt.Sprint(2*i), string(tbl.ids.at(int(i))))
		got := tbl.numbersOf(nil, i, c.slot)
		require.Len(t, got, 1)
		require.Equal(t, math.Float64bits(c.value), math.Float64bits(got[0]), c.name)
	}
}
