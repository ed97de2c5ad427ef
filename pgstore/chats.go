package pgstore

import parley "github.com/parley/parley"

var (
	sqlChat         = stmt(`SELECT h.body FROM chats h WHERE h.company_id = $1 AND h.id = $2`)
	sqlChatByID     = stmt(`SELECT h.body FROM chats h WHERE h.id = $1 ` + ByID)
	sqlPutChat      = stmt(`INSERT INTO chats (company_id, id, body) VALUES ($1, $2, $3) ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlChatIDsAfter = stmt(`SELECT h.id FROM chats h WHERE h.company_id = $1 AND h.id > $2 ORDER BY h.id LIMIT $3`)

	sqlPutTimelineEntry = stmt(`INSERT INTO chat_timeline (company_id, chat_id, position, body) VALUES ($1, $2, $3, $4)`)
	sqlChatTimeline     = stmt(`SELECT l.body FROM chat_timeline l WHERE l.company_id = $1 AND l.chat_id = $2 ORDER BY l.position`)
	sqlTimelineLength   = stmt(`SELECT count(*) FROM chat_timeline l WHERE l.company_id = $1 AND l.chat_id = $2`)
)

// Chat loads a chat of a company.
func (t *Tx) Chat(companyID int64, id string) (*parley.Chat, error) {
	return one[parley.Chat](t, "chat", sqlChat, companyID, keyText(id))
}

// ChatByID loads a chat whatever its company, by id across companies (see
// ByID).
func (t *Tx) ChatByID(id string) (*parley.Chat, error) {
	return one[parley.Chat](t, "chat", sqlChatByID, keyText(id))
}

// PutChat stores a chat and queues it for indexing. Chat ids are random
// (UUIDs), unique without a claim.
func (t *Tx) PutChat(c *parley.Chat) error {
	if err := t.put(sqlPutChat, c, c.CompanyID, keyText(c.ID)); err != nil {
		return err
	}
	t.touchRef(parley.OutboxChat, c.CompanyID, c.ID)
	return nil
}

// EachChatID calls fn with every chat id and its company, company by
// company in id order.
func (t *Tx) EachChatID(fn func(companyID int64, id string)) error {
	return t.eachCompany(func(company int64) error {
		after := ""
		for {
			page, err := collect(t, textRow, sqlChatIDsAfter, company, after, walkPage)
			if err != nil {
				return err
			}
			for _, id := range page {
				fn(company, id)
			}
			if len(page) < walkPage {
				return nil
			}
			after = page[len(page)-1]
		}
	})
}

// PutTimelineEntry appends an entry to a chat's timeline: one new row, at
// the position after the last (two writers of one chat cannot both take
// it: the second meets the first's key and runs again, see retryable).
func (t *Tx) PutTimelineEntry(companyID int64, chatID string, e parley.TimelineEntry) error {
	n, err := t.TimelineLength(companyID, chatID)
	if err != nil {
		return err
	}
	return t.put(sqlPutTimelineEntry, e, companyID, keyText(chatID), n)
}

// ChatTimeline lists a chat's timeline in position order.
func (t *Tx) ChatTimeline(companyID int64, chatID string) ([]parley.TimelineEntry, error) {
	return many[parley.TimelineEntry](t, sqlChatTimeline, companyID, keyText(chatID))
}

// TimelineLength counts a chat's timeline entries.
func (t *Tx) TimelineLength(companyID int64, chatID string) (int, error) {
	var n int
	_, err := t.scan(sqlTimelineLength, []any{companyID, keyText(chatID)}, &n)
	return n, err
}
