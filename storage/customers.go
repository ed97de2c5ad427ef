package storage

import (
	"bytes"

	parley "github.com/parley/parley"
)

// Customer loads a customer of a company.
func (t *Tx) Customer(companyID, id int64) (*parley.Customer, error) {
	return scoped(t, bucketCustomers, id, func(c *parley.Customer) int64 { return c.CompanyID }, companyID, "customer")
}

// CustomersByIDs loads a company's customers in the order asked.
func (t *Tx) CustomersByIDs(companyID int64, ids []int64) ([]parley.Customer, error) {
	return scopedAll(ids, t.Customer, companyID)
}

// CustomerByEmail finds the customer holding an e-mail in a company.
func (t *Tx) CustomerByEmail(companyID int64, email string) (*parley.Customer, error) {
	id := t.tx.Bucket(bucketCustomerEmails).Get(keyStr(companyID, parley.NormalizeEmail(email)))
	if id == nil {
		return nil, parley.NotFound("customer")
	}
	return t.Customer(companyID, idOf(id))
}

var _ parley.CustomerStore = (*Tx)(nil)

// Buckets of customer records beyond the core ones of db.go.
var (
	// bucketCustomersByOrg keys (organization id, customer id).
	bucketCustomersByOrg = newBucket("customers_by_organization")
	// bucketCustomerProperties keys property definitions by company and slug.
	bucketCustomerProperties = newBucket("customer_properties")
	// bucketCustomerSecrets holds the key that signs customer list cursors.
	bucketCustomerSecrets = newBucket("customer_secrets")
)

// PutCustomer stores a customer with its e-mail and organization keys and
// queues it for indexing. An e-mail held by another customer of the company
// is a Conflict. When the name or e-mails change, the customer's
// conversations are queued too: their documents hold them.
func (t *Tx) PutCustomer(c *parley.Customer) error {
	if err := t.assignOrKeepID(bucketCustomers, &c.ID); err != nil {
		return err
	}
	emails := t.tx.Bucket(bucketCustomerEmails)
	old := new(parley.Customer)
	found, err := t.get(bucketCustomers, key(c.ID), old)
	if err != nil {
		return err
	}
	if found {
		if err := t.unkeyCustomer(old); err != nil {
			return err
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
			return parley.CustomerEmailTaken(e.Value)
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
	if c.OrganizationID != 0 {
		if err := t.tx.Bucket(bucketCustomersByOrg).Put(key2(c.OrganizationID, c.ID), nil); err != nil {
			return err
		}
	}
	if err := t.put(bucketCustomers, key(c.ID), c); err != nil {
		return err
	}
	if found && (old.Name() != c.Name() || !sameEmails(old.Emails, c.Emails)) {
		for _, id := range t.CustomerConversationIDs(c.CompanyID, c.ID) {
			if err := t.queue(KindConversation, c.CompanyID, id); err != nil {
				return err
			}
		}
	}
	return t.queue(KindCustomer, c.CompanyID, c.ID)
}

// unkeyCustomer removes a stored customer's secondary keys.
func (t *Tx) unkeyCustomer(old *parley.Customer) error {
	for _, e := range old.Emails {
		if err := t.tx.Bucket(bucketCustomerEmails).Delete(keyStr(old.CompanyID, parley.NormalizeEmail(e.Value))); err != nil {
			return err
		}
	}
	if old.OrganizationID != 0 {
		return t.tx.Bucket(bucketCustomersByOrg).Delete(key2(old.OrganizationID, old.ID))
	}
	return nil
}

func sameEmails(a, b []parley.Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if parley.NormalizeEmail(a[i].Value) != parley.NormalizeEmail(b[i].Value) {
			return false
		}
	}
	return true
}

// DeleteCustomer removes a customer and its keys, and queues its document
// for removal. Its conversations are the caller's business.
func (t *Tx) DeleteCustomer(c *parley.Customer) error {
	old := new(parley.Customer)
	found, err := t.get(bucketCustomers, key(c.ID), old)
	if err != nil || !found {
		return err
	}
	if err := t.unkeyCustomer(old); err != nil {
		return err
	}
	prefix := key(c.ID)
	byCustomer := t.tx.Bucket(bucketConvByCustomer)
	var keys [][]byte
	cur := byCustomer.Cursor()
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := byCustomer.Delete(k); err != nil {
			return err
		}
	}
	if err := t.tx.Bucket(bucketCustomers).Delete(key(c.ID)); err != nil {
		return err
	}
	return t.queue(KindCustomer, c.CompanyID, c.ID)
}

// CustomerConversationIDs lists a customer's conversations (deleted
// excluded), in id order. Ids are unique across companies here, so the
// customer's id alone finds them.
func (t *Tx) CustomerConversationIDs(_, customerID int64) []int64 {
	var out []int64
	c := t.tx.Bucket(bucketConvByCustomer).Cursor()
	prefix := key(customerID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, idOf(k[8:]))
	}
	return out
}

// ConversationCount counts a customer's conversations (deleted excluded).
func (t *Tx) ConversationCount(_, customerID int64) int {
	n := 0
	c := t.tx.Bucket(bucketConvByCustomer).Cursor()
	prefix := key(customerID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}

// ConversationCounts counts the conversations of each of a company's
// customers named.
func (t *Tx) ConversationCounts(companyID int64, customerIDs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	for _, id := range customerIDs {
		if _, err := t.Customer(companyID, id); parley.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		if n := t.ConversationCount(companyID, id); n > 0 {
			out[id] = n
		}
	}
	return out, nil
}

// EachCustomer calls fn for every customer of every company.
func (t *Tx) EachCustomer(fn func(*parley.Customer) error) error {
	return each(t, bucketCustomers, fn)
}

// CustomerByID loads a customer whatever its company; only the indexer
// uses it.
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

// CustomerMailboxes lists the mailboxes a customer has conversations in.
func (t *Tx) CustomerMailboxes(_, customerID int64) []int64 {
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

// EachCustomerID calls fn with every customer id and its company.
func (t *Tx) EachCustomerID(fn func(companyID, id int64)) error {
	return eachCompanyOf(bucketCustomers, t, func(k []byte, company int64) { fn(company, idOf(k)) })
}

// CustomerIDTaken says whether a customer id is used.
func (t *Tx) CustomerIDTaken(id int64) bool {
	return t.tx.Bucket(bucketCustomers).Get(key(id)) != nil
}
