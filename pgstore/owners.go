package pgstore

import "fmt"

// A few reads of the seam name a record by its id alone (a conversation's
// threads, a customer's conversations, a webhook's deliveries, the
// indexer's loads): the owners reference table gives the company of such
// ids, so that the statement that follows filters by it like every other.
// It holds every id of the families below, which also keeps those ids
// unique across companies.
//
// Citus note: owners is a reference table, so each new id of these
// families is a write replicated to every node. Threads are the most
// numerous; should that cost show, the thread id could carry its
// conversation's company instead.

// Families whose ids the owners table holds.
const (
	ownedConversation = "conversation"
	ownedCustomer     = "customer"
	ownedMailbox      = "mailbox"
	ownedOrganization = "organization"
	ownedThread       = "thread"
	ownedAttachment   = "attachment"
	ownedWebhook      = "webhook"
)

type owner struct {
	kind string
	id   int64
}

var (
	sqlOwner  = stmt(`SELECT o.company_id FROM owners o WHERE o.kind = $1 AND o.id = $2`)
	sqlClaim  = stmt(`INSERT INTO owners (kind, id, company_id) VALUES ($1, $2, $3) ON CONFLICT (kind, id) DO NOTHING RETURNING company_id`)
	sqlDisown = stmt(`DELETE FROM owners o WHERE o.kind = $1 AND o.id = $2`)

	sqlChatOwner = stmt(`SELECT o.company_id FROM chat_owners o WHERE o.chat_id = $1`)
	sqlClaimChat = stmt(`INSERT INTO chat_owners (chat_id, company_id) VALUES ($1, $2) ON CONFLICT (chat_id) DO NOTHING`)
)

// companyOf returns the company owning an id of a family; found is false
// for an id no record holds.
func (t *Tx) companyOf(kind string, id int64) (company int64, found bool, err error) {
	if c, ok := t.owners[owner{kind, id}]; ok {
		return c, true, nil
	}
	found, err = t.scan(sqlOwner, []any{kind, id}, &company)
	if found {
		t.owners[owner{kind, id}] = company
	}
	return company, found, err
}

var sqlDrawOwnedID = stmt(`WITH drawn AS (SELECT nextval($1::regclass) AS id),
claimed AS (INSERT INTO owners (kind, id, company_id) SELECT $2, d.id, $3 FROM drawn d ON CONFLICT (kind, id) DO NOTHING RETURNING company_id)
SELECT d.id, (SELECT c.company_id FROM claimed c) FROM drawn d`)

// assignOwnedID is assignID for a family whose ids the owners table
// holds: a new id is drawn from sequence and claimed for company in one
// statement, so the claim that follows it (which an id given calls for)
// finds it owned. An id drawn that another company holds is left to that
// claim, which refuses it.
func (t *Tx) assignOwnedID(sequence, kind string, id *int64, company int64) error {
	if *id != 0 {
		return nil
	}
	var holder *int64
	if _, err := t.scan(sqlDrawOwnedID, []any{sequence, kind, company}, id, &holder); err != nil {
		return err
	}
	if holder != nil {
		t.owners[owner{kind, *id}] = *holder
	}
	return nil
}

// claim records that company owns an id of a family. An id another
// company owns is refused: the embedded store would overwrite that
// company's record, which the domain prevents by checking ids first.
func (t *Tx) claim(kind string, id, company int64) error {
	if c, ok := t.owners[owner{kind, id}]; ok && c == company {
		return nil
	}
	var holder int64
	inserted, err := t.scan(sqlClaim, []any{kind, id, company}, &holder)
	if err != nil {
		return err
	}
	if !inserted {
		delete(t.owners, owner{kind, id})
		if holder, _, err = t.companyOf(kind, id); err != nil {
			return err
		}
	}
	t.owners[owner{kind, id}] = holder
	if holder != company {
		return fmt.Errorf("pgstore: %s %d belongs to another company", kind, id)
	}
	return nil
}

// disown forgets the owner of a removed record's id.
func (t *Tx) disown(kind string, id int64) error {
	delete(t.owners, owner{kind, id})
	return t.exec(sqlDisown, kind, id)
}
