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

// ParseValueKey reads every string as ParseFloat does, values and errors.
func TestParseValueKeyIsParseFloat(t *testing.T) {
	for _, k := range []string{"0", "-0", "7", "-7", "007", "86400", "-86400", "123456789012345", "-123456789012345",
		"1234567890123456", "9007199254740993", "1.5", "-0.25", "1e3", "+3", "", "-", "--1", "1-", "abc", "inf", "-Inf", "NaN",
		"1_000", "0x10", " 1", "1 "} {
		want, wantErr := strconv.ParseFloat(k, 64)
		got, err := ParseValueKey(k)
		if wantErr != nil {
			assert.Error(t, err, "%q", k)
			continue
		}
		assert.NoError(t, err, "%q", k)
		if math.IsNaN(want) {
			assert.True(t, math.IsNaN(got), "%q", k)
			continue
		}
		assert.Equal(t, math.Float64bits(want), math.Float64bits(got), "%q: %v, want %v", k, got, want)
	}
}
