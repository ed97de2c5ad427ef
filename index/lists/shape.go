package lists

import "encoding/binary"

// shapes are the distinct offset vectors of a table's rows, each kept once.
type shapes struct {
	width int               // offsets per shape
	offs  []uint16          // shape k is offs[k*width:][:width]
	index map[string]uint32 // a shape's offsets, little-endian, to k
	key   []byte            // scratch for lookups
}

func newShapes(width int) shapes { return shapes{width: width, index: map[string]uint32{}} }

// at is shape k's offsets.
func (s *shapes) at(k uint32) []uint16 { return s.offs[int(k)*s.width:][:s.width] }

// of is the number of the shape offs, added if new.
func (s *shapes) of(offs []uint16) uint32 {
	s.key = s.key[:0]
	for _, o := range offs {
		s.key = binary.LittleEndian.AppendUint16(s.key, o)
	}
	if k, ok := s.index[string(s.key)]; ok {
		return k
	}
	k := uint32(len(s.index))
	s.index[string(s.key)] = k
	s.offs = append(s.offs, offs...)
	return k
}
