package storage

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/klauspost/compress/zstd"
	"go.etcd.io/bbolt"
)

// The stored form of a record is its JSON, compressed with zstd against a
// dictionary when that pays. The first byte says which form follows:
//
//   - tagZstd1: a zstd frame made with dictionary1.jsonl;
//   - anything else: plain JSON. Values written before compression began
//     (always `{`, `[` or `"`) and values too small to gain are read so.
//
// A JSON text never starts with a control byte, so the forms cannot be
// mistaken for one another.
const tagZstd1 byte = 0x01

// minCompressed is the size below which a value is kept as plain JSON: an
// outbox entry or a tiny record would save a few bytes at best, for a
// compression on the hot path of every write.
const minCompressed = 64

// plainBuckets hold the records nearly every request reads (the caller's
// token, grant, app, user and company, and the mailboxes a conversation is
// rendered with): few, small, and read far more often than written, so
// they stay plain JSON. Decompressing a small zstd frame costs several
// times the JSON read behind it (BenchmarkCodec), and it was a tenth of
// the CPU of a one-hit search at 1M. Open rewrites their values stored
// compressed by an earlier Parley (replain).
var plainBuckets = map[string]bool{}

func init() {
	for _, b := range [][]byte{bucketTokens, bucketGrants, bucketApps, bucketUsers, bucketCompanies, bucketMailboxes} {
		plainBuckets[string(b)] = true
	}
}

// replain rewrites as plain JSON the values of plainBuckets an earlier
// Parley stored compressed. Plain values are left alone, so after its
// first run it only reads. A value that does not decompress is left as it
// is, for decode to report where it is read.
func replain(tx *bbolt.Tx) error {
	for name := range plainBuckets {
		b := tx.Bucket([]byte(name))
		var keys, values [][]byte
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if !packed(v) {
				continue
			}
			if plain, err := unpack(v); err == nil {
				keys, values = append(keys, bytes.Clone(k)), append(values, plain)
			}
		}
		for i, k := range keys {
			if err := b.Put(k, values[i]); err != nil {
				return fmt.Errorf("storage: replain %s: %w", name, err)
			}
		}
	}
	return nil
}

// dictionary1 primes zstd with the field names and common values of
// Parley's records, which a small record cannot amortise on its own: with
// it a thread shrinks to about half its JSON, without it to two thirds.
// It must never change: values written with it are read with it forever.
// A better dictionary gets a new file and a new tag.
//
//go:embed dictionary1.jsonl
var dictionary1 []byte

// zstdDictionary1ID is the dictionary id written in each frame's header.
const zstdDictionary1ID = 1

// encoder and decoder are shared by every transaction: EncodeAll and
// DecodeAll are safe for concurrent use, and building either is costly.
var (
	encoder = newEncoder()
	decoder = newDecoder()
)

func newEncoder() *zstd.Encoder {
	// SpeedFastest: with the dictionary, SpeedDefault stored the bench's
	// threads no smaller, and its conversations 1% smaller, for about
	// three times the CPU.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithLowerEncoderMem(true),
		zstd.WithEncoderDictRaw(zstdDictionary1ID, dictionary1))
	if err != nil {
		panic(fmt.Sprintf("storage: zstd encoder: %v", err)) // only for invalid options
	}
	return enc
}

// maxDecoded bounds a decompressed value far above any record (a request
// body is at most 14 MB), so a damaged frame header claiming a huge size
// is an error rather than an allocation of that size.
const maxDecoded = 1 << 30

func newDecoder() *zstd.Decoder {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxDecoded),
		zstd.WithDecoderDictRaw(zstdDictionary1ID, dictionary1))
	if err != nil {
		panic(fmt.Sprintf("storage: zstd decoder: %v", err)) // only for invalid options
	}
	return dec
}

// encode is the one way a record becomes a stored value of bucket.
func encode(bucket []byte, v any) ([]byte, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("storage: encode %s: %w", bucket, err)
	}
	if len(plain) < minCompressed || plainBuckets[string(bucket)] {
		return plain, nil
	}
	frame := encoder.EncodeAll(plain, append(make([]byte, 0, 1+len(plain)/2), tagZstd1))
	if len(frame) >= len(plain) {
		return plain, nil
	}
	return frame, nil
}

// decode is the one way a stored value of bucket becomes a record again,
// whichever form encode (or a Parley from before compression) wrote.
func decode(bucket, data []byte, v any) error {
	plain, err := unpack(data)
	if err != nil {
		return fmt.Errorf("storage: decode %s: decompress: %w", bucket, err)
	}
	if err := unmarshal(plain, v); err != nil {
		return fmt.Errorf("storage: decode %s: %w", bucket, err)
	}
	return nil
}

// packed reports whether a stored value is compressed.
func packed(data []byte) bool { return len(data) > 0 && data[0] == tagZstd1 }

// unpack is a stored value's JSON, whichever form encode wrote.
func unpack(data []byte) ([]byte, error) {
	if !packed(data) {
		return data, nil
	}
	return decoder.DecodeAll(data[1:], nil)
}

// unmarshal reads a record's JSON with goccy/go-json, a drop-in decoder
// about eight times faster than encoding/json on a thread (BenchmarkCodec):
// decoding records was two fifths of a GET of one conversation. The
// values are written by encoding/json, which stays the reference: should
// goccy fail (or panic) on one of them, encoding/json reads it instead, so
// no value encoding/json can read becomes unreadable. In test binaries
// every value goccy reads is read again by encoding/json and compared, so
// the whole suite checks that the two agree on every record it stores.
func unmarshal(plain []byte, v any) error {
	if fastUnmarshal(plain, v) != nil {
		reflect.ValueOf(v).Elem().SetZero() // nothing goccy half-filled stays
		return json.Unmarshal(plain, v)
	}
	if checkDecodes {
		checkDecoding(plain, v)
	}
	return nil
}

// checkDecodes is on in test binaries (benchmarks turn it off, with
// CheckDecodes when they are in another package).
var checkDecodes = testing.Testing()

// CheckDecodes turns off (or back on) the check that encoding/json reads
// every value as goccy does, which test binaries run and the real
// binaries do not: a benchmark in a test binary turns it off so that its
// figures are those of parley itself. It returns what restores the check
// as it was. Call it before any store is in use.
func CheckDecodes(on bool) (restore func()) {
	was := checkDecodes
	checkDecodes = on
	return func() { checkDecodes = was }
}

// errDecoderPanicked stands for a panic in goccy's decoder.
var errDecoderPanicked = errors.New("storage: goccy/go-json panicked")

func fastUnmarshal(plain []byte, v any) (err error) {
	defer func() {
		if recover() != nil {
			err = errDecoderPanicked
		}
	}()
	return gojson.Unmarshal(plain, v)
}

// checkDecoding panics when encoding/json decodes plain into other than
// decoded: a test binary's way to fail loudly wherever it happens.
func checkDecoding(plain []byte, decoded any) {
	reference := reflect.New(reflect.TypeOf(decoded).Elem())
	if err := json.Unmarshal(plain, reference.Interface()); err != nil {
		panic(fmt.Sprintf("storage: goccy/go-json read a %T that encoding/json cannot: %v\n%s", decoded, err, plain))
	}
	if !reflect.DeepEqual(reference.Interface(), decoded) {
		panic(fmt.Sprintf("storage: goccy/go-json and encoding/json read a %T differently:\n%s\ngoccy: %#v\nencoding/json: %#v",
			decoded, plain, decoded, reference.Interface()))
	}
}
