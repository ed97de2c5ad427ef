package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	parley "github.com/parley/parley"
)

var (
	bucketChats   = newBucket("chats")   // chat UUID -> chat
	bucketWidgets = newBucket("widgets") // public widget id -> mailbox id
	// bucketChatTimeline holds the chats' timeline entries, one value
	// each, under timelinePrefix(company, chat) | position (uint32).
	bucketChatTimeline = newBucket("chat_timeline")
	// bucketEvents holds domain events (webhook triggers) in commit order,
	// written in the transaction of the change that caused them.
	bucketEvents = newBucket("events")
)

// Chat loads a chat of a company.
func (t *Tx) Chat(companyID int64, id string) (*parley.Chat, error) {
	c := new(parley.Chat)
	found, err := t.get(bucketChats, []byte(id), c)
	if err != nil {
		return nil, err
	}
	if !found || c.CompanyID != companyID {
		return nil, parley.NotFound("chat")
	}
	return c, nil
}

// ChatByID loads a chat whatever its company; only the indexer uses it.
func (t *Tx) ChatByID(id string) (*parley.Chat, error) {
	c := new(parley.Chat)
	found, err := t.get(bucketChats, []byte(id), c)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("chat")
	}
	return c, nil
}

// PutChat stores a chat and queues it for indexing.
func (t *Tx) PutChat(c *parley.Chat) error {
	if err := t.put(bucketChats, []byte(c.ID), c); err != nil {
		return err
	}
	return t.queueRef(KindChat, c.CompanyID, c.ID)
}

// EachChatID calls fn with every chat id and its company.
func (t *Tx) EachChatID(fn func(companyID int64, id string)) error {
	return eachCompanyOf(bucketChats, t, func(k []byte, company int64) { fn(company, string(k)) })
}

// timelinePrefix starts the keys of a chat's timeline entries: the
// company, then the chat id after its length, so that no chat's prefix
// begins another's.
func timelinePrefix(companyID int64, chatID string) []byte {
	return append(binary.BigEndian.AppendUint32(key(companyID), uint32(len(chatID))), chatID...)
}

// PutTimelineEntry appends an entry to a chat's timeline: one new value,
// at the position after the last.
func (t *Tx) PutTimelineEntry(companyID int64, chatID string, e parley.TimelineEntry) error {
	n, err := t.TimelineLength(companyID, chatID)
	if err != nil {
		return err
	}
	return t.put(bucketChatTimeline, binary.BigEndian.AppendUint32(timelinePrefix(companyID, chatID), uint32(n)), e)
}

// ChatTimeline lists a chat's timeline in position order.
func (t *Tx) ChatTimeline(companyID int64, chatID string) ([]parley.TimelineEntry, error) {
	var out []parley.TimelineEntry
	prefix := timelinePrefix(companyID, chatID)
	c := t.tx.Bucket(bucketChatTimeline).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var e parley.TimelineEntry
		if err := decode(bucketChatTimeline, v, &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// TimelineLength counts a chat's timeline entries: keys only, which the
// bound on entries keeps few.
func (t *Tx) TimelineLength(companyID int64, chatID string) (int, error) {
	n := 0
	prefix := timelinePrefix(companyID, chatID)
	c := t.tx.Bucket(bucketChatTimeline).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n, nil
}

// moveTimelines moves the timelines a Parley from before
// bucketChatTimeline kept inside their chats into their own values, and
// writes those chats again without them. Open runs it once, when it
// creates the bucket.
func moveTimelines(t *Tx) error {
	type moved struct {
		key  []byte
		chat parley.Chat
		old  []parley.TimelineEntry
	}
	var chats []moved
	c := t.tx.Bucket(bucketChats).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var old struct {
			Timeline []parley.TimelineEntry `json:"timeline"`
		}
		if err := decode(bucketChats, v, &old); err != nil {
			return err
		}
		if len(old.Timeline) == 0 {
			continue
		}
		m := moved{key: bytes.Clone(k), old: old.Timeline}
		if err := decode(bucketChats, v, &m.chat); err != nil {
			return err
		}
		chats = append(chats, m)
	}
	for _, m := range chats {
		for _, e := range m.old {
			if err := t.PutTimelineEntry(m.chat.CompanyID, m.chat.ID, e); err != nil {
				return err
			}
		}
		if err := t.put(bucketChats, m.key, &m.chat); err != nil {
			return err
		}
	}
	return nil
}

// MailboxByWidget finds the mailbox of a public chat widget id.
func (t *Tx) MailboxByWidget(widgetID string) (*parley.Mailbox, error) {
	id := t.tx.Bucket(bucketWidgets).Get([]byte(widgetID))
	if id == nil {
		return nil, parley.NotFound("widget")
	}
	m := new(parley.Mailbox)
	if found, err := t.get(bucketMailboxes, id, m); err != nil || !found {
		return nil, parley.NotFound("widget")
	}
	return m, nil
}

// indexWidgets keeps the widget keys of a mailbox.
func (t *Tx) indexWidgets(m *parley.Mailbox) error {
	b := t.tx.Bucket(bucketWidgets)
	for _, w := range m.Widgets {
		if owner := b.Get([]byte(w)); owner != nil && idOf(owner) != m.ID {
			return fmt.Errorf("storage: widget %q belongs to mailbox %d", w, idOf(owner))
		}
		if err := b.Put([]byte(w), key(m.ID)); err != nil {
			return err
		}
	}
	return nil
}

// PutEvent records a domain event in the transaction of its change.
func (t *Tx) PutEvent(e parley.Event) error {
	t.webhookWork = true
	b := t.tx.Bucket(bucketEvents)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	data, err := encode(bucketEvents, e)
	if err != nil {
		return err
	}
	return b.Put(key(int64(seq)), data)
}

// Events lists recorded domain events in order.
func (t *Tx) Events() ([]parley.Event, error) {
	var out []parley.Event
	err := each(t, bucketEvents, func(e *parley.Event) error { out = append(out, *e); return nil })
	return out, err
}
