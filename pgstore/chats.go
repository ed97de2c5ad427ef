package pgstore

import parley "github.com/parley/parley"

var (
	sqlChat         = stmt(`SELECT h.body FROM chats h WHERE h.company_id = $1 AND h.id = $2`)
	sqlPutChat      = stmt(`INSERT INTO chats (company_id, id, body) VALUES ($1, $2, $3) ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlChatIDsAfter = stmt(`SELECT h.id FROM chats h WHERE h.company_id = $1 AND h.id > $2 ORDER BY h.id LIMIT $3`)
)

// Chat loads a chat of a company.
func (t *Tx) Chat(companyID int64, id string) (*parley.Chat, error) {
	return one[parley.Chat](t, "chat", sqlChat, companyID, keyText(id))
}

// ChatByID loads a chat whatever its company, for callers that learn the
// company from the chat (the indexer, the visitor widget).
func (t *Tx) ChatByID(id string) (*parley.Chat, error) {
	var company int64
	found, err := t.scan(sqlChatOwner, []any{keyText(id)}, &company)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("chat")
	}
	return t.Chat(company, id)
}

// PutChat stores a chat and queues it for indexing.
func (t *Tx) PutChat(c *parley.Chat) error {
	if err := t.exec(sqlClaimChat, keyText(c.ID), c.CompanyID); err != nil {
		return err
	}
	if err := t.put(sqlPutChat, c, c.CompanyID, keyText(c.ID)); err != nil {
		return err
	}
	t.queueRef(parley.OutboxChat, c.CompanyID, c.ID)
	return nil
}

// EachChatID calls fn with every chat id, company by company in id order.
func (t *Tx) EachChatID(fn func(string)) error {
	return t.eachCompany(func(company int64) error {
		after := ""
		for {
			page, err := collect(t, textRow, sqlChatIDsAfter, company, after, walkPage)
			if err != nil {
				return err
			}
			for _, id := range page {
				fn(id)
			}
			if len(page) < walkPage {
				return nil
			}
			after = page[len(page)-1]
		}
	})
}
