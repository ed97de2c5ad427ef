package index

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ValueKey spells every number as FormatFloat does, whole or not.
func TestValueKeyIsFormatFloat(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 7, 99, 100, 86400, -86400, 1.5, -0.25, 1e-7, 123456.789,
		1 << 53, -(1 << 53), 1<<53 + 2, -(1<<53 + 2), 1e20, -1e20, 1.7e308, math.MaxInt64, math.Inf(1), math.Inf(-1), math.NaN()} {
		assert.Equal(t, strconv.FormatFloat(v, 'f', -1, 64), ValueKey(v), "%v", v)
	}
}
