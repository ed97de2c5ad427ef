package workflow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// BenchmarkAutomaticWrite measures what automatic workflows add to a
// write: a tags change on a demo conversation, with the demo's automatic
// workflow active plus three more whose conditions are tried and miss
// (b.Run "none" has every workflow inactive). The cost does not depend on
// the number of conversations: one document is built per write.
//
//	go test ./workflow -run '^$' -bench AutomaticWrite -benchtime 2000x
func BenchmarkAutomaticWrite(b *testing.B) {
	db, caller := setup(b)
	conv := firstConversation(b, db)
	for _, cond := range []string{"tag:vip AND status:closed", `body:"tracking number"`, "modifiedAt:[* TO NOW-2DAYS] AND NOT tag:vip"} {
		create(b, db, caller, parley.WorkflowInput{MailboxID: &conv.MailboxID, Name: ptr(cond), Type: ptr(parley.WorkflowAutomatic),
			Conditions: []string{cond}, Actions: []parley.WorkflowAction{{Type: parley.ActionAddTags, Tags: []string{"never"}}}})
	}
	write := func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			tags := []string{"bench-a"}
			if i%2 == 1 {
				tags = []string{"bench-b"}
			}
			_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error { return parley.ReplaceTags(tx, caller, conv.ID, tags, now) })
			require.NoError(b, err)
		}
	}
	b.Run("workflows", write)
	b.Run("none", func(b *testing.B) {
		db.SetBeforeCommit(nil)
		write(b)
	})
}
