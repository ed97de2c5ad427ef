package parley

import (
	"fmt"
	"slices"
)

// Routing states, assignment methods and the reasons a user is not
// eligible, as Help Scout's Routing configuration names them.
const (
	RoutingEnabled  = "enabled"
	RoutingDisabled = "disabled"

	RoundRobin = "round_robin"
	Balanced   = "balanced"

	ReasonAtCapacity    = "at_capacity"
	ReasonAway          = "away"
	ReasonNotInRotation = "not_in_rotation"
)

// Routing limits (Help Scout: an assignment limit of 1 to 100).
// A rotation holds at most MaxRoutingUsers users (Parley's bound, so one
// request cannot ask for thousands of lookups).
const (
	MinAssignmentLimit = 1
	MaxAssignmentLimit = 100
	MaxRoutingUsers    = 500
)

// Routing is a mailbox's automatic assignment of new conversations.
type Routing struct {
	State            string  `json:"state"`
	AssignmentMethod string  `json:"assignmentMethod,omitempty"`
	AssignmentLimit  int     `json:"assignmentLimit,omitempty"`
	UserIDs          []int64 `json:"userIds,omitempty"`
	// LastUserID is the user assigned last: round robin starts after it,
	// and balanced breaks ties from it, so equals take turns.
	LastUserID int64 `json:"lastUserId,omitempty"`
}

// Enabled reports whether the routing assigns new conversations.
func (r *Routing) Enabled() bool { return r != nil && r.State == RoutingEnabled }

// RoutingInput is the body of Update Routing configuration.
type RoutingInput struct {
	State            *string `json:"state"`
	AssignmentLimit  *int64  `json:"assignmentLimit"`
	AssignmentMethod *string `json:"assignmentMethod"`
	UserIDs          []int64 `json:"userIds"`
}

// RoutingMember is what the rule knows of a user of the mailbox: whether
// they are away, and how many open (active or pending) conversations of
// the mailbox they are assigned.
type RoutingMember struct {
	UserID int64
	Away   bool
	Open   int
}

// RotationEntry is one user of the mailbox as the rotation sees them.
type RotationEntry struct {
	UserID   int64
	Open     int
	Eligible bool
	Reason   string // empty when eligible
}

// Rotation lists the mailbox's users with their eligibility, in the order
// given: users outside the routing's list are not_in_rotation, then away
// users are away, then users holding the assignment limit are
// at_capacity.
func (r *Routing) Rotation(members []RoutingMember) []RotationEntry {
	out := make([]RotationEntry, 0, len(members))
	for _, m := range members {
		e := RotationEntry{UserID: m.UserID, Open: m.Open}
		switch {
		case r == nil || !slices.Contains(r.UserIDs, m.UserID):
			e.Reason = ReasonNotInRotation
		case m.Away:
			e.Reason = ReasonAway
		case m.Open >= r.AssignmentLimit:
			e.Reason = ReasonAtCapacity
		default:
			e.Eligible = true
		}
		out = append(out, e)
	}
	return out
}

// Pick chooses the user a new conversation goes to, or 0 when routing is
// off or nobody is eligible. Round robin takes the next eligible user of
// the routing's list after the last one assigned; balanced takes the
// eligible user with the fewest open conversations, ties going to the
// first after the last one assigned.
func (r *Routing) Pick(members []RoutingMember) int64 {
	if !r.Enabled() || len(r.UserIDs) == 0 {
		return 0
	}
	eligible := map[int64]RotationEntry{}
	for _, e := range r.Rotation(members) {
		if e.Eligible {
			eligible[e.UserID] = e
		}
	}
	start := slices.Index(r.UserIDs, r.LastUserID) + 1 // 0 when the last is gone
	var best int64
	bestOpen := 0
	for i := range r.UserIDs {
		id := r.UserIDs[(start+i)%len(r.UserIDs)]
		e, ok := eligible[id]
		if !ok {
			continue
		}
		if r.AssignmentMethod == RoundRobin {
			return id
		}
		if best == 0 || e.Open < bestOpen {
			best, bestOpen = id, e.Open
		}
	}
	return best
}

// ConfigureRouting lets an owner or administrator replace a mailbox's
// routing. Enabled routing needs a method, a limit of 1 to 100 and at
// least one user; every user must be an active user of the company who
// may see the mailbox, listed once. Disabled routing keeps what is given.
func ConfigureRouting(tx Tx, caller Caller, mailboxID int64, in *RoutingInput) error {
	if err := RequireAdmin(caller, "configure routing"); err != nil {
		return err
	}
	m, err := tx.Mailbox(caller.Company.ID, mailboxID)
	if err != nil {
		return err
	}
	p := &Problems{}
	requireEnum(p, "state", in.State, []string{RoutingEnabled, RoutingDisabled})
	enabled := in.State != nil && *in.State == RoutingEnabled
	switch {
	case in.AssignmentLimit == nil && enabled:
		p.Add("assignmentLimit", CodeNullValue, "may not be null when routing is enabled", nil)
	case in.AssignmentLimit != nil && (*in.AssignmentLimit < MinAssignmentLimit || *in.AssignmentLimit > MaxAssignmentLimit):
		p.Add("assignmentLimit", CodeSize, sizeMessage(MinAssignmentLimit, MaxAssignmentLimit), *in.AssignmentLimit)
	}
	if in.AssignmentMethod != nil || enabled {
		requireEnum(p, "assignmentMethod", in.AssignmentMethod, []string{RoundRobin, Balanced})
	}
	switch {
	case enabled && len(in.UserIDs) == 0:
		p.Add("userIds", CodeEmptyValue, "may not be empty when routing is enabled", nil)
	case len(in.UserIDs) > MaxRoutingUsers:
		p.Add("userIds", CodeSize, sizeMessage(0, MaxRoutingUsers), len(in.UserIDs))
		return p.Err()
	}
	for i, id := range in.UserIDs {
		path := fmt.Sprintf("userIds[%d]", i)
		u, err := tx.User(caller.Company.ID, id)
		if err != nil && !IsNotFound(err) {
			return err
		}
		switch {
		case err != nil || !u.Active:
			p.Add(path, CodeInvalidID, "is not a user of the account", id)
		case !u.CanAccessMailbox(m.ID):
			p.Add(path, CodeInvalidID, "may not see this mailbox", id)
		case slices.Contains(in.UserIDs[:i], id):
			p.Add(path, CodeConflict, "is listed twice", id)
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	r := &Routing{State: *in.State, UserIDs: slices.Clone(in.UserIDs)}
	if in.AssignmentMethod != nil {
		r.AssignmentMethod = *in.AssignmentMethod
	}
	if in.AssignmentLimit != nil {
		r.AssignmentLimit = int(*in.AssignmentLimit)
	}
	if m.Routing != nil && slices.Contains(r.UserIDs, m.Routing.LastUserID) {
		r.LastUserID = m.Routing.LastUserID // the turn survives an edit
	}
	m.Routing = r
	return tx.PutMailbox(m)
}

// routeConversation assigns a new conversation by the mailbox's routing,
// in the transaction that creates it: the members are the routing's users
// with their status and open count. It reports whether routing decided
// (it was enabled), even when nobody was eligible and the conversation
// stays unassigned.
func routeConversation(tx Tx, c *Conversation, m *Mailbox) (bool, error) {
	if !m.Routing.Enabled() || c.Imported || (c.Status != StatusActive && c.Status != StatusPending) {
		return false, nil // imports keep their history; closed and spam wait for nobody
	}
	members := make([]RoutingMember, 0, len(m.Routing.UserIDs))
	for _, id := range m.Routing.UserIDs {
		u, err := tx.User(c.CompanyID, id)
		if IsNotFound(err) {
			continue // removed since: never eligible
		}
		if err != nil {
			return true, err
		}
		if member, ok := routingMember(tx, u, m); ok {
			members = append(members, member)
		}
	}
	id := m.Routing.Pick(members)
	if id == 0 {
		return true, nil
	}
	c.Assignee = &Party{ID: id, Type: PartyUser}
	m.Routing.LastUserID = id
	return true, tx.PutMailbox(m)
}

// RoutingMembers lists the users a mailbox's rotation shows, in the order
// given: the active users who may see the mailbox.
func RoutingMembers(tx Tx, users []User, m *Mailbox) []RoutingMember {
	var out []RoutingMember
	for i := range users {
		if member, ok := routingMember(tx, &users[i], m); ok {
			out = append(out, member)
		}
	}
	return out
}

func routingMember(tx Tx, u *User, m *Mailbox) (RoutingMember, bool) {
	if !u.Active || !u.CanAccessMailbox(m.ID) {
		return RoutingMember{}, false
	}
	return RoutingMember{UserID: u.ID, Away: u.CurrentStatus().Email == EmailAway, Open: tx.OpenAssigned(m.CompanyID, m.ID, u.ID)}, true
}
