package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

var codecClock = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// words makes n words of prose from a fixed seed, so large values are
// compressible as real text is, and the same on every run.
func words(n int) string {
	vocabulary := strings.Fields("the order refund shipping arrived late please help invoice account password reset thanks " +
		"we have sent a replacement your package tracking number is attached let us know if anything else comes up")
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		out[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(out, " ")
}

// noise is n printable bytes from a fixed seed that no dictionary helps.
func noise(n int) string {
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('!' + r.IntN('~'-'!'))
		if b[i] == '"' || b[i] == '\\' {
			b[i] = 'x'
		}
	}
	return string(b)
}

func TestCodecRoundTrip(t *testing.T) {
	thread := func(body string) *parley.Thread {
		return &parley.Thread{ID: 12, ConversationID: 3, CompanyID: 1, Type: parley.ThreadCustomer, Status: parley.StatusActive,
			State: parley.ThreadPublished, Body: body, CustomerID: 9, CreatedBy: parley.Party{ID: 9, Type: parley.PartyCustomer},
			CreatedAt: codecClock}
	}
	tests := []struct {
		name       string
		value      any
		compressed bool
		// smallerThan bounds the stored size as a fraction of the JSON.
		smallerThan float64
	}{
		{name: "tiny outbox entry stays JSON", value: &OutboxEntry{Kind: KindConversation, ID: 7}},
		{name: "empty record", value: &parley.Tag{}, compressed: true, smallerThan: 0.8},
		{name: "empty object", value: &struct{}{}},
		{name: "short thread", value: thread("Where is my order?"), compressed: true, smallerThan: 0.6},
		{name: "typical thread", value: thread(words(80)), compressed: true, smallerThan: 0.6},
		{name: "customer", value: &parley.Customer{ID: 4, CompanyID: 1, FirstName: "Ada", LastName: "Lovelace",
			Emails: []parley.Entry{{ID: 1, Value: "ada@example.com", Type: "work"}}, CreatedAt: codecClock, UpdatedAt: codecClock},
			compressed: true, smallerThan: 0.7},
		{name: "large thread", value: thread(words(200_000)), compressed: true, smallerThan: 0.5},
		{name: "incompressible stays JSON", value: &OutboxEntry{Kind: KindChat, Ref: noise(80)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, err := json.Marshal(tt.value)
			require.NoError(t, err)
			stored, err := encode(bucketThreads, tt.value)
			require.NoError(t, err)
			if tt.compressed {
				assert.Equal(t, tagZstd1, stored[0], "compressed")
				assert.Less(t, float64(len(stored)), tt.smallerThan*float64(len(plain)), "stored %d bytes of %d", len(stored), len(plain))
			} else {
				assert.Equal(t, plain, stored, "kept as plain JSON")
			}
			back := reflect.New(reflect.TypeOf(tt.value).Elem()).Interface()
			require.NoError(t, decode(bucketThreads, stored, back))
			assert.Equal(t, tt.value, back)
		})
	}
}

// TestCodecReadsPlainJSON: values written before compression began are
// plain JSON and read as they always did.
func TestCodecReadsPlainJSON(t *testing.T) {
	tests := []struct {
		name   string
		stored string
		into   any
		want   any
	}{
		{name: "object", stored: `{"id":5,"companyId":1,"name":"vip"}`, into: new(parley.Tag), want: &parley.Tag{ID: 5, CompanyID: 1, Name: "vip"}},
		{name: "array", stored: `[1,2,3]`, into: new([]int64), want: &[]int64{1, 2, 3}},
		{name: "string", stored: `"plain"`, into: new(string), want: ptr("plain")},
		{name: "large object", stored: fmt.Sprintf(`{"id":1,"body":%q}`, words(50_000)), into: new(parley.Thread),
			want: &parley.Thread{ID: 1, Body: words(50_000)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, decode(bucketThreads, []byte(tt.stored), tt.into))
			assert.Equal(t, tt.want, tt.into)
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestCodecRefusesDamagedValues: a damaged value is an error naming its
// bucket, never a panic or a half-read record.
func TestCodecRefusesDamagedValues(t *testing.T) {
	good, err := encode(bucketThreads, &parley.Thread{ID: 1, Body: words(100)})
	require.NoError(t, err)
	require.Equal(t, tagZstd1, good[0])
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0xff
	tests := []struct {
		name   string
		stored []byte
	}{
		{name: "empty", stored: []byte{}},
		{name: "tag alone", stored: []byte{tagZstd1}},
		{name: "truncated frame", stored: good[:len(good)-5]},
		{name: "flipped byte", stored: flipped},
		{name: "unknown tag", stored: append([]byte{0x02}, good[1:]...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decode(bucketThreads, tt.stored, new(parley.Thread))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "decode threads")
		})
	}
}

// TestDictionaryNeverChanges pins dictionary1.jsonl: every value written
// with it needs it, byte for byte, to be read again.
func TestDictionaryNeverChanges(t *testing.T) {
	sum := sha256.Sum256(dictionary1)
	assert.Equal(t, "e130693d030e219a63cf06b8cfd969d9b743eb6d1d1ee6e1828dad883275c02d", hex.EncodeToString(sum[:]),
		"dictionary1.jsonl changed: values already stored cannot be read; put a new dictionary in a new file under a new tag")
}

// TestPlainJSONDatabaseStillReads writes records as Parley wrote them
// before compression (plain JSON straight into bbolt), then reads them
// through every path that decodes values, rewrites one and adds one.
func TestPlainJSONDatabaseStillReads(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "parley.db"), Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })

	conv := &parley.Conversation{ID: 1, CompanyID: 1, Number: 1, Type: parley.ConversationType("email"), MailboxID: 2,
		Status: parley.StatusActive, State: parley.StatePublished, Subject: "Refund", CreatedAt: codecClock,
		ModifiedAt: codecClock, CustomerID: 3, ThreadCount: 2, Preview: "Please refund my order"}
	threads := []parley.Thread{
		{ID: 1, ConversationID: 1, CompanyID: 1, Type: parley.ThreadCustomer, State: parley.ThreadPublished,
			Body: "Please refund my order", CustomerID: 3, CreatedBy: parley.Party{ID: 3, Type: parley.PartyCustomer}, CreatedAt: codecClock},
		{ID: 2, ConversationID: 1, CompanyID: 1, Type: parley.ThreadMessage, State: parley.ThreadPublished,
			Body: words(60), CreatedBy: parley.Party{ID: 1, Type: parley.PartyUser}, CreatedAt: codecClock.Add(time.Hour)},
	}
	customer := &parley.Customer{ID: 3, CompanyID: 1, FirstName: "Ada", CreatedAt: codecClock, UpdatedAt: codecClock}
	later := parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: 1, ConversationID: 1, At: codecClock}
	event := parley.Event{Kind: "convo.created", CompanyID: 1, ResourceID: "1", At: codecClock}
	entry := OutboxEntry{Kind: KindConversation, ID: 1}

	require.NoError(t, db.bolt.Update(func(tx *bbolt.Tx) error {
		raw := []struct {
			bucket, key []byte
			value       any
		}{
			{bucketConversations, key(1), conv},
			{bucketThreads, key2(1, 1), threads[0]},
			{bucketThreads, key2(1, 2), threads[1]},
			{bucketCustomers, key(3), customer},
			{bucketLater, laterKey(later.At, later.Kind, later.ID), later},
			{bucketEvents, key(1), event},
			{bucketOutbox, key(1), entry},
		}
		for _, r := range raw {
			data, err := json.Marshal(r.value)
			if err != nil {
				return err
			}
			if err := tx.Bucket(r.bucket).Put(r.key, data); err != nil {
				return err
			}
		}
		return nil
	}))

	require.NoError(t, db.View(func(tx *Tx) error {
		got, err := tx.Conversation(1, 1)
		require.NoError(t, err)
		assert.Equal(t, conv, got)
		gotThreads, err := tx.Threads(1, 1)
		require.NoError(t, err)
		assert.Equal(t, threads, gotThreads)
		gotCustomer, err := tx.Customer(1, 3)
		require.NoError(t, err)
		assert.Equal(t, customer, gotCustomer)
		due, err := tx.DueLater(codecClock)
		require.NoError(t, err)
		assert.Equal(t, []parley.LaterItem{later}, due)
		events, err := tx.PendingEvents(10)
		require.NoError(t, err)
		assert.Equal(t, []parley.RecordedEvent{{Seq: 1, Event: event}}, events)
		var each []*parley.Conversation
		require.NoError(t, tx.EachConversation(func(c *parley.Conversation) error { each = append(each, c); return nil }))
		assert.Equal(t, []*parley.Conversation{conv}, each)
		return nil
	}))
	outbox, err := db.Outbox(0, 10)
	require.NoError(t, err)
	assert.Equal(t, []OutboxEntry{{Seq: 1, Kind: KindConversation, ID: 1}}, outbox)

	// A new thread is stored compressed beside the plain ones; all three read.
	added := parley.Thread{ID: 3, ConversationID: 1, CompanyID: 1, Type: parley.ThreadNote, State: parley.ThreadPublished,
		Body: words(60), CreatedBy: parley.Party{ID: 1, Type: parley.PartyUser}, CreatedAt: codecClock.Add(2 * time.Hour)}
	_, err = db.Update(func(tx *Tx) error { return tx.PutThread(&added) })
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *Tx) error {
		assert.Equal(t, tagZstd1, tx.tx.Bucket(bucketThreads).Get(key2(1, added.ID))[0], "new values are compressed")
		assert.Equal(t, byte('{'), tx.tx.Bucket(bucketThreads).Get(key2(1, 1))[0], "old values are not rewritten by reading")
		gotThreads, err := tx.Threads(1, 1)
		require.NoError(t, err)
		assert.Equal(t, append(threads, added), gotThreads)
		return nil
	}))
}

// TestPlainBuckets: the records every request reads are stored as plain
// JSON, and Open rewrites the ones an earlier Parley compressed.
func TestPlainBuckets(t *testing.T) {
	user := &parley.User{ID: 2, CompanyID: 1, FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com",
		Role: parley.RoleOwner, Timezone: "America/New_York", CreatedAt: codecClock, UpdatedAt: codecClock}
	plain, err := json.Marshal(user)
	require.NoError(t, err)
	require.Greater(t, len(plain), minCompressed, "large enough that any other bucket compresses it")
	for name := range plainBuckets {
		stored, err := encode([]byte(name), user)
		require.NoError(t, err)
		assert.Equal(t, plain, stored, name)
	}

	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(path, Options{NoSync: true})
	require.NoError(t, err)
	compressed, err := encode(bucketThreads, user) // as an earlier Parley stored users
	require.NoError(t, err)
	require.Equal(t, tagZstd1, compressed[0])
	damaged := append([]byte(nil), compressed[:len(compressed)-5]...)
	other := *user
	other.ID, other.FirstName = 3, "Ada"
	otherPlain, err := json.Marshal(&other)
	require.NoError(t, err)
	require.NoError(t, db.bolt.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketUsers)
		return errors.Join(b.Put(key(2), compressed), b.Put(key(3), otherPlain), b.Put(key(4), damaged),
			tx.Bucket(bucketThreads).Put(key2(1, 1), compressed))
	}))
	require.NoError(t, db.Close())

	for range 2 { // the second Open finds nothing left to rewrite
		db, err = Open(path, Options{NoSync: true})
		require.NoError(t, err)
		require.NoError(t, db.View(func(tx *Tx) error {
			users := tx.tx.Bucket(bucketUsers)
			assert.Equal(t, plain, users.Get(key(2)), "rewritten plain")
			assert.Equal(t, otherPlain, users.Get(key(3)), "plain already")
			assert.Equal(t, damaged, users.Get(key(4)), "a damaged value is left for decode to report")
			assert.Equal(t, compressed, tx.tx.Bucket(bucketThreads).Get(key2(1, 1)), "other buckets stay compressed")
			got, err := tx.User(1, 2)
			require.NoError(t, err)
			assert.Equal(t, user, got)
			_, err = tx.User(1, 4)
			assert.ErrorContains(t, err, "decode users")
			return nil
		}))
		require.NoError(t, db.Close())
	}
}

// BenchmarkCodec prices compression per record against the plain JSON it
// replaced: go test ./storage -run '^$' -bench Codec.
func BenchmarkCodec(b *testing.B) {
	checkDecodes = false // the price of decoding alone
	defer func() { checkDecodes = true }()
	thread := &parley.Thread{ID: 12, ConversationID: 3, CompanyID: 1, Type: parley.ThreadCustomer, Status: parley.StatusActive,
		State: parley.ThreadPublished, Body: words(80), CustomerID: 9, CreatedBy: parley.Party{ID: 9, Type: parley.PartyCustomer},
		CreatedAt: codecClock}
	plain, err := json.Marshal(thread)
	require.NoError(b, err)
	stored, err := encode(bucketThreads, thread)
	require.NoError(b, err)
	b.Run("encode/json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(thread)
		}
	})
	b.Run("encode/codec", func(b *testing.B) {
		for b.Loop() {
			_, _ = encode(bucketThreads, thread)
		}
	})
	b.Run("decode/json", func(b *testing.B) {
		for b.Loop() {
			_ = json.Unmarshal(plain, new(parley.Thread))
		}
	})
	b.Run("decode/codec", func(b *testing.B) {
		for b.Loop() {
			_ = decode(bucketThreads, stored, new(parley.Thread))
		}
	})
	// A user, read by every request: compressed as a thread is, and plain
	// as plainBuckets keep it.
	user := &parley.User{ID: 2, CompanyID: 1, FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com",
		Role: parley.RoleOwner, Timezone: "America/New_York", CreatedAt: codecClock, UpdatedAt: codecClock}
	packedUser, err := encode(bucketThreads, user)
	require.NoError(b, err)
	plainUser, err := encode(bucketUsers, user)
	require.NoError(b, err)
	b.Run("decode/user-compressed", func(b *testing.B) {
		for b.Loop() {
			_ = decode(bucketUsers, packedUser, new(parley.User))
		}
	})
	b.Run("decode/user-plain", func(b *testing.B) {
		for b.Loop() {
			_ = decode(bucketUsers, plainUser, new(parley.User))
		}
	})
}

// TestDecodingIsCrossChecked: in test binaries a value goccy reads
// differently from encoding/json stops the test where it is read, and a
// value neither can read is an error, not a panic.
func TestDecodingIsCrossChecked(t *testing.T) {
	assert.Panics(t, func() { checkDecoding([]byte(`{"id":1}`), &parley.Thread{ID: 2}) }, "a disagreement")
	assert.NotPanics(t, func() { checkDecoding([]byte(`{"id":1}`), &parley.Thread{ID: 1}) })
	var th parley.Thread
	require.NoError(t, unmarshal([]byte(`{"id":7,"body":"hi"}`), &th))
	assert.Equal(t, parley.Thread{ID: 7, Body: "hi"}, th)
	assert.Error(t, unmarshal([]byte(`{"id":`), new(parley.Thread)))
	assert.Error(t, unmarshal([]byte(`{"id":"seven"}`), new(parley.Thread)))
}
