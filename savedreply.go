package parley

import (
	"strings"
	"time"
	"unicode/utf8"
)

// SavedReply is a mailbox's reusable answer: `Text` for e-mail replies,
// `ChatText` for chats. A reply with chat text only is chat-only: lists
// leave it out unless asked (includeChatReplies).
type SavedReply struct {
	ID        int64     `json:"id"`
	CompanyID int64     `json:"companyId"`
	MailboxID int64     `json:"mailboxId"`
	Name      string    `json:"name"`
	Text      string    `json:"text,omitempty"`
	ChatText  string    `json:"chatText,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ChatOnly reports whether the reply has no e-mail text.
func (r *SavedReply) ChatOnly() bool { return r.Text == "" }

// SavedReplyInput is the body of creating or replacing a saved reply.
type SavedReplyInput struct {
	Name     *string `json:"name"`
	Text     *string `json:"text"`
	ChatText *string `json:"chatText"`
}

// Limits of a saved reply.
const (
	MaxSavedReplyName = 255
	MaxSavedReplyText = 50000
)

// validate checks the input: a name, and text for e-mail or chat.
func (in *SavedReplyInput) validate() error {
	p := &Problems{}
	requireString(p, "name", in.Name, MaxSavedReplyName)
	text, chat := trimmed(in.Text), trimmed(in.ChatText)
	if text == "" && chat == "" {
		p.Add("text", CodeEmptyValue, "a saved reply needs text, chatText or both", nil)
	}
	for _, f := range []struct{ path, v string }{{"text", text}, {"chatText", chat}} {
		if utf8.RuneCountInString(f.v) > MaxSavedReplyText {
			p.Add(f.path, CodeSize, sizeMessage(0, MaxSavedReplyText), nil)
		}
	}
	return p.Err()
}

func trimmed(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// mailboxFor finds a mailbox the caller may use; any other is not found.
func mailboxFor(tx Tx, caller Caller, mailboxID int64) (*Mailbox, error) {
	m, err := tx.Mailbox(caller.Company.ID, mailboxID)
	if err == nil && !caller.User.CanAccessMailbox(m.ID) {
		err = NotFound("mailbox")
	}
	return m, err
}

// SavedRepliesOf lists a mailbox's saved replies in id order, without the
// chat-only ones unless includeChat.
func SavedRepliesOf(tx Tx, caller Caller, mailboxID int64, includeChat bool) ([]SavedReply, error) {
	if _, err := mailboxFor(tx, caller, mailboxID); err != nil {
		return nil, err
	}
	all, err := tx.SavedReplies(caller.Company.ID, mailboxID)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, r := range all {
		if includeChat || !r.ChatOnly() {
			out = append(out, r)
		}
	}
	return out, nil
}

// LoadSavedReply loads a saved reply of a mailbox the caller may use.
func LoadSavedReply(tx Tx, caller Caller, mailboxID, id int64) (*SavedReply, error) {
	if _, err := mailboxFor(tx, caller, mailboxID); err != nil {
		return nil, err
	}
	return tx.SavedReply(caller.Company.ID, mailboxID, id)
}

// CreateSavedReply adds a saved reply to a mailbox the caller may use.
func CreateSavedReply(tx Tx, caller Caller, mailboxID int64, in *SavedReplyInput, now time.Time) (*SavedReply, error) {
	if _, err := mailboxFor(tx, caller, mailboxID); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	r := &SavedReply{CompanyID: caller.Company.ID, MailboxID: mailboxID, Name: strings.TrimSpace(*in.Name),
		Text: trimmed(in.Text), ChatText: trimmed(in.ChatText), CreatedAt: now, UpdatedAt: now}
	return r, tx.PutSavedReply(r)
}

// UpdateSavedReply replaces a saved reply's name and texts: a text left
// out of the request is emptied, as PUT replaces.
func UpdateSavedReply(tx Tx, caller Caller, mailboxID, id int64, in *SavedReplyInput, now time.Time) error {
	r, err := LoadSavedReply(tx, caller, mailboxID, id)
	if err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	r.Name, r.Text, r.ChatText, r.UpdatedAt = strings.TrimSpace(*in.Name), trimmed(in.Text), trimmed(in.ChatText), now
	return tx.PutSavedReply(r)
}

// DeleteSavedReply removes a saved reply; threads written from it keep
// its id.
func DeleteSavedReply(tx Tx, caller Caller, mailboxID, id int64) error {
	r, err := LoadSavedReply(tx, caller, mailboxID, id)
	if err != nil {
		return err
	}
	return tx.DeleteSavedReply(r)
}

// SavedReplyPreview is the text a list shows of a reply's body.
func SavedReplyPreview(body string) string { return makePreview(body) }
