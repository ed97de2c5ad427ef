package storage

import (
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// Teams and users share one id space: Help Scout's user record has a type,
// `user` or `team`, and the user reports take either id in `user`, so an id
// names one of them only. Both draw from the users bucket's sequence.
var bucketIDSpace = bucketUsers

// Team loads a team of a company.
func (t *Tx) Team(companyID, id int64) (*parley.Team, error) {
	return scoped(t, bucketTeams, id, func(x *parley.Team) int64 { return x.CompanyID }, companyID, "team")
}

// PutTeam stores a team, assigning an id from the users' sequence when ID
// is 0; a kept id moves the sequence past it.
func (t *Tx) PutTeam(x *parley.Team) error {
	if err := t.assignOrKeepID(bucketIDSpace, &x.ID); err != nil {
		return err
	}
	if t.tx.Bucket(bucketUsers).Get(key(x.ID)) != nil {
		return fmt.Errorf("storage: team id %d is a user's", x.ID)
	}
	return t.put(bucketTeams, key(x.ID), x)
}

// Teams lists a company's teams in id order.
func (t *Tx) Teams(companyID int64) ([]parley.Team, error) {
	var out []parley.Team
	err := each(t, bucketTeams, func(x *parley.Team) error {
		if x.CompanyID == companyID {
			out = append(out, *x)
		}
		return nil
	})
	return out, err
}

// unifyTeamIDs brings a database from before the shared id space into it,
// in Open's transaction: a team whose id is also a user's gets a new id from
// the shared sequence, and every reference to it (conversation assignees,
// threads' assignedTo) follows, the conversations queued for reindexing;
// the sequence then passes every team id. It returns the moves, old id to
// new, and is a no-op (nil) on a database already in the shared space.
func unifyTeamIDs(btx *bbolt.Tx) (map[int64]int64, error) {
	t := &Tx{tx: btx, writable: true}
	sequence := btx.Bucket(bucketIDSpace)
	var colliding []parley.Team
	err := each(t, bucketTeams, func(x *parley.Team) error {
		if btx.Bucket(bucketUsers).Get(key(x.ID)) != nil {
			colliding = append(colliding, *x)
			return nil
		}
		return keepSequencePast(sequence, x.ID)
	})
	if err != nil || len(colliding) == 0 {
		return nil, err
	}
	moved := map[int64]int64{}
	for i := range colliding {
		x := &colliding[i]
		if err := btx.Bucket(bucketTeams).Delete(key(x.ID)); err != nil {
			return nil, err
		}
		old := x.ID
		x.ID = 0
		if err := t.PutTeam(x); err != nil {
			return nil, err
		}
		moved[old] = x.ID
	}
	follow := func(p *parley.Party) bool {
		if p == nil || p.Type != parley.PartyTeam {
			return false
		}
		id, ok := moved[p.ID]
		if ok {
			p.ID = id
		}
		return ok
	}
	var convs []*parley.Conversation
	err = each(t, bucketConversations, func(c *parley.Conversation) error {
		if follow(c.Assignee) {
			convs = append(convs, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range convs { // written after the walk: a cursor does not survive writes
		if err := t.put(bucketConversations, key(c.ID), c); err != nil {
			return nil, err
		}
		if err := t.queue(KindConversation, c.CompanyID, c.ID); err != nil {
			return nil, err
		}
	}
	var threads []parley.Thread
	err = each(t, bucketThreads, func(th *parley.Thread) error {
		if follow(th.AssignedTo) {
			threads = append(threads, *th)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.threads = nil // written below without PutThread
	for i := range threads {
		th := &threads[i]
		if err := t.put(bucketThreads, key2(th.ConversationID, th.ID), th); err != nil {
			return nil, err
		}
	}
	return moved, nil
}

// RenumberedTeams lists the teams Open moved into the shared id space, as
// "old -> new" in old id order (empty when none moved), for the log.
func (db *DB) RenumberedTeams() []string {
	olds := make([]int64, 0, len(db.renumbered))
	for old := range db.renumbered {
		olds = append(olds, old)
	}
	slices.Sort(olds)
	var out []string
	for _, old := range olds {
		out = append(out, fmt.Sprintf("%d -> %d", old, db.renumbered[old]))
	}
	return out
}
