package storage

import (
	"fmt"

	parley "github.com/parley/parley"
)

var (
	bucketChats   = newBucket("chats")   // chat UUID -> chat
	bucketWidgets = newBucket("widgets") // public widget id -> mailbox id
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

// EachChatID calls fn with every chat id.
func (t *Tx) EachChatID(fn func(string)) error {
	return t.tx.Bucket(bucketChats).ForEach(func(k, _ []byte) error { fn(string(k)); return nil })
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
