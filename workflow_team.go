package parley

import (
	"math"
	"slices"
)

// A workflow's `assign` action may name a team (users and teams share one
// id space). The API's own assignment (PATCH replace /assignTo, assignTo on
// create) takes users only, so a conversation is never assigned to a team:
// as Help Scout's "Assign to team", the action gives the conversation to
// one member of the team, chosen the way the mailbox's routing chooses.

// checkAssignee checks the target of an `assign` action: an active user
// who may see the mailbox, or a team with at least one such member.
func checkAssignee(p *Problems, path string, tx targetStore, companyID int64, m *Mailbox, id int64) {
	u, err := tx.User(companyID, id)
	if err == nil {
		if !u.Active || (m != nil && !u.CanAccessMailbox(m.ID)) {
			p.Add(path, CodeConversationOwner, "is not a user of the account with access to the mailbox", id)
		}
		return
	}
	team, err := tx.Team(companyID, id)
	if err != nil {
		p.Add(path, CodeConversationOwner, "is not a user or team of the account", id)
		return
	}
	if m != nil && len(teamMembersFor(tx, team, m)) == 0 {
		p.Add(path, CodeConversationOwner, "is a team with no active member who may see the mailbox", id)
	}
}

// teamMembersFor lists the team's members who may take the mailbox's
// conversations (active, with access), in the team's order.
func teamMembersFor(tx targetStore, team *Team, m *Mailbox) []*User {
	var out []*User
	for _, id := range team.MemberIDs {
		if u, err := tx.User(team.CompanyID, id); err == nil && u.Active && u.CanAccessMailbox(m.ID) {
			out = append(out, u)
		}
	}
	return out
}

// assignToTeam picks the member of a team a conversation goes to, or 0
// when nobody is eligible (the conversation keeps its assignee). A
// conversation already assigned to a member keeps them. Otherwise the
// mailbox's routing rule applies to the team's members: when routing is
// enabled, its method and assignment limit, and only members in its
// rotation; when it is off, round robin with no limit. Away members are
// skipped either way. The team keeps its own turn (LastAssignedID), so
// successive runs take turns whatever other assignments happen.
func assignToTeam(tx Tx, c *Conversation, teamID int64) (int64, error) {
	team, err := tx.Team(c.CompanyID, teamID)
	if err != nil {
		return 0, err
	}
	m, err := tx.Mailbox(c.CompanyID, c.MailboxID)
	if err != nil {
		return 0, err
	}
	users := teamMembersFor(tx, team, m)
	r := &Routing{State: RoutingEnabled, AssignmentMethod: RoundRobin, AssignmentLimit: math.MaxInt, LastUserID: team.LastAssignedID}
	if m.Routing.Enabled() {
		r.AssignmentMethod, r.AssignmentLimit = m.Routing.AssignmentMethod, m.Routing.AssignmentLimit
	}
	members := make([]RoutingMember, 0, len(users))
	for _, u := range users {
		if c.Assignee != nil && c.Assignee.Type == PartyUser && c.Assignee.ID == u.ID {
			return u.ID, nil
		}
		if m.Routing.Enabled() && !slices.Contains(m.Routing.UserIDs, u.ID) {
			continue
		}
		member, _ := routingMember(tx, u, m)
		members = append(members, member)
		r.UserIDs = append(r.UserIDs, u.ID)
	}
	id := r.Pick(members)
	if id == 0 {
		return 0, nil
	}
	team.LastAssignedID = id
	return id, tx.PutTeam(team)
}
