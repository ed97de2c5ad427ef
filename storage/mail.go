package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	parley "github.com/parley/parley"
)

// Buckets of e-mail: the outgoing outbox with its delivery log, the
// Message-IDs replies are matched by, and the raw messages threads came
// from.
var (
	bucketMail       = newBucket("mail")           // id -> outgoing e-mail
	bucketMailDue    = newBucket("mail_due")       // next attempt (Unix ns), id -> nil, while not final
	bucketMailByConv = newBucket("mail_by_conv")   // conversation, id -> nil
	bucketMessageIDs = newBucket("message_ids")    // company, Message-ID -> conversation
	bucketSources    = newBucket("thread_sources") // thread -> raw message that came in
)

// timeIDKey orders records by a time then an id: queues of work due at a
// time (webhook deliveries, outgoing e-mail).
func timeIDKey(at time.Time, id int64) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, uint64(at.UnixNano()))
	binary.BigEndian.PutUint64(k[8:], uint64(id))
	return k
}

// PutMail stores an outgoing e-mail, assigning an id when ID is 0, and
// keeps its due key in step with its status and next attempt.
func (t *Tx) PutMail(m *parley.Mail) error {
	if m.ID == 0 {
		id, err := t.nextID(bucketMail)
		if err != nil {
			return err
		}
		m.ID = id
		if err := t.tx.Bucket(bucketMailByConv).Put(key2(m.ConversationID, m.ID), nil); err != nil {
			return err
		}
	} else {
		var old parley.Mail
		found, err := t.get(bucketMail, key(m.ID), &old)
		if err != nil {
			return err
		}
		if found {
			if err := t.tx.Bucket(bucketMailDue).Delete(timeIDKey(old.NextAttemptAt, old.ID)); err != nil {
				return err
			}
		} else if err := t.tx.Bucket(bucketMailByConv).Put(key2(m.ConversationID, m.ID), nil); err != nil {
			return err // a new e-mail with its id (a copy)
		}
	}
	if !m.Final() {
		if err := t.tx.Bucket(bucketMailDue).Put(timeIDKey(m.NextAttemptAt, m.ID), nil); err != nil {
			return err
		}
		t.mailWork = true
	}
	return t.put(bucketMail, key(m.ID), m)
}

// NextMailAt is when the earliest e-mail waiting in the outbox is due, and
// false when none waits.
func (t *Tx) NextMailAt() (time.Time, bool) {
	k, _ := t.tx.Bucket(bucketMailDue).Cursor().First()
	if k == nil {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(k))).UTC(), true
}

// Mail loads an outgoing e-mail of a company.
func (t *Tx) Mail(companyID, id int64) (*parley.Mail, error) {
	return scoped(t, bucketMail, id, func(m *parley.Mail) int64 { return m.CompanyID }, companyID, "mail")
}

// mail loads an outgoing e-mail by its id alone, for the queue and the
// conversation log that hold ids only.
func (t *Tx) mail(id int64) (*parley.Mail, error) {
	m := new(parley.Mail)
	found, err := t.get(bucketMail, key(id), m)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("mail")
	}
	return m, nil
}

// DueMail lists up to max e-mails waiting in the outbox whose next
// attempt is at or before now, the earliest first.
func (t *Tx) DueMail(now time.Time, max int) ([]parley.Mail, error) {
	var out []parley.Mail
	limit := uint64(now.UnixNano())
	c := t.tx.Bucket(bucketMailDue).Cursor()
	for k, _ := c.First(); k != nil && len(out) < max; k, _ = c.Next() {
		if binary.BigEndian.Uint64(k) > limit {
			break
		}
		m, err := t.mail(idOf(k[8:]))
		if err != nil {
			return nil, fmt.Errorf("storage: due e-mail key %x: %w", k, err)
		}
		out = append(out, *m)
	}
	return out, nil
}

// ConversationMail lists a conversation's outgoing e-mails, oldest first:
// its delivery log.
func (t *Tx) ConversationMail(_, conversationID int64) ([]parley.Mail, error) {
	var out []parley.Mail
	c := t.tx.Bucket(bucketMailByConv).Cursor()
	prefix := key(conversationID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		m, err := t.mail(idOf(k[8:]))
		if err != nil {
			return nil, err
		}
		out = append(out, *m)
	}
	return out, nil
}

// putMessageID keeps the Message-ID key of a thread that has one.
func (t *Tx) putMessageID(th *parley.Thread) error {
	if th.MessageID == "" {
		return nil
	}
	return t.tx.Bucket(bucketMessageIDs).Put(keyStr(th.CompanyID, th.MessageID), key(th.ConversationID))
}

// ConversationByMessageID finds the conversation of the company holding a
// thread with this Message-ID.
func (t *Tx) ConversationByMessageID(companyID int64, messageID string) (int64, error) {
	v := t.tx.Bucket(bucketMessageIDs).Get(keyStr(companyID, messageID))
	if v == nil {
		return 0, parley.NotFound("message")
	}
	return idOf(v), nil
}

// PutThreadSource keeps the raw message a thread came in as.
func (t *Tx) PutThreadSource(_, threadID int64, raw []byte) error {
	return t.tx.Bucket(bucketSources).Put(key(threadID), raw)
}

// ThreadSource is the raw message a thread came in as, or the message
// Parley built and sent for it; NotFound when it has neither.
func (t *Tx) ThreadSource(_, threadID int64) ([]byte, error) {
	if v := t.tx.Bucket(bucketSources).Get(key(threadID)); v != nil {
		return bytes.Clone(v), nil
	}
	return nil, parley.NotFound("original source")
}

// ConversationIDByNumber finds a company's conversation by its number.
func (t *Tx) ConversationIDByNumber(companyID, number int64) (int64, error) {
	v := t.tx.Bucket(bucketConvNumbersUsed).Get(key2(companyID, number))
	if v == nil {
		return 0, parley.NotFound("conversation")
	}
	return idOf(v), nil
}

// MailboxByEmail finds the mailbox with an address, in any company (the
// SMTP listener's recipients). Mailboxes are few: a scan is enough.
func (t *Tx) MailboxByEmail(address string) (*parley.Mailbox, error) {
	var found *parley.Mailbox
	err := each(t, bucketMailboxes, func(m *parley.Mailbox) error {
		if parley.NormalizeEmail(m.Email) == parley.NormalizeEmail(address) {
			found = m
			return parley.ErrStop
		}
		return nil
	})
	if err == nil && found == nil {
		err = parley.NotFound("mailbox")
	}
	return found, err
}
