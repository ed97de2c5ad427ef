package pgstore

import parley "github.com/parley/parley"

var (
	sqlThread    = cachedStmt(`SELECT h.body FROM threads h WHERE h.company_id = $1 AND h.conversation_id = $2 AND h.id = $3`)
	sqlThreads   = cachedStmt(`SELECT h.body FROM threads h WHERE h.company_id = $1 AND h.conversation_id = $2 ORDER BY h.id`)
	sqlPutThread = stmt(`INSERT INTO threads (company_id, conversation_id, id, body) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, conversation_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlDeleteThread = stmt(`DELETE FROM threads h WHERE h.company_id = $1 AND h.conversation_id = $2 AND h.id = $3`)

	sqlRating    = stmt(`SELECT r.conversation_id, r.thread_id FROM ratings r WHERE r.company_id = $1 AND r.id = $2`)
	sqlPutRating = stmt(`INSERT INTO ratings (company_id, id, conversation_id, thread_id) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, id) DO UPDATE SET conversation_id = EXCLUDED.conversation_id, thread_id = EXCLUDED.thread_id`)

	sqlThreadSource    = stmt(`SELECT s.raw FROM thread_sources s WHERE s.company_id = $1 AND s.thread_id = $2`)
	sqlPutThreadSource = stmt(`INSERT INTO thread_sources (company_id, thread_id, raw) VALUES ($1, $2, $3)
ON CONFLICT (company_id, thread_id) DO UPDATE SET raw = EXCLUDED.raw`)
)

// Threads lists a company's conversation's threads, oldest first (ids
// grow with time).
func (t *Tx) Threads(companyID, conversationID int64) ([]parley.Thread, error) {
	return many[parley.Thread](t, sqlThreads, companyID, conversationID)
}

// PutThread stores a thread under its conversation, with the address of
// its rating and its Message-ID key.
func (t *Tx) PutThread(th *parley.Thread) error {
	// A thread is new to its conversation when given its id, or when a
	// merge moves it here.
	isNew := func() (bool, error) {
		return absent(one[parley.Thread](t, "thread", sqlThread, th.CompanyID, th.ConversationID, th.ID))
	}
	if err := t.assignOrKeepID(threadIDs, &th.ID, th.CompanyID, isNew); err != nil {
		return err
	}
	if r := th.Rating; r != nil {
		if err := t.assignID(seqRatings, &r.ID); err != nil {
			return err
		}
		// The rating's address follows its thread, through merges too.
		if err := t.exec(sqlPutRating, th.CompanyID, r.ID, th.ConversationID, th.ID); err != nil {
			return err
		}
	}
	if th.MessageID != "" {
		if err := t.exec(sqlPutMessageID, th.CompanyID, keyText(th.MessageID), th.ConversationID); err != nil {
			return err
		}
	}
	return t.put(sqlPutThread, th, th.CompanyID, th.ConversationID, th.ID)
}

// DeleteThread removes a thread from a conversation (a merge moves it: its
// source and rating stay).
func (t *Tx) DeleteThread(companyID, conversationID, threadID int64) error {
	return t.exec(sqlDeleteThread, companyID, conversationID, threadID)
}

// RatedThread finds the conversation and the reply a company's rating is
// attached to; another company's rating is not found.
func (t *Tx) RatedThread(companyID, ratingID int64) (*parley.Conversation, *parley.Thread, error) {
	var convID, threadID int64
	found, err := t.scan(sqlRating, []any{companyID, ratingID}, &convID, &threadID)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, parley.NotFound("rating")
	}
	c, err := t.Conversation(companyID, convID)
	if parley.IsNotFound(err) || err == nil && c.State == parley.StateDeleted {
		return nil, nil, parley.NotFound("rating")
	}
	if err != nil {
		return nil, nil, err
	}
	th, err := one[parley.Thread](t, "rating", sqlThread, companyID, convID, threadID)
	if err == nil && (th.Rating == nil || th.Rating.ID != ratingID) {
		err = parley.NotFound("rating")
	}
	if err != nil {
		return nil, nil, err
	}
	return c, th, nil
}

// PutThreadSource keeps the raw message a company's thread came in as, or
// the one Parley built for it.
func (t *Tx) PutThreadSource(companyID, threadID int64, raw []byte) error {
	if raw == nil {
		raw = []byte{} // kept, though empty, as the embedded store keeps it
	}
	return t.exec(sqlPutThreadSource, companyID, threadID, raw)
}

// ThreadSource is the raw message a thread came in as, or the message
// Parley built and sent for it; NotFound when it has neither.
func (t *Tx) ThreadSource(companyID, threadID int64) ([]byte, error) {
	var raw []byte
	found, err := t.scan(sqlThreadSource, []any{companyID, threadID}, &raw)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("original source")
	}
	return raw, nil
}
