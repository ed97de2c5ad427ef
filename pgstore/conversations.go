package pgstore

import (
	"fmt"

	parley "github.com/parley/parley"
)

var (
	sqlConversation       = cachedStmt(`SELECT c.body FROM conversations c WHERE c.company_id = $1 AND c.id = $2`)
	sqlConversationByID   = stmt(`SELECT c.body FROM conversations c WHERE c.id = $1 ` + ByID)
	sqlConversationsByIDs = stmt(`SELECT c.body FROM conversations c WHERE c.company_id = $1 AND c.id = ANY($2)`)
	sqlPutConversation    = stmt(`INSERT INTO conversations (company_id, id, number, customer_id, mailbox_id, deleted, open_assignee, tag_ids, body)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (company_id, id) DO UPDATE SET number = EXCLUDED.number, customer_id = EXCLUDED.customer_id,
mailbox_id = EXCLUDED.mailbox_id, deleted = EXCLUDED.deleted, open_assignee = EXCLUDED.open_assignee,
tag_ids = EXCLUDED.tag_ids, body = EXCLUDED.body`)
	sqlConversationsAfter   = stmt(`SELECT c.body FROM conversations c WHERE c.company_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3`)
	sqlConversationIDsFrom  = stmt(`SELECT c.id FROM conversations c WHERE c.company_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3`)
	sqlConversationByNumber = stmt(`SELECT c.id FROM conversations c WHERE c.company_id = $1 AND c.number = $2`)

	sqlNextConversationNumber = stmt(`INSERT INTO conversation_numbers (company_id, last_number) VALUES ($1, 1)
ON CONFLICT (company_id) DO UPDATE SET last_number = conversation_numbers.last_number + 1 RETURNING last_number`)
	sqlKeepConversationNumber = stmt(`INSERT INTO conversation_numbers (company_id, last_number) VALUES ($1, $2)
ON CONFLICT (company_id) DO UPDATE SET last_number = greatest(conversation_numbers.last_number, EXCLUDED.last_number)`)

	sqlConversationByMessageID = stmt(`SELECT m.conversation_id FROM message_ids m WHERE m.company_id = $1 AND m.message_id = $2`)
	sqlPutMessageID            = stmt(`INSERT INTO message_ids (company_id, message_id, conversation_id) VALUES ($1, $2, $3)
ON CONFLICT (company_id, message_id) DO UPDATE SET conversation_id = EXCLUDED.conversation_id`)
)

// Conversation loads a conversation of a company.
func (t *Tx) Conversation(companyID, id int64) (*parley.Conversation, error) {
	return one[parley.Conversation](t, "conversation", sqlConversation, companyID, id)
}

// ConversationsByIDs loads a company's conversations in the order asked,
// in one statement.
func (t *Tx) ConversationsByIDs(companyID int64, ids []int64) ([]parley.Conversation, error) {
	return inOrder(t, sqlConversationsByIDs, companyID, ids, func(c *parley.Conversation) int64 { return c.ID })
}

// ConversationByID loads a conversation whatever its company, by id
// across companies (see ByID).
func (t *Tx) ConversationByID(id int64) (*parley.Conversation, error) {
	return one[parley.Conversation](t, "conversation", sqlConversationByID, id)
}

// ConversationIDTaken says whether a record of any company holds a
// conversation id (an id to give must be free).
func (t *Tx) ConversationIDTaken(id int64) bool {
	return t.idTaken(conversationIDs, id)
}

// ConversationNumberTaken says whether the company used a number.
func (t *Tx) ConversationNumberTaken(companyID, number int64) bool {
	_, err := t.ConversationIDByNumber(companyID, number)
	return err == nil
}

// ConversationIDByNumber finds a company's conversation by its number.
func (t *Tx) ConversationIDByNumber(companyID, number int64) (int64, error) {
	var id int64
	found, err := t.scan(sqlConversationByNumber, []any{companyID, number}, &id)
	if err == nil && !found {
		err = parley.NotFound("conversation")
	}
	return id, err
}

// PutConversation stores a conversation, assigning an id and the company's
// next number when new, and queues it for indexing, with its customer when
// the conversation is new, moved or deleted (the customer's document holds
// its mailboxes).
func (t *Tx) PutConversation(c *parley.Conversation) error {
	var old *parley.Conversation
	isNew := func() (bool, error) {
		var err error
		old, err = t.Conversation(c.CompanyID, c.ID)
		return absent(old, err)
	}
	if err := t.assignOrKeepID(conversationIDs, &c.ID, c.CompanyID, isNew); err != nil {
		return err
	}
	if err := t.numberConversation(c); err != nil {
		return err
	}
	if old != nil && (old.CustomerID != c.CustomerID || c.State == parley.StateDeleted) {
		t.touch(parley.OutboxCustomer, old.CompanyID, old.CustomerID)
	}
	if old == nil || old.CustomerID != c.CustomerID || old.MailboxID != c.MailboxID {
		t.touch(parley.OutboxCustomer, c.CompanyID, c.CustomerID)
	}
	tagIDs := c.TagIDs
	if tagIDs == nil {
		tagIDs = []int64{}
	}
	if err := t.put(sqlPutConversation, c, c.CompanyID, c.ID, c.Number, c.CustomerID, c.MailboxID,
		c.State == parley.StateDeleted, openAssignee(c), tagIDs); err != nil {
		return err
	}
	t.touch(parley.OutboxConversation, c.CompanyID, c.ID)
	return nil
}

// openAssignee is the user an open (published, active or pending)
// conversation is assigned to, or nil: routing counts a user's load by it.
func openAssignee(c *parley.Conversation) *int64 {
	if c.State != parley.StatePublished || (c.Status != parley.StatusActive && c.Status != parley.StatusPending) ||
		c.Assignee == nil || c.Assignee.Type != parley.PartyUser {
		return nil
	}
	return &c.Assignee.ID
}

// numberConversation gives a new conversation the company's next number,
// or keeps the number it came with (an import), keeping the company's
// counter past every number used. A number another conversation holds is
// refused (the embedded store would let both hold it; the domain checks
// ConversationNumberTaken first).
func (t *Tx) numberConversation(c *parley.Conversation) error {
	if c.Number == 0 {
		return t.counter(sqlNextConversationNumber, []any{c.CompanyID}, &c.Number)
	}
	holder, err := t.ConversationIDByNumber(c.CompanyID, c.Number)
	switch {
	case err == nil && holder == c.ID:
		return nil // an existing conversation keeps its number
	case err == nil:
		return fmt.Errorf("pgstore: conversation number %d of company %d is taken", c.Number, c.CompanyID)
	case !parley.IsNotFound(err):
		return err
	}
	return t.counter(sqlKeepConversationNumber, []any{c.CompanyID, c.Number})
}

// counter runs a statement of a company's conversation counter on its
// own, committed at once, outside the write's transaction. The counter is
// one row per company: a lock on it held until the write commits would
// make every writer of the company, on every node, wait for a node paused
// in the middle of a write (a stopped process, a long pause) until that
// node's session ends, and would make concurrent writers' transactions
// fail and run again. So a number is never used twice and numbers
// increase, but they are not gap-free: a number drawn by a write that then
// fails, or runs again, is not used. dest receives the row the statement
// returns, if any.
func (t *Tx) counter(sql string, args []any, dest ...any) error {
	if t.failed != nil {
		return t.failed
	}
	if len(dest) == 0 {
		_, err := t.counters.Exec(t.ctx, sql, args...)
		return t.check(err)
	}
	return t.check(t.counters.QueryRow(t.ctx, sql, args...).Scan(dest...))
}

// ConversationByMessageID finds the conversation of the company holding a
// thread with this Message-ID.
func (t *Tx) ConversationByMessageID(companyID int64, messageID string) (int64, error) {
	var id int64
	found, err := t.scan(sqlConversationByMessageID, []any{companyID, keyText(messageID)}, &id)
	if err == nil && !found {
		err = parley.NotFound("message")
	}
	return id, err
}

// EachConversation calls fn for every conversation of every company,
// company by company in id order.
func (t *Tx) EachConversation(fn func(*parley.Conversation) error) error {
	return walk(t, sqlConversationsAfter, bodyRow[parley.Conversation], func(c parley.Conversation) int64 { return c.ID },
		func(c parley.Conversation) error { return fn(&c) })
}

// EachConversationID calls fn with every conversation id and its company.
func (t *Tx) EachConversationID(fn func(companyID, id int64)) error {
	return walkIDs(t, sqlConversationIDsFrom, fn)
}
