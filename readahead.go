package parley

import (
	"maps"
	"slices"
)

// A transaction on a database server pays a round trip for each read;
// the embedded store pays none. A caller that knows which records it is
// about to read by key (a request's token names its user and company; a
// page of conversations its people, tags and mailboxes) names them with
// ReadAhead, and a store that gains from it reads them all in one round
// trip and answers the reads that follow from what it read. The answers
// are those of the reads themselves, from the same snapshot: a record not
// found is not found by its read, and a failure is the failure of the
// reads that follow.

// Refs names records a transaction is about to read by key: the company
// CompanyID itself (Company), records of that company by id, and
// credentials by key. Each list names a record once.
type Refs struct {
	CompanyID int64
	// Company: the company CompanyID (Tx.Company).
	Company bool
	// Users, Teams, Customers, Tags and Mailboxes are ids of the
	// company's records (Tx.User, Tx.Team, Tx.Customer, Tx.Tag,
	// Tx.Mailbox).
	Users, Teams, Customers, Tags, Mailboxes []int64
	// Grant and App are the id of a grant (Tx.Grant) and the client id of
	// an application (Tx.App), or "".
	Grant, App string
}

// ReadAheader is a Tx that reads ahead, in one round trip, the records
// refs names (see above).
type ReadAheader interface {
	ReadAhead(refs Refs)
}

// ReadAhead tells tx which records it is about to read, when tx reads
// ahead; on any other Tx it does nothing.
func ReadAhead(tx Tx, refs Refs) {
	if r, ok := tx.(ReadAheader); ok {
		r.ReadAhead(refs)
	}
}

// TokenRefs are the records Authenticate reads after a token: its grant,
// its application, its user and its company.
func TokenRefs(tok *Token) Refs {
	return Refs{CompanyID: tok.CompanyID, Company: true, Users: []int64{tok.UserID}, Grant: tok.GrantID, App: tok.ClientID}
}

// ConversationRefs are the records a page of a company's conversations
// renders with: the people it names (creator, customer, assignee, the
// user who closed it), its tags and its mailboxes.
func ConversationRefs(companyID int64, convs []Conversation) Refs {
	users, teams, customers, tags, mailboxes := idSet{}, idSet{}, idSet{}, idSet{}, idSet{}
	party := func(p Party) {
		switch p.Type {
		case PartyUser:
			users[p.ID] = true
		case PartyTeam:
			teams[p.ID] = true
		case PartyCustomer:
			customers[p.ID] = true
		}
	}
	for _, c := range convs {
		party(c.CreatedBy)
		customers[c.CustomerID] = true
		if c.Assignee != nil {
			party(*c.Assignee)
		}
		if c.ClosedAt != nil {
			users[c.ClosedBy] = true
		}
		for _, id := range c.TagIDs {
			tags[id] = true
		}
		mailboxes[c.MailboxID] = true
	}
	return Refs{CompanyID: companyID, Users: users.ids(), Teams: teams.ids(), Customers: customers.ids(),
		Tags: tags.ids(), Mailboxes: mailboxes.ids()}
}

// idSet is a set of ids.
type idSet map[int64]bool

// ids lists the set in order, nil when empty.
func (s idSet) ids() []int64 {
	if len(s) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(s))
}
