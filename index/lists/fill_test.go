package lists

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/storage"
)

// fillStore is a store of three conversations, ids 1 to 3, for Load.
func fillStore(t *testing.T) *storage.DB {
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Update(func(tx *storage.Tx) error {
		for range 3 {
			if err := tx.PutConversation(&parley.Conversation{CompanyID: 1, CustomerID: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	return db
}

// message is the report row document of conversation id's one message,
// created at createdAt.
func message(id int64, createdAt float64) index.Document {
	d := index.NewDocument("m"+strconv.FormatInt(id, 10), 1)
	d.Numbers["createdAt"] = []float64{createdAt}
	return d
}

// byCreatedAt counts company 1's messages created in [0, 1.5) and [1.5, 3).
var byCreatedAt = index.AggregateRequest{Kind: index.Messages, Company: 1, By: "createdAt", Edges: []float64{0, 1.5, 3}}

// TestFillLeavesAppliedDocumentsAlone: while Load fills the report rows
// from the store as it was, the rows answer nothing, and the documents
// Apply puts or deletes meanwhile are not overwritten by the fill's older
// ones.
func TestFillLeavesAppliedDocumentsAlone(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	project := Projection{
		List: func(parley.Tx, *parley.Conversation) (index.Document, bool) { return index.Document{}, false },
		Conversation: func(_ parley.Tx, c *parley.Conversation, yield func(index.Kind, index.Document)) error {
			if c.ID == 1 {
				close(started)
				<-release
			}
			yield(index.Messages, message(c.ID, 1)) // the store's state: every message at 1
			return nil
		},
		Chat: func(parley.Tx, string) (index.Document, bool, error) { return index.Document{}, false, nil },
	}
	e := New()
	require.NoError(t, e.Load(fillStore(t).Store(), project))
	<-started
	applyDuringFill(t, e, release)
}

// TestFailedFillAnswersNothing: when the fill fails, the report rows stay
// unused and no snapshot is saved from them.
func TestFailedFillAnswersNothing(t *testing.T) {
	broken := errors.New("a thread does not decode")
	project := Projection{
		List: func(parley.Tx, *parley.Conversation) (index.Document, bool) { return index.Document{}, false },
		Conversation: func(parley.Tx, *parley.Conversation, func(index.Kind, index.Document)) error {
			return broken
		},
		Chat: func(parley.Tx, string) (index.Document, bool, error) { return index.Document{}, false, nil },
	}
	e := New()
	require.NoError(t, e.Load(fillStore(t).Store(), project))
	assert.ErrorIs(t, e.WaitReports(), broken)
	assert.False(t, e.AggregateSupported(byCreatedAt))
	path := filepath.Join(t.TempDir(), "lists.snapshot")
	assert.ErrorIs(t, e.Save(path, Mark{Store: 1, Seq: 1}), broken)
	assert.NoFileExists(t, path)
}

// TestOverflowingRowSendsItsTableToTheFullEngine: a document with more
// values than a row holds is not kept, so its company's rows of that kind
// no longer answer; other companies' still do.
func TestOverflowingRowSendsItsTableToTheFullEngine(t *testing.T) {
	ctx := context.Background()
	e := New()
	huge := message(1, 1)
	for i := range maxRowValues + 1 {
		huge.Keywords["tag"] = append(huge.Keywords["tag"], strconv.Itoa(i))
	}
	other := message(2, 1)
	other.Company = 2
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Messages, Company: 1, Upserts: []index.Document{huge}}, nil))
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Messages, Company: 2, Upserts: []index.Document{other}}, nil))
	assert.False(t, e.AggregateSupported(byCreatedAt))
	_, err := e.Aggregate(ctx, byCreatedAt)
	assert.ErrorIs(t, err, errUnsupported)
	facets := index.FacetRequest{Kind: index.Messages, Company: 1, Values: map[string]string{"from": "from"}}
	assert.False(t, e.FacetsSupported(facets))
	secondCompany := byCreatedAt
	secondCompany.Company = 2
	assert.True(t, e.AggregateSupported(secondCompany))
}

// TestRestoreLeavesAppliedDocumentsAlone: while Restore fills the report
// rows from the snapshot, they answer nothing, and the documents Apply
// puts or deletes meanwhile are not overwritten by the snapshot's older
// ones.
func TestRestoreLeavesAppliedDocumentsAlone(t *testing.T) {
	ctx := context.Background()
	saved := New()
	require.NoError(t, saved.Apply(ctx, index.Batch{Kind: index.Messages, Company: 1,
		Upserts: []index.Document{message(1, 1), message(2, 1), message(3, 1)}}, nil))
	path, mark := filepath.Join(t.TempDir(), "lists.snapshot"), Mark{Store: 1, Seq: 1}
	require.NoError(t, saved.Save(path, mark))

	started, release := make(chan struct{}), make(chan struct{})
	restoreHook = func() { close(started); <-release }
	t.Cleanup(func() { restoreHook = nil })
	e := New()
	ok, err := e.Restore(path, mark)
	require.NoError(t, err)
	require.True(t, ok)
	<-started
	applyDuringFill(t, e, release)
}

// applyDuringFill, while a fill of three messages at 1 is held, puts m1
// at 2 and deletes m2, lets the fill end, and checks that the fill left
// both alone: m1 as applied (at 2), m2 deleted, m3 as the fill read it.
func applyDuringFill(t *testing.T, e *Engine, release chan struct{}) {
	t.Helper()
	ctx := context.Background()
	assert.False(t, e.AggregateSupported(byCreatedAt), "no reports from rows half filled")
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Messages, Company: 1,
		Upserts: []index.Document{message(1, 2)}, Deletes: []string{"m2"}}, nil))
	close(release)
	require.NoError(t, e.WaitReports())

	require.True(t, e.AggregateSupported(byCreatedAt))
	got, err := e.Aggregate(ctx, byCreatedAt)
	require.NoError(t, err)
	counts := map[int]int{}
	for _, g := range got.Groups {
		counts[g.Bucket] += g.Count
	}
	assert.Equal(t, map[int]int{0: 1, 1: 1}, counts)
}
