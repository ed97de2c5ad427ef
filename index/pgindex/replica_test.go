package pgindex

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/query"
)

// TestReplicatedReadsItsWrites applies 200 documents one batch at a time
// and searches for each at once through a streaming replica: every search
// finds its document, and the replica answers most of them (it replays a
// loopback primary's WAL within the wait). A read database that is a
// primary is refused, and with no time to wait a lagging replica hands the
// read to the primary.
func TestReplicatedReadsItsWrites(t *testing.T) {
	ctx := context.Background()
	primaryURL, replicaURL := pgtest.Replicated(t)
	primary, err := Open(ctx, primaryURL, Options{})
	require.NoError(t, err)
	_, err = OpenReplicated(ctx, primary, primaryURL)
	assert.ErrorIs(t, err, ErrNotReplica)

	r, err := OpenReplicated(ctx, primary, replicaURL)
	require.NoError(t, err)
	defer r.Close()
	const pairs = 200
	writeThenFind(t, r, r, pairs)
	t.Logf("reads on the replica: %d, on the primary: %d", r.ReplicaReads.Load(), r.PrimaryReads.Load())
	assert.Equal(t, int64(pairs), r.ReplicaReads.Load()+r.PrimaryReads.Load())
	assert.Greater(t, r.ReplicaReads.Load(), int64(pairs/2), "the replica answers most reads")

	r.Wait = 0
	r.written.Store(r.replayed.Load() + 1<<40) // a write the replica cannot have yet
	before := r.PrimaryReads.Load()
	_, err = r.Search(ctx, index.Request{Kind: index.Customers, Company: 1, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, before+1, r.PrimaryReads.Load(), "the primary answers when the replica is behind")
}

// TestReplicatedReadsAnotherNodesWrites: documents written by another
// node (another engine on the primary, as each node writes its own
// writes' rows) are found at once through this node's replicated reads:
// a read waits for the replica to replay what the primary holds when the
// read starts, whichever node wrote it.
func TestReplicatedReadsAnotherNodesWrites(t *testing.T) {
	ctx := context.Background()
	primaryURL, replicaURL := pgtest.Replicated(t)
	other, err := Open(ctx, primaryURL, Options{})
	require.NoError(t, err)
	defer other.Close()
	primary, err := Open(ctx, primaryURL, Options{})
	require.NoError(t, err)
	r, err := OpenReplicated(ctx, primary, replicaURL)
	require.NoError(t, err)
	defer r.Close()
	const pairs = 200
	writeThenFind(t, other, r, pairs)
	assert.Greater(t, r.ReplicaReads.Load(), int64(pairs/2), "the replica answers most reads")
}

// writeThenFind writes pairs customer documents through writer, one batch
// each, and searches for each through reader right after its write: each
// must be found.
func writeThenFind(t *testing.T, writer index.Engine, reader index.Engine, pairs int) {
	t.Helper()
	ctx := context.Background()
	for i := range pairs {
		word := fmt.Sprintf("word%03d", i)
		require.NoError(t, writer.Apply(ctx, index.Batch{Kind: index.Customers, Company: 1,
			Upserts: []index.Document{doc(fmt.Sprint(i+1), 1, nil, map[string][]string{"firstName": {word}}, float64(i+1))}}, nil))
		res, err := reader.Search(ctx, index.Request{Kind: index.Customers, Company: 1, Query: query.Match{Field: "firstName", Text: word},
			Sort: []index.Sort{{Field: "id"}}, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, index.Result{IDs: []string{fmt.Sprint(i + 1)}, Total: 1}, res, "pair %d", i)
	}
}
