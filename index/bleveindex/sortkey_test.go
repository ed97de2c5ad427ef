package bleveindex

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSortKeyOrdersLikeNumbers: byte order of the keys is numeric order,
// across signs, zero, fractions and the magnitudes dates and ids have; a
// key reads back as its number, holds no 0xff (zap's doc-value separator)
// and is as short as its value allows.
func TestSortKeyOrdersLikeNumbers(t *testing.T) {
	values := []float64{math.Inf(-1), -math.MaxFloat64, -1e15, -250.5, -1, -0.25, -math.SmallestNonzeroFloat64, 0,
		math.SmallestNonzeroFloat64, 0.25, 1, 2, 10, 250.5, 100000, 100001, 1764000000000, 1764000000001, 1e15, math.MaxFloat64, math.Inf(1)}
	for i, v := range values {
		key := sortKey(v)
		back, ok := fromSortKey([]byte(key))
		assert.True(t, ok, "%v", v)
		assert.Equal(t, v, back)
		assert.NotContains(t, key, "\xff")
		assert.NotEmpty(t, key)
		if i > 0 {
			assert.Less(t, sortKey(values[i-1]), key, "%v before %v", values[i-1], v)
		}
	}
	for _, c := range []struct {
		v    float64
		size int
	}{{1, 3}, {3, 3}, {100000, 5}, {1764000000000, 7}, {1764000000001, 9}, {0.1, 10}, {-1, 10}} {
		assert.Len(t, sortKey(c.v), c.size, "%v", c.v)
	}
	for _, bad := range []string{"", "\x02", "\x01\x80", strings.Repeat("\x01", 11)} {
		_, ok := fromSortKey([]byte(bad))
		assert.False(t, ok, "%q", bad)
	}
}
