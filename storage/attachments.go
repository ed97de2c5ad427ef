package storage

import (
	"bytes"

	parley "github.com/parley/parley"
)

// Attachment metadata and bytes live apart from threads, so reading a
// conversation never loads files.
var (
	bucketAttachments    = newBucket("attachments")     // id -> metadata
	bucketAttachmentData = newBucket("attachment_data") // id -> bytes
)

// PutAttachment stores an attachment and its bytes (none when data is nil).
func (t *Tx) PutAttachment(a *parley.Attachment, data []byte) error {
	if err := t.assignOrKeepID(bucketAttachments, &a.ID); err != nil {
		return err
	}
	if data != nil {
		if err := t.tx.Bucket(bucketAttachmentData).Put(key(a.ID), data); err != nil {
			return err
		}
	}
	return t.put(bucketAttachments, key(a.ID), a)
}

// Attachment loads an attachment's metadata.
func (t *Tx) Attachment(companyID, id int64) (*parley.Attachment, error) {
	return scoped(t, bucketAttachments, id, func(a *parley.Attachment) int64 { return a.CompanyID }, companyID, "attachment")
}

// AttachmentData returns a copy of the bytes of a company's attachment.
func (t *Tx) AttachmentData(companyID, id int64) ([]byte, error) {
	if _, err := t.Attachment(companyID, id); err != nil {
		return nil, err
	}
	data := t.tx.Bucket(bucketAttachmentData).Get(key(id))
	if data == nil {
		return nil, parley.NotFound("attachment")
	}
	return bytes.Clone(data), nil
}

// DeleteAttachment removes a company's attachment and its bytes.
func (t *Tx) DeleteAttachment(companyID, id int64) error {
	if _, err := t.Attachment(companyID, id); parley.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if err := t.tx.Bucket(bucketAttachmentData).Delete(key(id)); err != nil {
		return err
	}
	return t.tx.Bucket(bucketAttachments).Delete(key(id))
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
		if err := t.put(bucketAttachments, key(id), a); err != nil {
			return err
		}
	}
	return nil
}
