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
	if err := t.assignOrKeepID(attachmentIDs, &a.ID, a.CompanyID, func() (bool, error) { return absent(t.Attachment(a.CompanyID, a.ID)) }); err != nil {
		return err
	}
	return t.put(sqlPutAttachment, a, a.CompanyID, a.ID, data)
}

// Attachment loads an attachment's metadata.
func (t *Tx) Attachment(companyID, id int64) (*parley.Attachment, error) {
	return one[parley.Attachment](t, "attachment", sqlAttachment, companyID, id)
}

// AttachmentData returns the bytes of a company's attachment.
func (t *Tx) AttachmentData(companyID, id int64) ([]byte, error) {
	var data []byte
	found, err := t.scan(sqlAttachmentData, []any{companyID, id}, &data)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("attachment")
	}
	return data, nil
}

// DeleteAttachment removes a company's attachment and its bytes.
func (t *Tx) DeleteAttachment(companyID, id int64) error {
	return t.exec(sqlDeleteAttachment, companyID, id)
}

// MoveAttachments points a company's attachments at another of its
// conversations.
func (t *Tx) MoveAttachments(companyID int64, ids []int64, conversationID int64) error {
	for _, id := range ids {
		a, err := t.Attachment(companyID, id)
		if parley.IsNotFound(err) {
			continue
		}
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
