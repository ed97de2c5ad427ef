package parley_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestMerge: merging moves the source's threads into the target with a
// line item, gives the target the source's tags and addresses, and leaves
// the source deleted and redirecting; what it refuses changes nothing.
func TestMerge(t *testing.T) {
	w := newWorld(t)
	mergeAt := ruleNow.Add(time.Hour)
	merge := func(source int64, target *int64) error {
		return w.write(func(tx parley.Tx) error {
			_, err := parley.Merge(tx, w.caller, source, &parley.MergeRequest{TargetID: target}, mergeAt)
			return err
		})
	}
	conversation := func(threads int, tags []string, cc []string) int64 {
		id, err := w.create(t, threads, "customer", "active")
		require.NoError(t, err)
		require.NoError(t, w.write(func(tx parley.Tx) error {
			if err := parley.ReplaceTags(tx, w.caller, id, tags, ruleNow); err != nil {
				return err
			}
			c, err := tx.Conversation(w.caller.Company.ID, id)
			if err != nil {
				return err
			}
			c.CC = cc
			return tx.PutConversation(c)
		}))
		return id
	}
	source := conversation(2, []string{"refund", "vip"}, []string{"a@example.com", "b@example.com"})
	target := conversation(1, []string{"vip"}, []string{"b@example.com"})
	full := conversation(60, []string{}, nil)
	large := conversation(60, []string{}, nil)

	refused := []struct {
		name       string
		source     int64
		target     *int64
		kind       parley.Kind
		path, code string
	}{
		{"no target", source, nil, parley.KindInvalid, "targetId", parley.CodeInvalidID},
		{"a target of 0", source, parley.Ptr(int64(0)), parley.KindInvalid, "targetId", parley.CodeInvalidID},
		{"into itself", source, &source, parley.KindInvalid, "targetId", parley.CodeValueNotSupported},
		{"an unknown target", source, parley.Ptr(int64(999)), parley.KindInvalid, "targetId", parley.CodeInvalidID},
		{"an unknown source", 999, &target, parley.KindNotFound, "", parley.CodeNotFound},
		{"past the thread limit", large, &full, parley.KindLocked, "", parley.CodeTooManyThreads},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, before := w.load(t, full)
			assertRefused(t, merge(tc.source, tc.target), tc.kind, tc.path, tc.code)
			_, after := w.load(t, full)
			assert.Len(t, after, len(before))
		})
	}

	_, sourceThreads := w.load(t, source)
	require.NoError(t, merge(source, &target))
	c, threads := w.load(t, target)
	var bodies []string
	for _, th := range threads {
		if th.Type == parley.ThreadLineItem {
			require.NotNil(t, th.Action)
			bodies = append(bodies, th.Action.Type+": "+th.Action.Text)
			continue
		}
		bodies = append(bodies, th.Body)
	}
	assert.ElementsMatch(t, []string{"thread 0", "thread 0", "thread 1", "merged: Merged with #1"}, bodies)
	assert.ElementsMatch(t, []string{"vip", "refund"}, w.tagNames(t, target))
	assert.Equal(t, []string{"b@example.com", "a@example.com"}, c.CC)
	assert.Equal(t, mergeAt, c.ModifiedAt)

	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		gone, err := tx.Conversation(w.caller.Company.ID, source)
		require.NoError(t, err)
		assert.Equal(t, parley.StateDeleted, gone.State)
		assert.Equal(t, target, gone.MergedInto)
		assert.Equal(t, &mergeAt, gone.MergedAt)
		left, err := tx.Threads(w.caller.Company.ID, source)
		require.NoError(t, err)
		assert.Empty(t, left, "every thread moved")
		_, err = parley.LoadConversation(tx, w.caller, source, mergeAt)
		assert.Equal(t, parley.KindMoved, parley.KindOf(err), "the source redirects")
		return nil
	}))
	assert.Len(t, sourceThreads, 2)
	assert.Contains(t, w.events(t), parley.EventConvoMerged)
	assertRefused(t, merge(target, &source), parley.KindInvalid, "targetId", parley.CodeInvalidID)
}
