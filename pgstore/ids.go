package pgstore

import "fmt"

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

// ByID marks the statements that read a company table by id across
// companies: the check of a given id, the index rebuild's loads of a record
// whatever its company. Under Citus they are multi-shard reads, run for
// imports, copies and rebuilds, never for a record's ordinary writes.
const ByID = "/* by id across companies: a given id, a rebuild */"

// idFamily is a family of ids that may be given to new records: its
// sequence, and the read of whether a record of another company than $2
// holds the id $1.
type idFamily struct {
	noun     string
	sequence string
	held     string
}

var (
	conversationIDs = idFamily{"conversation", seqConversations,
		stmt(`SELECT EXISTS (SELECT 1 FROM conversations c WHERE c.id = $1 AND c.company_id <> $2) ` + ByID)}
	customerIDs = idFamily{"customer", seqCustomers,
		stmt(`SELECT EXISTS (SELECT 1 FROM customers c WHERE c.id = $1 AND c.company_id <> $2) ` + ByID)}
	mailboxIDs = idFamily{"mailbox", seqMailboxes,
		stmt(`SELECT EXISTS (SELECT 1 FROM mailboxes m WHERE m.id = $1 AND m.company_id <> $2) ` + ByID)}
	organizationIDs = idFamily{"organization", seqOrganizations,
		stmt(`SELECT EXISTS (SELECT 1 FROM organizations o WHERE o.id = $1 AND o.company_id <> $2) ` + ByID)}
	threadIDs = idFamily{"thread", seqThreads,
		stmt(`SELECT EXISTS (SELECT 1 FROM threads h WHERE h.id = $1 AND h.company_id <> $2) ` + ByID)}
	attachmentIDs = idFamily{"attachment", seqAttachments,
		stmt(`SELECT EXISTS (SELECT 1 FROM attachments a WHERE a.id = $1 AND a.company_id <> $2) ` + ByID)}
	webhookIDs = idFamily{"webhook", seqWebhooks,
		stmt(`SELECT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = $1 AND w.company_id <> $2) ` + ByID)}
)

// keepGivenID keeps an id given to a new record of company: the family's
// sequence moves past it, and a record of another company holding it is
// refused (the embedded store would overwrite that company's record; the
// domain checks ConversationIDTaken and CustomerIDTaken first). The
// sequence's lock, held until commit, makes two writes giving ids of the
// family take turns; the serializable transaction makes two that give the
// same id to two companies fail one of them (both read the id free, then
// write it), and the failed one runs again and finds it held.
func (t *Tx) keepGivenID(f idFamily, id, company int64) error {
	if err := t.keepSequencePast(f.sequence, id); err != nil {
		return err
	}
	var held bool
	if _, err := t.scan(f.held, []any{id, company}, &held); err != nil {
		return err
	}
	if held {
		return fmt.Errorf("pgstore: %s %d belongs to another company", f.noun, id)
	}
	return nil
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
