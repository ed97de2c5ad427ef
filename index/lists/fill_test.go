package lists

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
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
		Chat: func(parley.Tx, int64, string) (index.Document, bool, error) { return index.Document{}, false, nil },
	}
	e := New()
	e.Load(fillStore(t).Store(), project)
	<-started
	applyDuringFill(t, e, release)
}

// TestFailedFillFailsTextlessRequests: when the fill fails, the report
// rows answer nothing (conversations' go to the full engine, textless
// kinds' fail with the fill's error), no snapshot is saved from them, and
// Refill brings them back from the store.
func TestFailedFillFailsTextlessRequests(t *testing.T) {
	ctx := context.Background()
	broken := errors.New("a thread does not decode")
	project := Projection{
		List: func(parley.Tx, *parley.Conversation) (index.Document, bool) { return index.Document{}, false },
		Conversation: func(parley.Tx, *parley.Conversation, func(index.Kind, index.Document)) error {
			return broken
		},
		Chat: func(parley.Tx, int64, string) (index.Document, bool, error) { return index.Document{}, false, nil },
	}
	store := fillStore(t).Store()
	e := New()
	e.Load(store, project)
	assert.ErrorIs(t, e.WaitReports(), broken)
	assert.False(t, e.AggregateSupported(conversationsByCreatedAt))
	_, err := e.Aggregate(ctx, byCreatedAt)
	assert.ErrorIs(t, err, broken)
	_, err = e.Search(ctx, index.Request{Kind: index.Messages, Company: 1, Limit: 10})
	assert.ErrorIs(t, err, broken)
	path := filepath.Join(t.TempDir(), "lists.snapshot")
	assert.ErrorIs(t, e.Save(path, Mark{Store: 1, Seq: 1}), broken)
	assert.NoFileExists(t, path)

	project.Conversation = func(_ parley.Tx, c *parley.Conversation, yield func(index.Kind, index.Document)) error {
		yield(index.Messages, message(c.ID, 1))
		return nil
	}
	e.Refill(store, project)
	require.NoError(t, e.WaitReports())
	got, err := e.Search(ctx, index.Request{Kind: index.Messages, Company: 1, Sort: []index.Sort{{Field: "createdAt"}}, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"m1", "m2", "m3"}, Total: 3}, got)
}

// conversationsByCreatedAt counts company 1's conversations like
// byCreatedAt: the full engine holds them too.
var conversationsByCreatedAt = index.AggregateRequest{Kind: index.Conversations, Company: 1, By: "createdAt", Edges: []float64{0, 1.5, 3}}

// TestOverflowingRow: a document with more values than a row holds is not
// kept, so its company's rows of that kind no longer answer: requests on
// conversations go to the full engine, those on a textless kind fail;
// other companies' rows still answer.
func TestOverflowingRow(t *testing.T) {
	ctx := context.Background()
	e := New()
	tags := func(d index.Document) index.Document {
		for i := range maxRowValues + 1 {
			d.Keywords["tag"] = append(d.Keywords["tag"], strconv.Itoa(i))
		}
		return d
	}
	conversation := index.NewDocument("1", 1)
	conversation.Numbers["createdAt"] = []float64{1}
	other := message(2, 1)
	other.Company = 2
	for _, b := range []index.Batch{
		{Kind: index.Messages, Company: 1, Upserts: []index.Document{tags(message(1, 1))}},
		{Kind: index.Conversations, Company: 1, Upserts: []index.Document{tags(conversation)}},
		{Kind: index.Messages, Company: 2, Upserts: []index.Document{other}},
	} {
		require.NoError(t, e.Apply(ctx, b, nil))
	}
	assert.False(t, e.AggregateSupported(conversationsByCreatedAt))
	_, err := e.Aggregate(ctx, conversationsByCreatedAt)
	assert.ErrorIs(t, err, errUnsupported)
	assert.False(t, e.FacetsSupported(index.FacetRequest{Kind: index.Conversations, Company: 1, Values: map[string]string{"c": "closedByUserId"}}))
	_, err = e.Aggregate(ctx, byCreatedAt)
	assert.ErrorIs(t, err, errOverflow)
	_, err = e.Facets(ctx, index.FacetRequest{Kind: index.Messages, Company: 1, Values: map[string]string{"from": "from"}})
	assert.ErrorIs(t, err, errOverflow)
	secondCompany := byCreatedAt
	secondCompany.Company = 2
	got, err := e.Aggregate(ctx, secondCompany)
	require.NoError(t, err)
	assert.Equal(t, map[int]int{0: 1}, bucketCounts(got))
}

// bucketCounts are an aggregate's counts by bucket.
func bucketCounts(r index.AggregateResult) map[int]int {
	counts := map[int]int{}
	for _, g := range r.Groups {
		counts[g.Bucket] += g.Count
	}
	return counts
}

// TestRestoreLeavesAppliedDocumentsAlone: while Restore fills the report
// rows from the snapshot, they answer nothing, and the documents Apply
// puts or deletes meanwhile are not overwritten by the snapshot's older
// ones.
func TestRestoreLeavesAppliedDocumentsAlone(t *testing.T) {
	e, release := heldRestore(t, index.Batch{Kind: index.Messages, Company: 1,
		Upserts: []index.Document{message(1, 1), message(2, 1), message(3, 1)}})
	applyDuringFill(t, e, release)
}

// heldRestore restores, into a new engine, a snapshot of an engine that
// applied b, and holds the restore's fill until release is closed.
func heldRestore(t *testing.T, b index.Batch) (e *Engine, release chan struct{}) {
	t.Helper()
	saved := New()
	require.NoError(t, saved.Apply(context.Background(), b, nil))
	path, mark := filepath.Join(t.TempDir(), "lists.snapshot"), Mark{Store: 1, Seq: 1}
	require.NoError(t, saved.Save(path, mark))

	started, release := make(chan struct{}), make(chan struct{})
	restoreHook = func() { close(started); <-release }
	t.Cleanup(func() { restoreHook = nil })
	e = New()
	ok, err := e.Restore(path, mark)
	require.NoError(t, err)
	require.True(t, ok)
	<-started
	return e, release
}

// applyDuringFill, while a fill of three messages at 1 is held, puts m1
// at 2 and deletes m2, lets the fill end, and checks that the fill left
// both alone: m1 as applied (at 2), m2 deleted, m3 as the fill read it.
// Meanwhile requests on conversations' report rows go to the full engine,
// and those on messages wait for the fill.
func applyDuringFill(t *testing.T, e *Engine, release chan struct{}) {
	t.Helper()
	ctx := context.Background()
	assert.False(t, e.AggregateSupported(conversationsByCreatedAt), "no reports from rows half filled")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := e.Aggregate(cancelled, byCreatedAt)
	assert.ErrorIs(t, err, context.Canceled, "a textless kind's request waits for the fill")
	waited := make(chan index.AggregateResult)
	go func() {
		got, err := e.Aggregate(ctx, byCreatedAt)
		assert.NoError(t, err)
		waited <- got
	}()
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Messages, Company: 1,
		Upserts: []index.Document{message(1, 2)}, Deletes: []string{"m2"}}, nil))
	close(release)
	require.NoError(t, e.WaitReports())

	assert.Equal(t, map[int]int{0: 1, 1: 1}, bucketCounts(<-waited), "the request that waited")
	got, err := e.Aggregate(ctx, byCreatedAt)
	require.NoError(t, err)
	assert.Equal(t, map[int]int{0: 1, 1: 1}, bucketCounts(got))
}

// doc is the list document of a conversation of company, its waitingSince
// set when waiting is positive.
func doc(id, company int64, status string, created float64, waiting float64, tags ...string) index.Document {
	d := index.NewDocument(index.FormatID(id), company)
	d.Numbers["id"] = []float64{float64(id)}
	d.Numbers["createdAt"] = []float64{created}
	if waiting > 0 {
		d.Numbers["waitingSince"] = []float64{waiting}
	}
	d.Keywords["status"] = []string{status}
	d.Keywords["tag"] = tags
	return d
}

// TestRestoreFillsListRowsAfterTheStart: Restore returns before the list
// rows are in; until they are, list requests go to the full engine, and
// the conversations Apply puts or deletes meanwhile are not overwritten
// by the snapshot's older rows.
func TestRestoreFillsListRowsAfterTheStart(t *testing.T) {
	ctx := context.Background()
	e, release := heldRestore(t, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{
		doc(1, 1, "active", 10, 0), doc(2, 1, "active", 20, 0), doc(3, 1, "pending", 30, 0, "vip"),
	}})
	all := index.Request{Kind: index.Conversations, Company: 1, Sort: []index.Sort{{Field: "createdAt"}}, Limit: 10}
	assert.False(t, e.Supports(all), "no lists from rows not yet in")
	_, err := e.Search(ctx, all)
	assert.ErrorIs(t, err, errUnsupported)
	assert.False(t, e.FacetsSupported(index.FacetRequest{Kind: index.Conversations, Company: 1, Values: map[string]string{"tag": "tag"}}))

	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1,
		Upserts: []index.Document{doc(1, 1, "closed", 40, 0)}, Deletes: []string{"2"}}, nil))
	close(release)
	require.NoError(t, e.WaitReports())

	require.True(t, e.Supports(all))
	got, err := e.Search(ctx, all)
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"3", "1"}, Total: 2}, got, "3 from the snapshot, 1 as applied, 2 deleted")
	closed := all
	closed.Filter = query.Keyword{Field: "status", Value: "closed"}
	got, err = e.Search(ctx, closed)
	require.NoError(t, err)
	assert.Equal(t, []string{"1"}, got.IDs)
}

// TestRefillReadsTheListRowsAFailedFillLeft: when a fill failed before
// its list rows were in, Refill drops the rows it had put and reads them
// all again from the store, and list requests come back to the engine.
func TestRefillReadsTheListRowsAFailedFillLeft(t *testing.T) {
	ctx := context.Background()
	e := New()
	failed := newFill()
	failed.listRows, failed.err = true, errors.New("the snapshot is damaged")
	close(failed.done)
	e.fill = failed
	e.put(1, e.documentRow(doc(9, 1, "active", 9, 0))) // read before the damage, not in the store
	all := index.Request{Kind: index.Conversations, Company: 1, Sort: []index.Sort{{Field: "id"}}, Limit: 10}
	require.False(t, e.Supports(all))

	e.Refill(fillStore(t).Store(), listProjection(nil))
	require.NoError(t, e.WaitReports())
	require.True(t, e.Supports(all))
	got, err := e.Search(ctx, all)
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"1", "2", "3"}, Total: 3}, got)
}

// TestLoadFillsListRowsAfterTheStart: Load returns before the list rows
// are in; until they are, list requests go to the full engine, and the
// conversations Apply puts or deletes meanwhile are not overwritten by
// the store's older state.
func TestLoadFillsListRowsAfterTheStart(t *testing.T) {
	ctx := context.Background()
	started, release := make(chan struct{}), make(chan struct{})
	e := New()
	e.Load(fillStore(t).Store(), listProjection(func(id int64) {
		if id == 1 {
			close(started)
			<-release
		}
	}))
	select {
	case <-started:
	case <-time.After(time.Minute): // not a timing: a fill that never reads list rows would hang the test
		t.Fatal("Load's fill read no list rows")
	}
	all := index.Request{Kind: index.Conversations, Company: 1, Sort: []index.Sort{{Field: "id"}}, Limit: 10}
	assert.False(t, e.Supports(all), "no lists from rows not yet in")
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1,
		Upserts: []index.Document{doc(2, 1, "closed", 2, 0)}, Deletes: []string{"3"}}, nil))
	close(release)
	require.NoError(t, e.WaitReports())

	got, err := e.Search(ctx, all)
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"1", "2"}, Total: 2}, got, "1 from the store, 2 as applied, 3 deleted")
	all.Filter = query.Keyword{Field: "status", Value: "closed"}
	got, err = e.Search(ctx, all)
	require.NoError(t, err)
	assert.Equal(t, []string{"2"}, got.IDs)
}

// listProjection makes every stored conversation an active list document
// created at its id, calling read (when set) as it reads each one.
func listProjection(read func(id int64)) Projection {
	return Projection{
		List: func(_ parley.Tx, c *parley.Conversation) (index.Document, bool) {
			if read != nil {
				read(c.ID)
			}
			return doc(c.ID, 1, "active", float64(c.ID), 0), true
		},
		Conversation: func(parley.Tx, *parley.Conversation, func(index.Kind, index.Document)) error { return nil },
		Chat:         func(parley.Tx, int64, string) (index.Document, bool, error) { return index.Document{}, false, nil },
	}
}
