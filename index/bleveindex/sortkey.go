package bleveindex

import "math"

// A sort key is a number's one term where byte order must be numeric order:
// the sort twin's doc value (sortPrefix) and a Key number's term
// (index.Field.Key), so an equality is one term and a range a term range.
//
// Its bits are the IEEE bits with the sign flipped for positives and all
// bits flipped for negatives, which orders them as unsigned integers. They
// are written big-endian in groups of seven bits, one byte each (the first
// group holds the top bit alone), and trailing zero groups are dropped.
// Seven bits, because zap splits doc values on the byte 0xff; dropping the
// zeros keeps the order, because a shorter key is the longer one's prefix
// padded with the smallest byte. An integer's float ends in zeros, so an
// id in the hundred thousands takes five bytes and a date in milliseconds
// at most nine, where fixed-width hex took sixteen (the sort twins were
// about a twentieth of the index).

// sortKeyGroups is the most bytes a sort key has: 1 + 9×7 bits.
const sortKeyGroups = 10

// sortKey encodes v.
func sortKey(v float64) string {
	bits := math.Float64bits(v)
	if bits>>63 == 0 {
		bits |= 1 << 63
	} else {
		bits = ^bits
	}
	var b [sortKeyGroups]byte
	n := 1 // the first group stays, so no key is empty
	for i := range b {
		b[i] = byte(bits>>(63-7*i)) & 0x7f
		if b[i] != 0 {
			n = i + 1
		}
	}
	return string(b[:n])
}

// parseSortKey reads back the bits of a term sortKey wrote; anything else
// reads as 0, which no key encodes but a NaN with every bit set.
func parseSortKey(term []byte) uint64 {
	if len(term) == 0 || len(term) > sortKeyGroups || term[0] > 1 {
		return 0
	}
	var bits uint64
	for i, b := range term {
		if b > 0x7f {
			return 0
		}
		bits |= uint64(b) << (63 - 7*i)
	}
	return bits
}

// fromSortKey decodes sortKey.
func fromSortKey(term []byte) (float64, bool) {
	bits := parseSortKey(term)
	if bits == 0 {
		return 0, false
	}
	if bits>>63 == 1 {
		bits &^= 1 << 63
	} else {
		bits = ^bits
	}
	return math.Float64frombits(bits), true
}
