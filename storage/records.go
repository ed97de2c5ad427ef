package storage

import (
	"bytes"
	"cmp"
	"slices"

	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// Company loads a company.
func (t *Tx) Company(id int64) (*parley.Company, error) {
	c := new(parley.Company)
	found, err := t.get(bucketCompanies, key(id), c)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("company")
	}
	return c, nil
}

// PutCompany stores a company, assigning an id when ID is 0.
func (t *Tx) PutCompany(c *parley.Company) error {
	if c.ID == 0 {
		id, err := t.nextID(bucketCompanies)
		if err != nil {
			return err
		}
		c.ID = id
	}
	return t.put(bucketCompanies, key(c.ID), c)
}

// Companies lists every company.
func (t *Tx) Companies() ([]parley.Company, error) {
	var out []parley.Company
	err := each(t, bucketCompanies, func(c *parley.Company) error { out = append(out, *c); return nil })
	return out, err
}

// Mailbox loads a mailbox of a company.
func (t *Tx) Mailbox(companyID, id int64) (*parley.Mailbox, error) {
	return scoped(t, bucketMailboxes, id, func(m *parley.Mailbox) int64 { return m.CompanyID }, companyID, "mailbox")
}

// PutMailbox stores a mailbox, assigning ids to it and to new folders and
// field definitions (folder, field and option ids share one sequence).
func (t *Tx) PutMailbox(m *parley.Mailbox) error {
	if err := t.assignOrKeepID(bucketMailboxes, &m.ID); err != nil {
		return err
	}
	seq := func(v *int64) error {
		if *v != 0 {
			return nil
		}
		n, err := t.tx.Bucket(bucketSequences).NextSequence()
		*v = int64(n)
		return err
	}
	for i := range m.Folders {
		if err := seq(&m.Folders[i].ID); err != nil {
			return err
		}
	}
	for i := range m.Fields {
		if err := seq(&m.Fields[i].ID); err != nil {
			return err
		}
		for j := range m.Fields[i].Options {
			if err := seq(&m.Fields[i].Options[j].ID); err != nil {
				return err
			}
		}
	}
	if err := t.indexWidgets(m); err != nil {
		return err
	}
	return t.put(bucketMailboxes, key(m.ID), m)
}

// Mailboxes lists a company's mailboxes in id order.
func (t *Tx) Mailboxes(companyID int64) ([]parley.Mailbox, error) {
	var out []parley.Mailbox
	err := each(t, bucketMailboxes, func(m *parley.Mailbox) error {
		if m.CompanyID == companyID {
			out = append(out, *m)
		}
		return nil
	})
	return out, err
}

// Tag loads a tag of a company.
func (t *Tx) Tag(companyID, id int64) (*parley.Tag, error) {
	return scoped(t, bucketTags, id, func(x *parley.Tag) int64 { return x.CompanyID }, companyID, "tag")
}

// TagByName finds a tag by its normalized name.
func (t *Tx) TagByName(companyID int64, name string) (*parley.Tag, error) {
	id := t.tx.Bucket(bucketTagsByName).Get(keyStr(companyID, parley.NormalizeTagName(name)))
	if id == nil {
		return nil, parley.NotFound("tag")
	}
	return t.Tag(companyID, idOf(id))
}

// PutTag stores a tag and its name key.
func (t *Tx) PutTag(x *parley.Tag) error {
	if x.ID == 0 {
		id, err := t.nextID(bucketTags)
		if err != nil {
			return err
		}
		x.ID = id
	}
	names := t.tx.Bucket(bucketTagsByName)
	old := new(parley.Tag)
	if found, err := t.get(bucketTags, key(x.ID), old); err != nil {
		return err
	} else if found && old.Name != x.Name {
		if err := names.Delete(keyStr(x.CompanyID, old.Name)); err != nil {
			return err
		}
	}
	if err := names.Put(keyStr(x.CompanyID, x.Name), key(x.ID)); err != nil {
		return err
	}
	return t.put(bucketTags, key(x.ID), x)
}

// Tags lists a company's tags in id order.
func (t *Tx) Tags(companyID int64) ([]parley.Tag, error) {
	var out []parley.Tag
	err := each(t, bucketTags, func(x *parley.Tag) error {
		if x.CompanyID == companyID {
			out = append(out, *x)
		}
		return nil
	})
	return out, err
}

// Conversation loads a conversation of a company.
func (t *Tx) Conversation(companyID, id int64) (*parley.Conversation, error) {
	return scoped(t, bucketConversations, id, func(c *parley.Conversation) int64 { return c.CompanyID }, companyID, "conversation")
}

// ConversationsByIDs loads a company's conversations in the order asked.
func (t *Tx) ConversationsByIDs(companyID int64, ids []int64) ([]parley.Conversation, error) {
	return scopedAll(ids, t.Conversation, companyID)
}

// ConversationByID loads a conversation whatever its company; only the
// indexer uses it.
func (t *Tx) ConversationByID(id int64) (*parley.Conversation, error) {
	c := new(parley.Conversation)
	found, err := t.get(bucketConversations, key(id), c)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("conversation")
	}
	return c, nil
}

// PutConversation stores a conversation with its customer key, assigning
// an id and the company's next number when new, and queues it for indexing.
func (t *Tx) PutConversation(c *parley.Conversation) error {
	if err := t.assignOrKeepID(bucketConversations, &c.ID); err != nil {
		return err
	}
	if err := t.numberConversation(c); err != nil {
		return err
	}
	byCustomer := t.tx.Bucket(bucketConvByCustomer)
	old := new(parley.Conversation)
	found, err := t.get(bucketConversations, key(c.ID), old)
	if err != nil {
		return err
	}
	if found && (old.CustomerID != c.CustomerID || c.State == parley.StateDeleted) {
		if err := byCustomer.Delete(key2(old.CustomerID, c.ID)); err != nil {
			return err
		}
		if err := t.queue(KindCustomer, old.CompanyID, old.CustomerID); err != nil {
			return err
		}
	}
	// The customer's document holds its mailboxes: refresh it when the
	// conversation is new or moved.
	if !found || old.CustomerID != c.CustomerID || old.MailboxID != c.MailboxID {
		if err := t.queue(KindCustomer, c.CompanyID, c.CustomerID); err != nil {
			return err
		}
	}
	if c.State != parley.StateDeleted {
		if err := byCustomer.Put(key2(c.CustomerID, c.ID), nil); err != nil {
			return err
		}
	}
	var before *parley.Conversation
	if found {
		before = old
	}
	if err := t.keyOpen(before, c); err != nil {
		return err
	}
	if err := t.put(bucketConversations, key(c.ID), c); err != nil {
		return err
	}
	return t.queue(KindConversation, c.CompanyID, c.ID)
}

// EachConversation calls fn for every conversation of every company.
func (t *Tx) EachConversation(fn func(*parley.Conversation) error) error {
	return each(t, bucketConversations, fn)
}

// Threads lists a conversation's threads, oldest first (ids grow with time).
// The caller owns what it gets: in a write, a clone of what the
// transaction keeps (Tx.threads).
func (t *Tx) Threads(_, conversationID int64) ([]parley.Thread, error) {
	if kept, ok := t.threads[conversationID]; ok {
		return cloneThreads(kept), nil
	}
	var out []parley.Thread
	c := t.tx.Bucket(bucketThreads).Cursor()
	prefix := key(conversationID)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var th parley.Thread
		if err := decode(bucketThreads, v, &th); err != nil {
			return nil, err
		}
		out = append(out, th)
	}
	if t.writable {
		if t.threads == nil {
			t.threads = map[int64][]parley.Thread{}
		}
		t.threads[conversationID] = out
		return cloneThreads(out), nil
	}
	return out, nil
}

func cloneThreads(threads []parley.Thread) []parley.Thread {
	if threads == nil {
		return nil
	}
	out := make([]parley.Thread, len(threads))
	for i := range threads {
		out[i] = threads[i].Clone()
	}
	return out
}

// PutThread stores a thread under its conversation.
func (t *Tx) PutThread(th *parley.Thread) error {
	if err := t.assignOrKeepID(bucketThreads, &th.ID); err != nil {
		return err
	}
	if r := th.Rating; r != nil {
		if r.ID == 0 {
			id, err := t.nextID(bucketRatings)
			if err != nil {
				return err
			}
			r.ID = id
		}
		// The rating's address follows its thread, through merges too.
		if err := t.tx.Bucket(bucketRatings).Put(key(r.ID), key2(th.ConversationID, th.ID)); err != nil {
			return err
		}
	}
	if err := t.putMessageID(th); err != nil {
		return err
	}
	if err := t.put(bucketThreads, key2(th.ConversationID, th.ID), th); err != nil {
		return err
	}
	t.keepThread(th)
	return nil
}

// keepThread updates the threads a write keeps of th's conversation, if
// it keeps them: a write that adds a line item or a note and then reads
// the threads again (to build the document the automatic workflows
// match) need not decode them all again.
func (t *Tx) keepThread(th *parley.Thread) {
	kept, ok := t.threads[th.ConversationID]
	if !ok {
		return
	}
	i, found := slices.BinarySearchFunc(kept, th.ID, func(x parley.Thread, id int64) int { return cmp.Compare(x.ID, id) })
	if found {
		kept[i] = th.Clone()
	} else {
		kept = slices.Insert(kept, i, th.Clone())
	}
	t.threads[th.ConversationID] = kept
}

// bucketRatings keys each satisfaction rating's id to its thread's key.
var bucketRatings = newBucket("ratings")

// RatedThread finds the conversation and the reply a company's rating is
// attached to; another company's rating is not found.
func (t *Tx) RatedThread(companyID, ratingID int64) (*parley.Conversation, *parley.Thread, error) {
	ref := t.tx.Bucket(bucketRatings).Get(key(ratingID))
	if ref == nil {
		return nil, nil, parley.NotFound("rating")
	}
	c, err := t.Conversation(companyID, idOf(ref[:8]))
	if parley.IsNotFound(err) || err == nil && c.State == parley.StateDeleted {
		return nil, nil, parley.NotFound("rating")
	}
	if err != nil {
		return nil, nil, err
	}
	th := new(parley.Thread)
	found, err := t.get(bucketThreads, ref, th)
	if err == nil && (!found || th.Rating == nil || th.Rating.ID != ratingID) {
		err = parley.NotFound("rating")
	}
	if err != nil {
		return nil, nil, err
	}
	return c, th, nil
}

// EachConversationID calls fn with every conversation id and its company.
func (t *Tx) EachConversationID(fn func(companyID, id int64)) error {
	return eachCompanyOf(bucketConversations, t, func(k []byte, company int64) { fn(company, idOf(k)) })
}

// DeleteThread removes a thread from a conversation.
func (t *Tx) DeleteThread(_, conversationID, threadID int64) error {
	delete(t.threads, conversationID)
	return t.tx.Bucket(bucketThreads).Delete(key2(conversationID, threadID))
}

// DeleteTag removes a tag and its name key.
func (t *Tx) DeleteTag(x *parley.Tag) error {
	if err := t.tx.Bucket(bucketTagsByName).Delete(keyStr(x.CompanyID, x.Name)); err != nil {
		return err
	}
	return t.tx.Bucket(bucketTags).Delete(key(x.ID))
}

// ConversationIDsWithTag lists the conversations of a company carrying a
// tag. It reads every conversation: renaming or deleting a tag is rare.
func (t *Tx) ConversationIDsWithTag(companyID, tagID int64) ([]int64, error) {
	var ids []int64
	err := each(t, bucketConversations, func(c *parley.Conversation) error {
		if c.CompanyID == companyID && c.State != parley.StateDeleted {
			for _, id := range c.TagIDs {
				if id == tagID {
					ids = append(ids, c.ID)
				}
			}
		}
		return nil
	})
	return ids, err
}

// numberConversation gives a new conversation the company's next number,
// or records the number it came with (an import), keeping the company's
// counter past every number used.
func (t *Tx) numberConversation(c *parley.Conversation) error {
	used := t.tx.Bucket(bucketConvNumbersUsed)
	if c.Number != 0 && used.Get(key2(c.CompanyID, c.Number)) != nil {
		return nil // an existing conversation keeps its number
	}
	numbers := t.tx.Bucket(bucketConvNumbers)
	last := int64(0)
	if v := numbers.Get(key(c.CompanyID)); v != nil {
		last = idOf(v)
	}
	if c.Number == 0 {
		c.Number = last + 1
	}
	if err := numbers.Put(key(c.CompanyID), key(max(last, c.Number))); err != nil {
		return err
	}
	return used.Put(key2(c.CompanyID, c.Number), key(c.ID))
}

// keepSequencePast moves a bucket's sequence to at least id.
func keepSequencePast(b *bbolt.Bucket, id int64) error {
	if uint64(id) > b.Sequence() {
		return b.SetSequence(uint64(id))
	}
	return nil
}

// ConversationIDTaken says whether a conversation id is used.
func (t *Tx) ConversationIDTaken(id int64) bool {
	return t.tx.Bucket(bucketConversations).Get(key(id)) != nil
}

// ConversationNumberTaken says whether the company used a number.
func (t *Tx) ConversationNumberTaken(companyID, number int64) bool {
	return t.tx.Bucket(bucketConvNumbersUsed).Get(key2(companyID, number)) != nil
}
