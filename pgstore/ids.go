package pgstore

import (
	"fmt"

	parley "github.com/parley/parley"
)

// Ids are unique across companies (a URL never names two records, and the
// embedded store keys records by id alone), yet no table holds them all:
// under Citus such a table would be a reference table, and each new record
// a write replicated to every node. Instead:
//
//   - An id drawn from its family's sequence is unique by construction: it
//     needs no claim, and its write keeps to its company.
//   - An id given to a new record (an import, a copy, a pull) moves the
//     family's sequence past it in the same write, so no id drawn later
//     reaches it, and must be free: the write reads, by id across
//     companies, whether another company's record holds it (refused if
//     so). Only given ids run that read.
//
// Every other read that names a record by id takes its company from the
// caller (the seam's methods take it), so no statement looks a company up.
//
// Writes run REPEATABLE READ, so two writes giving one id to two companies
// at once would each find it free on its own snapshot: a write that gives
// ids of a family takes the family's rule lock first (company 0's row of
// rule_locks, see rule_locks.go), and of two such writes the second runs
// again and finds the id held. Writes that draw ids take no such lock.
//
// What the check cannot see: a given id that the sequence had already
// reached, equal to an id drawn by a write still running (the drawing
// write takes no lock and reads nothing the giving one writes). Ids given
// are a source's (an import's, a pull's) or a copy's, into a target
// checked first; one equal to an id drawn in the same moment is unlikely,
// not impossible.

// ByID marks the statements that read a company table by id across
// companies: the check of a given id, and the loads of a record whatever
// its company (ConversationByID and the like, for outbox entries older
// than entries naming their company, which this store never writes).
// Under Citus they are multi-shard reads, run for imports, copies and
// pulls, never for a record's ordinary writes or reads.
const ByID = "/* by id across companies: a given id, an unknown company */"

// idFamily is a family of ids that may be given to new records: its
// sequence, and the read of whether a record of another company than $2
// holds the id $1, and whether the sequence $3 has not reached it yet.
type idFamily struct {
	noun     string
	sequence string
	held     string
}

var (
	conversationIDs = newIDFamily("conversation", seqConversations, "conversations")
	customerIDs     = newIDFamily("customer", seqCustomers, "customers")
	mailboxIDs      = newIDFamily("mailbox", seqMailboxes, "mailboxes")
	organizationIDs = newIDFamily("organization", seqOrganizations, "organizations")
	threadIDs       = newIDFamily("thread", seqThreads, "threads")
	attachmentIDs   = newIDFamily("attachment", seqAttachments, "attachments")
	webhookIDs      = newIDFamily("webhook", seqWebhooks, "webhooks")
)

// newIDFamily is the family whose records table holds, each by id (an
// index on id serves the check).
func newIDFamily(noun, sequence, table string) idFamily {
	return idFamily{noun, sequence, stmt(`SELECT EXISTS (SELECT 1 FROM ` + table + ` r WHERE r.id = $1 AND r.company_id <> $2),
coalesce((SELECT s.last_value FROM pg_sequences s WHERE s.schemaname = current_schema() AND s.sequencename = $3), 0) < $1 ` + ByID)}
}

// keepGivenID keeps an id given to a new record of company: a record of
// another company holding it is refused (the embedded store would
// overwrite that company's record; the domain checks ConversationIDTaken
// and CustomerIDTaken first), and the family's sequence moves past it
// unless it is past already (a sequence only grows, so an id it reached
// needs no lock). The family's rule lock makes two writes that give the
// same id to two companies take turns (see above).
func (t *Tx) keepGivenID(f idFamily, id, company int64) error {
	if err := t.LockRule(0, "given "+f.noun+" ids"); err != nil {
		return err
	}
	var held, ahead bool
	if _, err := t.scan(f.held, []any{id, company, f.sequence}, &held, &ahead); err != nil {
		return err
	}
	if held {
		return fmt.Errorf("pgstore: %s %d belongs to another company", f.noun, id)
	}
	if ahead {
		return t.keepSequencePast(f.sequence, id)
	}
	return nil
}

// idTaken says whether a record of any company holds an id of a family
// (no company is 0).
func (t *Tx) idTaken(f idFamily, id int64) bool {
	var taken, ahead bool
	t.scan(f.held, []any{id, 0, f.sequence}, &taken, &ahead) // a failure stays on the transaction
	return taken
}

// absent turns the read of a record by its company and id into whether
// the company has no such record (isNew of assignOrKeepID).
func absent[T any](_ *T, err error) (bool, error) {
	if parley.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

// assignOrKeepID gives a record of a family a drawn id when it has none,
// and keeps a given one when the record is new (isNew reads whether its
// company has no record with this id yet).
func (t *Tx) assignOrKeepID(f idFamily, id *int64, company int64, isNew func() (bool, error)) error {
	if *id == 0 {
		return t.assignID(f.sequence, id)
	}
	fresh, err := isNew()
	if err != nil || !fresh {
		return err
	}
	return t.keepGivenID(f, *id, company)
}
