package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// testBatchReads: the by-ids reads answer a company's records in the order
// asked, skip ids that are missing or another company's, and count each
// customer's conversations (deleted excluded) in one call.
func testBatchReads(t *testing.T, b Backend) {
	ann, bob, twin := newCustomer(1, "Ann", "ann@example.com"), newCustomer(1, "Bob"), newCustomer(2, "Ann", "ann@example.com")
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) }, func(tx parley.Tx) error { return tx.PutCustomer(bob) },
		func(tx parley.Tx) error { return tx.PutCustomer(twin) })
	convs := []*parley.Conversation{newConversation(1, ann.ID, 2), newConversation(1, ann.ID, 2), newConversation(1, bob.ID, 2),
		newConversation(2, twin.ID, 3), newConversation(1, ann.ID, 2)}
	convs[4].State = parley.StateDeleted
	put(t, b, func(tx parley.Tx) error {
		for _, c := range convs {
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	})
	drain(t, b)
	missing := convs[4].ID + twin.ID + 1000

	view(t, b, func(tx parley.Tx) error {
		gotConvs, err := tx.ConversationsByIDs(1, []int64{convs[2].ID, missing, convs[3].ID, convs[0].ID, convs[1].ID})
		require.NoError(t, err)
		assert.Equal(t, []parley.Conversation{*convs[2], *convs[0], *convs[1]}, gotConvs,
			"in the order asked, without the missing one or another company's")
		gotCustomers, err := tx.CustomersByIDs(1, []int64{bob.ID, twin.ID, missing, ann.ID})
		require.NoError(t, err)
		assert.Equal(t, []parley.Customer{*bob, *ann}, gotCustomers)
		counts, err := tx.ConversationCounts(1, []int64{ann.ID, bob.ID, twin.ID, missing})
		require.NoError(t, err)
		assert.Equal(t, map[int64]int{ann.ID: 2, bob.ID: 1}, counts,
			"deleted conversations and another company's customers are not counted")
		for _, empty := range [][]int64{nil, {missing}} {
			none, err := tx.ConversationsByIDs(1, empty)
			require.NoError(t, err)
			assert.Empty(t, none)
			counts, err := tx.ConversationCounts(1, empty)
			require.NoError(t, err)
			assert.Empty(t, counts)
		}
		return nil
	})
}
