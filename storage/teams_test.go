package storage

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// TestOpenMovesTeamsOutOfTheUsersIDs builds a database as Parley wrote it
// before users and teams shared one id space (team 1 and user 1 both
// exist, a conversation and a thread assigned to the team), and checks
// that opening it moves the team to a fresh id with every reference, once.
func TestOpenMovesTeamsOutOfTheUsersIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(path, Options{NoSync: true})
	require.NoError(t, err)
	now := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	var toTeam, toUser int64
	require.NoError(t, db.bolt.Update(func(btx *bbolt.Tx) error {
		tx := &Tx{tx: btx, writable: true}
		require.NoError(t, tx.PutCompany(&parley.Company{Name: "Acme"}))
		for _, email := range []string{"a@acme.test", "b@acme.test"} {
			require.NoError(t, tx.PutUser(&parley.User{CompanyID: 1, Email: email}))
		}
		// The old writer: team ids from the teams' own sequence.
		require.NoError(t, btx.Bucket(bucketTeams).SetSequence(1))
		require.NoError(t, tx.put(bucketTeams, key(1), &parley.Team{ID: 1, CompanyID: 1, Name: "Tier 2", MemberIDs: []int64{1, 2}}))
		team := &parley.Conversation{CompanyID: 1, Assignee: &parley.Party{ID: 1, Type: parley.PartyTeam}, CreatedAt: now}
		user := &parley.Conversation{CompanyID: 1, Assignee: &parley.Party{ID: 1, Type: parley.PartyUser}, CreatedAt: now}
		for _, c := range []*parley.Conversation{team, user} {
			require.NoError(t, tx.PutConversation(c))
		}
		toTeam, toUser = team.ID, user.ID
		return tx.PutThread(&parley.Thread{ConversationID: team.ID, CompanyID: 1, Type: parley.ThreadLineItem,
			AssignedTo: &parley.Party{ID: 1, Type: parley.PartyTeam}, CreatedAt: now})
	}))
	require.NoError(t, db.Close())

	db, err = Open(path, Options{NoSync: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"1 -> 3"}, db.RenumberedTeams())
	require.NoError(t, db.View(func(tx *Tx) error {
		team, err := tx.Team(1, 3)
		require.NoError(t, err)
		assert.Equal(t, parley.Team{ID: 3, CompanyID: 1, Name: "Tier 2", MemberIDs: []int64{1, 2}}, *team)
		_, err = tx.Team(1, 1)
		assert.True(t, parley.IsNotFound(err), "id 1 is the user's alone")
		c, err := tx.Conversation(1, toTeam)
		require.NoError(t, err)
		assert.Equal(t, parley.Party{ID: 3, Type: parley.PartyTeam}, *c.Assignee)
		c, err = tx.Conversation(1, toUser)
		require.NoError(t, err)
		assert.Equal(t, parley.Party{ID: 1, Type: parley.PartyUser}, *c.Assignee, "a user assignee stays")
		threads, err := tx.Threads(1, toTeam)
		require.NoError(t, err)
		assert.Equal(t, parley.Party{ID: 3, Type: parley.PartyTeam}, *threads[0].AssignedTo)
		return nil
	}))
	entries, err := db.Outbox(0, 100)
	require.NoError(t, err)
	last := entries[len(entries)-1]
	assert.Equal(t, OutboxEntry{Seq: last.Seq, Kind: KindConversation, Company: 1, ID: toTeam}, last, "the moved assignee is reindexed")

	_, err = db.Update(func(tx *Tx) error {
		u := &parley.User{CompanyID: 1, Email: "c@acme.test"}
		require.NoError(t, tx.PutUser(u))
		assert.Equal(t, int64(4), u.ID, "the next user follows the moved team")
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	db, err = Open(path, Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	assert.Empty(t, db.RenumberedTeams(), "a second open moves nothing")
}

// TestUsersAndTeamsShareOneSequence: new users and teams never take each
// other's ids, and a kept id of one kind is refused to the other.
func TestUsersAndTeamsShareOneSequence(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "parley.db"), Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Update(func(tx *Tx) error {
		u := &parley.User{CompanyID: 1, Email: "a@acme.test"}
		require.NoError(t, tx.PutUser(u))
		team := &parley.Team{CompanyID: 1, Name: "Tier 2"}
		require.NoError(t, tx.PutTeam(team))
		u2 := &parley.User{CompanyID: 1, Email: "b@acme.test"}
		require.NoError(t, tx.PutUser(u2))
		assert.Equal(t, []int64{1, 2, 3}, []int64{u.ID, team.ID, u2.ID})
		assert.Error(t, tx.PutTeam(&parley.Team{ID: u.ID, CompanyID: 1, Name: "Clash"}))
		assert.Error(t, tx.PutUser(&parley.User{ID: team.ID, CompanyID: 1, Email: "c@acme.test"}))
		return nil
	})
	require.NoError(t, err)
}
