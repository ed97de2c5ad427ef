package pgstore

var sqlNextID = stmt(`SELECT nextval($1::regclass)`)

// nextID draws the next id of a family from its sequence. Ids are global
// across companies, so a URL never names two records. Unlike the embedded
// store's, a sequence does not roll back: a write that fails or runs again
// leaves a gap.
func (t *Tx) nextID(sequence string) (int64, error) {
	var id int64
	_, err := t.scan(sqlNextID, []any{sequence}, &id)
	return id, err
}

// The sequence of each family (see the migrations). Users and teams share
// one, as in the embedded store: an id names a user or a team, never both
// (the user reports take either in the same parameter). The migrations'
// team_ids sequence is no longer drawn from.
const (
	seqCompanies              = "company_ids"
	seqUsers                  = "user_ids" // and teams'
	seqMailboxes              = "mailbox_ids"
	seqSavedReplies           = "saved_reply_ids"
	seqCustomers              = "customer_ids"
	seqCustomerProperties     = "customer_property_ids"
	seqOrganizations          = "organization_ids"
	seqOrganizationProperties = "organization_property_ids"
	seqTags                   = "tag_ids"
	seqConversations          = "conversation_ids"
	seqThreads                = "thread_ids"
	seqRatings                = "rating_ids"
	seqAttachments            = "attachment_ids"
	seqWebhooks               = "webhook_ids"
	seqDeliveries             = "delivery_ids"
	seqMail                   = "mail_ids"
	seqWorkflows              = "workflow_ids"
	seqWorkflowRuns           = "workflow_run_ids"
	seqItems                  = "item_ids"
)

// assignID gives *id the next id of a family when it is 0.
func (t *Tx) assignID(sequence string, id *int64) error {
	if *id != 0 {
		return nil
	}
	n, err := t.nextID(sequence)
	*id = n
	return err
}

var (
	sqlSequenceLock = stmt(`SELECT pg_advisory_xact_lock(hashtext($1))`)
	sqlSequencePast = stmt(`SELECT setval($1::text::regclass, $2) FROM pg_sequences s WHERE s.schemaname = current_schema() AND s.sequencename = $1::text AND coalesce(s.last_value, 0) < $2`)
)

// drawOrKeepID gives *id the next id of a sequence when it is 0, and else
// moves the sequence past the id given (a copy, an import), so that no id
// drawn later reaches it.
func (t *Tx) drawOrKeepID(sequence string, id *int64) error {
	if *id == 0 {
		return t.assignID(sequence, id)
	}
	return t.keepSequencePast(sequence, *id)
}

// keepSequencePast moves a family's sequence to at least id (an imported
// id: later ids must not reach it). setval is not transactional, so the
// compare and the set run under a lock of the sequence held until commit.
func (t *Tx) keepSequencePast(sequence string, id int64) error {
	if err := t.exec(sqlSequenceLock, sequence); err != nil {
		return err
	}
	return t.exec(sqlSequencePast, sequence, id)
}
