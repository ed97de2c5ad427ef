package pgstore

import parley "github.com/parley/parley"

var (
	sqlAttachment     = stmt(`SELECT a.body FROM attachments a WHERE a.company_id = $1 AND a.id = $2`)
	sqlAttachmentData = stmt(`SELECT a.data FROM attachments a WHERE a.company_id = $1 AND a.id = $2 AND a.data IS NOT NULL`)
	// A write without bytes keeps those already stored, as the embedded
	// store's does.
	sqlPutAttachment = stmt(`INSERT INTO attachments (company_id, id, data, body) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body, data = coalesce(EXCLUDED.data, attachments.data)`)
	sqlDeleteAttachment = stmt(`DELETE FROM attachments a WHERE a.company_id = $1 AND a.id = $2`)
)

// PutAttachment stores an attachment and its bytes (none when data is nil).
func (t *Tx) PutAttachment(a *parley.Attachment, data []byte) error {
	if err := t.assignOwnedID(seqAttachments, ownedAttachment, &a.ID, a.CompanyID); err != nil {
		return err
	}
	if err := t.claim(ownedAttachment, a.ID, a.CompanyID); err != nil {
		return err
	}
	return t.put(sqlPutAttachment, a, a.CompanyID, a.ID, data)
}

// Attachment loads an attachment's metadata.
func (t *Tx) Attachment(companyID, id int64) (*parley.Attachment, error) {
	return one[parley.Attachment](t, "attachment", sqlAttachment, companyID, id)
}

// AttachmentData returns an attachment's bytes.
func (t *Tx) AttachmentData(id int64) ([]byte, error) {
	company, found, err := t.companyOf(ownedAttachment, id)
	var data []byte
	if err == nil && found {
		found, err = t.scan(sqlAttachmentData, []any{company, id}, &data)
	}
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("attachment")
	}
	return data, nil
}

// DeleteAttachment removes an attachment and its bytes.
func (t *Tx) DeleteAttachment(id int64) error {
	company, found, err := t.companyOf(ownedAttachment, id)
	if err != nil || !found {
		return err
	}
	if err := t.exec(sqlDeleteAttachment, company, id); err != nil {
		return err
	}
	return t.disown(ownedAttachment, id)
}

// MoveAttachments points attachments at another conversation.
func (t *Tx) MoveAttachments(ids []int64, conversationID int64) error {
	for _, id := range ids {
		company, found, err := t.companyOf(ownedAttachment, id)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		a, err := t.Attachment(company, id)
		if err != nil {
			return err
		}
		a.ConversationID = conversationID
		if err := t.PutAttachment(a, nil); err != nil {
			return err
		}
	}
	return nil
}
