package parley

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif" // image dimensions of attachments
	_ "image/jpeg"
	_ "image/png"
	"mime"
	"strings"
	"time"
)

// MaxAttachmentBytes is the largest original file an attachment may hold
// (Help Scout's docs: Base64 data of a file under 10 MB).
const MaxAttachmentBytes = 10 << 20

// AttachmentInput is an attachment in a request.
type AttachmentInput struct {
	FileName *string `json:"fileName"`
	MimeType *string `json:"mimeType"`
	Data     *string `json:"data"`
}

// AttachmentState says whether an attachment may be read.
type AttachmentState string

// Attachment states: a file found malicious is kept as a record, without
// its data, and cannot be read.
const (
	AttachmentOK    AttachmentState = "ok"
	AttachmentVirus AttachmentState = "virus"
)

// Attachment is a file on a thread. Its bytes are stored apart.
type Attachment struct {
	ID             int64           `json:"id"`
	CompanyID      int64           `json:"companyId"`
	ConversationID int64           `json:"conversationId"`
	ThreadID       int64           `json:"threadId"`
	FileName       string          `json:"filename"`
	MimeType       string          `json:"mimeType"`
	Size           int64           `json:"size"`
	Width          int             `json:"width,omitempty"`
	Height         int             `json:"height,omitempty"`
	State          AttachmentState `json:"state"`
	CreatedAt      time.Time       `json:"createdAt"`
}

// Scanner inspects uploaded files; Infected reports malicious content.
type Scanner interface {
	Infected(data []byte) bool
}

// eicar is the standard antivirus test string.
const eicar = `X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`

// EICARScanner is the default scanner: it flags files holding the EICAR
// test string, so the infected path is exercised for real. A deployment
// plugs a real scanner in its place.
type EICARScanner struct{}

// Infected reports whether data holds the EICAR test string.
func (EICARScanner) Infected(data []byte) bool { return bytes.Contains(data, []byte(eicar)) }

// ValidMimeType reports whether s is a full MIME type: type/subtype.
func ValidMimeType(s string) bool {
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return false
	}
	typ, sub, ok := strings.Cut(mt, "/")
	return ok && typ != "" && sub != "" && !strings.ContainsAny(sub, "/*") && typ != "*"
}

func (a *AttachmentInput) validate(p *Problems, prefix string) {
	if a.FileName == nil || strings.TrimSpace(*a.FileName) == "" {
		p.Add(prefix+"fileName", CodeEmptyValue, "may not be empty", a.FileName)
	}
	if a.MimeType == nil || !ValidMimeType(*a.MimeType) {
		p.Add(prefix+"mimeType", CodeInvalidMimeType, "must be a full MIME type such as image/png", a.MimeType)
	}
	if a.Data == nil {
		p.Add(prefix+"data", CodeInvalidAttachment, "data must be Base64", nil)
		return
	}
	if _, err := a.decode(); err != nil {
		p.Add(prefix+"data", CodeInvalidAttachment, err.Error(), nil)
	}
}

// decode reads the Base64 data and checks the original size.
func (a *AttachmentInput) decode() ([]byte, error) {
	// The decoded size is known before decoding: refuse early.
	if base64.StdEncoding.DecodedLen(len(*a.Data)) > MaxAttachmentBytes+2 {
		return nil, fmt.Errorf("the original file must be at most %d bytes", MaxAttachmentBytes)
	}
	data, err := base64.StdEncoding.DecodeString(*a.Data)
	if err != nil {
		return nil, fmt.Errorf("data must be valid Base64")
	}
	if len(data) > MaxAttachmentBytes {
		return nil, fmt.Errorf("the original file must be at most %d bytes", MaxAttachmentBytes)
	}
	return data, nil
}

// StoreAttachments stores the validated attachments of a stored thread,
// scanning each file; a malicious one is recorded without its data.
func StoreAttachments(tx Tx, t *Thread, inputs []AttachmentInput, scan Scanner) ([]int64, error) {
	ids := append([]int64(nil), t.Attachments...)
	for i := range inputs {
		in := &inputs[i]
		data, err := in.decode()
		if err != nil {
			return nil, InvalidField(fmt.Sprintf("attachments[%d].data", i), CodeInvalidAttachment, err.Error(), nil)
		}
		a := &Attachment{CompanyID: t.CompanyID, ConversationID: t.ConversationID, ThreadID: t.ID,
			FileName: strings.TrimSpace(*in.FileName), MimeType: *in.MimeType, Size: int64(len(data)), State: AttachmentOK, CreatedAt: t.CreatedAt}
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
			a.Width, a.Height = cfg.Width, cfg.Height
		}
		if scan != nil && scan.Infected(data) {
			a.State, data = AttachmentVirus, nil
		}
		if err := tx.PutAttachment(a, data); err != nil {
			return nil, err
		}
		ids = append(ids, a.ID)
	}
	return ids, nil
}

// AddAttachments adds attachments to an existing thread.
func AddAttachments(tx Tx, caller Caller, convID, threadID int64, inputs []AttachmentInput, scan Scanner, now time.Time) ([]int64, error) {
	p := &Problems{}
	if len(inputs) == 0 {
		p.Add("attachments", CodeEmptyValue, "at least one attachment is needed", nil)
	}
	for i := range inputs {
		inputs[i].validate(p, fmt.Sprintf("attachments[%d].", i))
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	c, t, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return nil, err
	}
	before := len(t.Attachments)
	if t.Attachments, err = StoreAttachments(tx, t, inputs, scan); err != nil {
		return nil, err
	}
	if err := tx.PutThread(t); err != nil {
		return nil, err
	}
	return t.Attachments[before:], saveConversation(tx, c, now)
}

// ReadAttachment returns a readable attachment of a conversation with its
// bytes; a malicious one answers Infected Attachment.
func ReadAttachment(tx Tx, caller Caller, convID, attachmentID int64, now time.Time) (*Attachment, []byte, error) {
	c, err := LoadConversation(tx, caller, convID, now)
	if err != nil {
		return nil, nil, err
	}
	a, err := tx.Attachment(c.CompanyID, attachmentID)
	if err != nil || a.ConversationID != c.ID {
		return nil, nil, NotFound("attachment")
	}
	if a.State == AttachmentVirus {
		return nil, nil, &Error{Kind: KindGone, Message: CodeInfectedAttachment, Errors: []FieldError{{
			Code: CodeInfectedAttachment, Message: "the attachment was removed: malicious content was found", Origin: OriginSubject}}}
	}
	data, err := tx.AttachmentData(a.CompanyID, a.ID)
	return a, data, err
}

// DeleteAttachment removes an attachment of a draft: a draft thread, or a
// thread of a draft conversation.
func DeleteAttachment(tx Tx, caller Caller, convID, attachmentID int64, now time.Time) error {
	c, err := LoadConversation(tx, caller, convID, now)
	if err != nil {
		return err
	}
	a, err := tx.Attachment(c.CompanyID, attachmentID)
	if err != nil || a.ConversationID != c.ID {
		return NotFound("attachment")
	}
	t, err := findThread(tx, c, a.ThreadID)
	if err != nil {
		return err
	}
	if c.State != StateDraft && t.State != ThreadDraft {
		return InvalidID("attachmentId", CodeAttachmentPublished, "attachments can only be deleted from drafts", attachmentID)
	}
	var kept []int64
	for _, id := range t.Attachments {
		if id != a.ID {
			kept = append(kept, id)
		}
	}
	t.Attachments = kept
	if err := tx.PutThread(t); err != nil {
		return err
	}
	if err := tx.DeleteAttachment(a.CompanyID, a.ID); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}
