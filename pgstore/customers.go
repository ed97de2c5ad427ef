package pgstore

import (
	"slices"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

var (
	sqlCustomer       = cachedStmt(`SELECT c.body FROM customers c WHERE c.company_id = $1 AND c.id = $2`)
	sqlCustomerByID   = stmt(`SELECT c.body FROM customers c WHERE c.id = $1 ` + ByID)
	sqlCustomersByIDs = stmt(`SELECT c.body FROM customers c WHERE c.company_id = $1 AND c.id = ANY($2)`)
	sqlPutCustomer    = stmt(`INSERT INTO customers (company_id, id, organization_id, body) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, id) DO UPDATE SET organization_id = EXCLUDED.organization_id, body = EXCLUDED.body`)
	sqlDeleteCustomer  = stmt(`DELETE FROM customers c WHERE c.company_id = $1 AND c.id = $2`)
	sqlCustomersAfter  = stmt(`SELECT c.body FROM customers c WHERE c.company_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3`)
	sqlCustomerIDsFrom = stmt(`SELECT c.id FROM customers c WHERE c.company_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3`)

	sqlCustomerByEmail  = cachedStmt(`SELECT e.customer_id FROM customer_emails e WHERE e.company_id = $1 AND e.email = $2`)
	sqlAddCustomerEmail = stmt(`INSERT INTO customer_emails (company_id, email, customer_id) VALUES ($1, $2, $3)
ON CONFLICT (company_id, email) DO NOTHING RETURNING customer_id`)
	sqlDropCustomerEmails = stmt(`DELETE FROM customer_emails e WHERE e.company_id = $1 AND e.customer_id = $2`)

	sqlCustomerConversations = stmt(`SELECT c.id FROM conversations c
WHERE c.company_id = $1 AND c.customer_id = $2 AND NOT c.deleted ORDER BY c.id`)
	sqlCustomerConversationCount = stmt(`SELECT count(*) FROM conversations c
WHERE c.company_id = $1 AND c.customer_id = $2 AND NOT c.deleted`)
	sqlCustomersConversationCounts = stmt(`SELECT c.customer_id, count(*) FROM conversations c
WHERE c.company_id = $1 AND c.customer_id = ANY($2) AND NOT c.deleted GROUP BY c.customer_id`)
	sqlCustomerConversationMailboxes = cachedStmt(`SELECT c.mailbox_id FROM conversations c
WHERE c.company_id = $1 AND c.customer_id = $2 AND NOT c.deleted ORDER BY c.id`)
)

var _ parley.CustomerStore = (*Tx)(nil)

// Customer loads a customer of a company.
func (t *Tx) Customer(companyID, id int64) (*parley.Customer, error) {
	return one[parley.Customer](t, "customer", sqlCustomer, companyID, id)
}

// CustomersByIDs loads a company's customers in the order asked, in one
// statement.
func (t *Tx) CustomersByIDs(companyID int64, ids []int64) ([]parley.Customer, error) {
	return inOrder(t, sqlCustomersByIDs, companyID, ids, func(c *parley.Customer) int64 { return c.ID })
}

// CustomerByEmail finds the customer holding an e-mail in a company.
func (t *Tx) CustomerByEmail(companyID int64, email string) (*parley.Customer, error) {
	var id int64
	found, err := t.scan(sqlCustomerByEmail, []any{companyID, keyText(parley.NormalizeEmail(email))}, &id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("customer")
	}
	return t.Customer(companyID, id)
}

// CustomerByID loads a customer whatever its company, by id across
// companies (see ByID).
func (t *Tx) CustomerByID(id int64) (*parley.Customer, error) {
	return one[parley.Customer](t, "customer", sqlCustomerByID, id)
}

// CustomerIDTaken says whether a record of any company holds a customer
// id (an id to give must be free).
func (t *Tx) CustomerIDTaken(id int64) bool {
	return t.idTaken(customerIDs, id)
}

// PutCustomer stores a customer with its e-mail keys and queues it for
// indexing. An e-mail held by another customer of the company is a
// Conflict. When the name or e-mails change, the customer's conversations
// are queued too: their documents hold them.
func (t *Tx) PutCustomer(c *parley.Customer) error {
	var old *parley.Customer
	isNew := func() (bool, error) {
		var err error
		old, err = t.Customer(c.CompanyID, c.ID)
		return absent(old, err)
	}
	if err := t.assignOrKeepID(customerIDs, &c.ID, c.CompanyID, isNew); err != nil {
		return err
	}
	if old != nil {
		if err := t.exec(sqlDropCustomerEmails, c.CompanyID, c.ID); err != nil {
			return err
		}
	}
	for i := range c.Emails {
		e := &c.Emails[i]
		if err := t.assignID(seqItems, &e.ID); err != nil {
			return err
		}
		if err := t.keyCustomerEmail(c, e.Value); err != nil {
			return err
		}
	}
	for _, list := range [][]parley.Entry{c.Phones, c.Chats, c.SocialProfiles, c.Websites} {
		for i := range list {
			if err := t.assignID(seqItems, &list[i].ID); err != nil {
				return err
			}
		}
	}
	if err := t.put(sqlPutCustomer, c, c.CompanyID, c.ID, c.OrganizationID); err != nil {
		return err
	}
	if old != nil && (old.Name() != c.Name() || !sameEmails(old.Emails, c.Emails)) {
		for _, id := range t.CustomerConversationIDs(c.CompanyID, c.ID) {
			t.touch(parley.OutboxConversation, c.CompanyID, id)
		}
	}
	t.touch(parley.OutboxCustomer, c.CompanyID, c.ID)
	return nil
}

// keyCustomerEmail gives a customer an e-mail key, unless another customer
// of the company holds it (a Conflict).
func (t *Tx) keyCustomerEmail(c *parley.Customer, email string) error {
	key := keyText(parley.NormalizeEmail(email))
	var holder int64
	added, err := t.scan(sqlAddCustomerEmail, []any{c.CompanyID, key, c.ID}, &holder)
	if err != nil || added {
		return err
	}
	if _, err := t.scan(sqlCustomerByEmail, []any{c.CompanyID, key}, &holder); err != nil {
		return err
	}
	if holder != c.ID {
		return parley.CustomerEmailTaken(email)
	}
	return nil
}

func sameEmails(a, b []parley.Entry) bool {
	return slices.EqualFunc(a, b, func(x, y parley.Entry) bool {
		return parley.NormalizeEmail(x.Value) == parley.NormalizeEmail(y.Value)
	})
}

// DeleteCustomer removes a customer and its keys, and queues its document
// for removal. Its conversations are the caller's business: they keep the
// customer's id, but no longer count as the customer's.
func (t *Tx) DeleteCustomer(c *parley.Customer) error {
	if _, err := t.Customer(c.CompanyID, c.ID); parley.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if err := t.exec(sqlDropCustomerEmails, c.CompanyID, c.ID); err != nil {
		return err
	}
	if err := t.exec(sqlDeleteCustomer, c.CompanyID, c.ID); err != nil {
		return err
	}
	t.touch(parley.OutboxCustomer, c.CompanyID, c.ID)
	return nil
}

// customerConversations runs a statement over a company's customer's
// conversations: none for a customer that does not exist (a deleted
// customer's conversations keep its id, but are no longer its). The
// customer is most often read already, and answered from the cache.
func (t *Tx) customerConversations(sql string, companyID, customerID int64) []int64 {
	if _, err := t.Customer(companyID, customerID); err != nil {
		return nil // a failure stays on the transaction
	}
	ids, _ := t.ids(sql, companyID, customerID) // a failure stays on the transaction
	return ids
}

// CustomerConversationIDs lists a company's customer's conversations
// (deleted excluded), in id order.
func (t *Tx) CustomerConversationIDs(companyID, customerID int64) []int64 {
	return t.customerConversations(sqlCustomerConversations, companyID, customerID)
}

// ConversationCount counts a company's customer's conversations (deleted
// excluded).
func (t *Tx) ConversationCount(companyID, customerID int64) int {
	if _, err := t.Customer(companyID, customerID); err != nil {
		return 0 // a failure stays on the transaction
	}
	return t.countOf(sqlCustomerConversationCount, companyID, customerID)
}

// ConversationCounts counts the conversations of each of a company's
// customers named, in one statement.
func (t *Tx) ConversationCounts(companyID int64, customerIDs []int64) (map[int64]int, error) {
	type count struct {
		customer int64
		n        int
	}
	rows, err := collect(t, func(row pgx.CollectableRow) (count, error) {
		var c count
		return c, row.Scan(&c.customer, &c.n)
	}, sqlCustomersConversationCounts, companyID, customerIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]int, len(rows))
	for _, c := range rows {
		out[c.customer] = c.n
	}
	return out, nil
}

// CustomerMailboxes lists the mailboxes a customer has conversations in, in
// the order of their first conversation there.
func (t *Tx) CustomerMailboxes(companyID, customerID int64) []int64 {
	var out []int64
	for _, id := range t.customerConversations(sqlCustomerConversationMailboxes, companyID, customerID) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// EachCustomer calls fn for every customer of every company, company by
// company in id order.
func (t *Tx) EachCustomer(fn func(*parley.Customer) error) error {
	return walk(t, sqlCustomersAfter, bodyRow[parley.Customer], func(c parley.Customer) int64 { return c.ID },
		func(c parley.Customer) error { return fn(&c) })
}

// EachCustomerID calls fn with every customer id and its company.
func (t *Tx) EachCustomerID(fn func(companyID, id int64)) error {
	return walkIDs(t, sqlCustomerIDsFrom, fn)
}
