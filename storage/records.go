package storage

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// User loads a user of a company.
func (t *Tx) User(companyID, id int64) (*parley.User, error) {
	return scoped(t, bucketUsers, id, func(u *parley.User) int64 { return u.CompanyID }, companyID, "user")
}

// UserByEmail finds a user by e-mail across companies (e-mails are unique).
func (t *Tx) UserByEmail(email string) (*parley.User, error) {
	id := t.tx.Bucket(bucketUsersByEmail).Get([]byte(parley.NormalizeEmail(email)))
	if id == nil {
		return nil, parley.NotFound("user")
	}
	u := new(parley.User)
	if _, err := t.get(bucketUsers, id, u); err != nil {
		return nil, err
	}
	return u, nil
}

// PutUser stores a user and its e-mail key; the e-mail must be unused.
func (t *Tx) PutUser(u *parley.User) error {
	email := []byte(parley.NormalizeEmail(u.Email))
	if u.ID == 0 {
		id, err := t.nextID(bucketUsers)
		if err != nil {
			return err
		}
		u.ID = id
	}
	emails := t.tx.Bucket(bucketUsersByEmail)
	if owner := emails.Get(email); owner != nil && idOf(owner) != u.ID {
		return &parley.Error{Kind: parley.KindConflict, Message: "User email not unique"}
	}
	old := new(parley.User)
	if found, err := t.get(bucketUsers, key(u.ID), old); err != nil {
		return err
	} else if found && parley.NormalizeEmail(old.Email) != string(email) {
		if err := emails.Delete([]byte(parley.NormalizeEmail(old.Email))); err != nil {
			return err
		}
	}
	if err := emails.Put(email, key(u.ID)); err != nil {
		return err
	}
	return t.put(bucketUsers, key(u.ID), u)
}

// Users lists a company's users in id order.
func (t *Tx) Users(companyID int64) ([]parley.User, error) {
	var out []parley.User
	err := each(t, bucketUsers, func(u *parley.User) error {
		if u.CompanyID == companyID {
			out = append(out, *u)
		}
		return nil
	})
	return out, err
}

// Team loads a team of a company.
func (t *Tx) Team(companyID, id int64) (*parley.Team, error) {
	return scoped(t, bucketTeams, id, func(x *parley.Team) int64 { return x.CompanyID }, companyID, "team")
}

// PutTeam stores a team, assigning an id when ID is 0.
func (t *Tx) PutTeam(x *parley.Team) error {
	if x.ID == 0 {
		id, err := t.nextID(bucketTeams)
		if err != nil {
			return err
		}
		x.ID = id
	}
	return t.put(bucketTeams, key(x.ID), x)
}

// Teams lists a company's teams in id order.
func (t *Tx) Teams(companyID int64) ([]parley.Team, error) {
	var out []parley.Team
	err := each(t, bucketTeams, func(x *parley.Team) error {
		if x.CompanyID == companyID {
			out = append(out, *x)
		}
		return nil
	})
	return out, err
}

// Mailbox loads a mailbox of a company.
func (t *Tx) Mailbox(companyID, id int64) (*parley.Mailbox, error) {
	return scoped(t, bucketMailboxes, id, func(m *parley.Mailbox) int64 { return m.CompanyID }, companyID, "mailbox")
}

// PutMailbox stores a mailbox, assigning ids to it and to new folders and
// field definitions (folder, field and option ids share one sequence).
func (t *Tx) PutMailbox(m *parley.Mailbox) error {
	if m.ID == 0 {
		id, err := t.nextID(bucketMailboxes)
		if err != nil {
			return err
		}
		m.ID = id
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
	if err := t.tx.Bucket(bucketTagsByName).Put(keyStr(x.CompanyID, x.Name), key(x.ID)); err != nil {
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

// Customer loads a customer of a company.
func (t *Tx) Customer(companyID, id int64) (*parley.Customer, error) {
	return scoped(t, bucketCustomers, id, func(c *parley.Customer) int64 { return c.CompanyID }, companyID, "customer")
}

// CustomerByEmail finds the customer holding an e-mail in a company.
func (t *Tx) CustomerByEmail(companyID int64, email string) (*parley.Customer, error) {
	id := t.tx.Bucket(bucketCustomerEmails).Get(keyStr(companyID, parley.NormalizeEmail(email)))
	if id == nil {
		return nil, parley.NotFound("customer")
	}
	return t.Customer(companyID, idOf(id))
}

// PutCustomer stores a customer with its e-mail keys and queues it for
// indexing. An e-mail held by another customer of the company is a Conflict.
func (t *Tx) PutCustomer(c *parley.Customer) error {
	if c.ID == 0 {
		id, err := t.nextID(bucketCustomers)
		if err != nil {
			return err
		}
		c.ID = id
	}
	emails := t.tx.Bucket(bucketCustomerEmails)
	old := new(parley.Customer)
	found, err := t.get(bucketCustomers, key(c.ID), old)
	if err != nil {
		return err
	}
	if found {
		for _, e := range old.Emails {
			if err := emails.Delete(keyStr(c.CompanyID, parley.NormalizeEmail(e.Value))); err != nil {
				return err
			}
		}
	}
	for i := range c.Emails {
		e := &c.Emails[i]
		if e.ID == 0 {
			n, err := t.tx.Bucket(bucketSequences).NextSequence()
			if err != nil {
				return err
			}
			e.ID = int64(n)
		}
		k := keyStr(c.CompanyID, parley.NormalizeEmail(e.Value))
		if owner := emails.Get(k); owner != nil && idOf(owner) != c.ID {
			return &parley.Error{Kind: parley.KindConflict, Message: "Conflict", Errors: []parley.FieldError{{
				Path: "emails", Code: parley.CodeConflict, Message: "the e-mail is used by another customer", RejectedValue: e.Value, Source: "JSON"}}}
		}
		if err := emails.Put(k, key(c.ID)); err != nil {
			return err
		}
	}
	for _, list := range [][]parley.Entry{c.Phones, c.Chats, c.SocialProfiles, c.Websites} {
		for i := range list {
			if list[i].ID == 0 {
				n, err := t.tx.Bucket(bucketSequences).NextSequence()
				if err != nil {
					return err
				}
				list[i].ID = int64(n)
			}
		}
	}
	if err := t.put(bucketCustomers, key(c.ID), c); err != nil {
		return err
	}
	return t.queue(KindCustomer, c.ID)
}

// ConversationCount counts a customer's conversations (deleted excluded).
func (t *Tx) ConversationCount(customerID int64) int {
	n := 0
	c := t.tx.Bucket(bucketConvByCustomer).Cursor()
	prefix := key(customerID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}

// EachCustomer calls fn for every customer of every company.
func (t *Tx) EachCustomer(fn func(*parley.Customer) error) error {
	return each(t, bucketCustomers, fn)
}

// Conversation loads a conversation of a company.
func (t *Tx) Conversation(companyID, id int64) (*parley.Conversation, error) {
	return scoped(t, bucketConversations, id, func(c *parley.Conversation) int64 { return c.CompanyID }, companyID, "conversation")
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

// CustomerByID loads a customer whatever its company; only the indexer uses it.
func (t *Tx) CustomerByID(id int64) (*parley.Customer, error) {
	c := new(parley.Customer)
	found, err := t.get(bucketCustomers, key(id), c)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("customer")
	}
	return c, nil
}

// PutConversation stores a conversation with its customer key, assigning
// an id and the company's next number when new, and queues it for indexing.
func (t *Tx) PutConversation(c *parley.Conversation) error {
	if c.ID == 0 {
		id, err := t.nextID(bucketConversations)
		if err != nil {
			return err
		}
		c.ID = id
	}
	if c.Number == 0 {
		numbers := t.tx.Bucket(bucketConvNumbers)
		n := int64(1)
		if v := numbers.Get(key(c.CompanyID)); v != nil {
			n = idOf(v) + 1
		}
		if err := numbers.Put(key(c.CompanyID), key(n)); err != nil {
			return err
		}
		c.Number = n
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
		if err := t.queue(KindCustomer, old.CustomerID); err != nil {
			return err
		}
	}
	// The customer's document holds its mailboxes: refresh it when the
	// conversation is new or moved.
	if !found || old.CustomerID != c.CustomerID || old.MailboxID != c.MailboxID {
		if err := t.queue(KindCustomer, c.CustomerID); err != nil {
			return err
		}
	}
	if c.State != parley.StateDeleted {
		if err := byCustomer.Put(key2(c.CustomerID, c.ID), nil); err != nil {
			return err
		}
	}
	if err := t.put(bucketConversations, key(c.ID), c); err != nil {
		return err
	}
	return t.queue(KindConversation, c.ID)
}

// EachConversation calls fn for every conversation of every company.
func (t *Tx) EachConversation(fn func(*parley.Conversation) error) error {
	return each(t, bucketConversations, fn)
}

// Threads lists a conversation's threads, oldest first (ids grow with time).
func (t *Tx) Threads(conversationID int64) ([]parley.Thread, error) {
	var out []parley.Thread
	c := t.tx.Bucket(bucketThreads).Cursor()
	prefix := key(conversationID)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var th parley.Thread
		if err := json.Unmarshal(v, &th); err != nil {
			return nil, fmt.Errorf("storage: decode thread: %w", err)
		}
		out = append(out, th)
	}
	return out, nil
}

// PutThread stores a thread under its conversation.
func (t *Tx) PutThread(th *parley.Thread) error {
	if th.ID == 0 {
		id, err := t.nextID(bucketThreads)
		if err != nil {
			return err
		}
		th.ID = id
	}
	return t.put(bucketThreads, key2(th.ConversationID, th.ID), th)
}

// App loads an OAuth application by client id.
func (t *Tx) App(clientID string) (*parley.App, error) {
	a := new(parley.App)
	found, err := t.get(bucketApps, []byte(clientID), a)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("application")
	}
	return a, nil
}

// PutApp stores an OAuth application.
func (t *Tx) PutApp(a *parley.App) error { return t.put(bucketApps, []byte(a.ClientID), a) }

// Token loads an access token by the hash of its value.
func (t *Tx) Token(hash string) (*parley.Token, error) {
	tok := new(parley.Token)
	found, err := t.get(bucketTokens, []byte(hash), tok)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("token")
	}
	return tok, nil
}

// PutToken stores an access token under its hash.
func (t *Tx) PutToken(tok *parley.Token) error { return t.put(bucketTokens, []byte(tok.Hash), tok) }

// CustomerMailboxes lists the mailboxes a customer has conversations in.
func (t *Tx) CustomerMailboxes(customerID int64) []int64 {
	var out []int64
	seen := map[int64]bool{}
	c := t.tx.Bucket(bucketConvByCustomer).Cursor()
	prefix := key(customerID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		conv := new(parley.Conversation)
		if found, err := t.get(bucketConversations, k[8:], conv); err != nil || !found {
			continue
		}
		if !seen[conv.MailboxID] {
			seen[conv.MailboxID] = true
			out = append(out, conv.MailboxID)
		}
	}
	return out
}

// EachConversationID calls fn with every conversation id.
func (t *Tx) EachConversationID(fn func(int64)) error {
	return t.tx.Bucket(bucketConversations).ForEach(func(k, _ []byte) error { fn(idOf(k)); return nil })
}

// EachCustomerID calls fn with every customer id.
func (t *Tx) EachCustomerID(fn func(int64)) error {
	return t.tx.Bucket(bucketCustomers).ForEach(func(k, _ []byte) error { fn(idOf(k)); return nil })
}

// DeleteThread removes a thread from a conversation.
func (t *Tx) DeleteThread(conversationID, threadID int64) error {
	return t.tx.Bucket(bucketThreads).Delete(key2(conversationID, threadID))
}
