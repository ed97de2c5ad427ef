package pgstore

import (
	"bytes"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// Before the indexer builds the documents of the records a write touched
// (see search.go), the transaction reads, in two round trips whatever
// their number, what the indexer reads of each one by one: the owners of
// the touched conversations and customers, then the conversations, their
// threads, the customers, and the mailboxes of the customers'
// conversations. The answers go to the transaction's cache (cache.go)
// under the reads the indexer makes, so each of its reads is answered
// without a round trip; a loader's transaction of hundreds of
// conversations saves several round trips per conversation.

var (
	sqlOwnersOf = stmt(`SELECT o.id, o.company_id FROM owners o WHERE o.kind = $1 AND o.id = ANY($2)`)

	sqlConversationBodies = stmt(`SELECT c.id, c.body FROM conversations c WHERE c.company_id = $1 AND c.id = ANY($2)`)
	sqlThreadsOf          = stmt(`SELECT h.conversation_id, h.body FROM threads h WHERE h.company_id = $1 AND h.conversation_id = ANY($2)
ORDER BY h.conversation_id, h.id`)
	sqlCustomerBodies                 = stmt(`SELECT c.id, c.body FROM customers c WHERE c.company_id = $1 AND c.id = ANY($2)`)
	sqlCustomersConversationMailboxes = stmt(`SELECT c.customer_id, c.mailbox_id FROM conversations c
WHERE c.company_id = $1 AND c.customer_id = ANY($2) AND NOT c.deleted ORDER BY c.customer_id, c.id`)
)

// bulkRead is one statement of a prefetch: a read by company of the rows
// of many keys (the first column), kept as the answers of the read one
// names for each key.
type bulkRead struct {
	sql     string
	company int64
	keys    []int64
	one     string // the read answered: its arguments are the company and a key
	all     bool   // whether one reads every row (many, ids) or one (scan)
	bodies  bool   // whether the values are bodies, or else ids
}

// prefetch reads ahead what the indexer will read of the touched records.
func (t *Tx) prefetch(touched []parley.OutboxEntry) {
	wanted := map[string]map[int64]bool{ownedConversation: {}, ownedCustomer: {}}
	for _, e := range touched {
		switch e.Kind {
		case parley.OutboxConversation:
			wanted[ownedConversation][e.ID] = true
		case parley.OutboxCustomer:
			wanted[ownedCustomer][e.ID] = true
		}
	}
	// The owners first: the other reads filter by company.
	var owners []pendingRead
	for _, kind := range []string{ownedConversation, ownedCustomer} {
		var unknown []int64
		for id := range wanted[kind] {
			if _, ok := t.owners[owner{kind, id}]; !ok {
				unknown = append(unknown, id)
			}
		}
		if len(unknown) == 0 {
			continue
		}
		slices.Sort(unknown)
		owners = append(owners, pendingRead{sql: sqlOwnersOf, args: []any{kind, unknown}, row: func(rows pgx.Rows) error {
			var id, company int64
			if err := rows.Scan(&id, &company); err != nil {
				return err
			}
			t.owners[owner{kind, id}] = company
			return nil
		}})
	}
	if !t.pipeline(owners) {
		return
	}
	byCompany := func(kind string) map[int64][]int64 {
		out := map[int64][]int64{}
		for _, id := range slices.Sorted(maps.Keys(wanted[kind])) {
			if company, ok := t.owners[owner{kind, id}]; ok {
				out[company] = append(out[company], id)
			}
		}
		return out
	}
	var bulk []bulkRead
	conversations, customers := byCompany(ownedConversation), byCompany(ownedCustomer)
	for _, company := range slices.Sorted(maps.Keys(conversations)) {
		ids := conversations[company]
		bulk = append(bulk, bulkRead{sql: sqlConversationBodies, company: company, keys: ids, one: sqlConversation, bodies: true},
			bulkRead{sql: sqlThreadsOf, company: company, keys: ids, one: sqlThreads, all: true, bodies: true})
	}
	for _, company := range slices.Sorted(maps.Keys(customers)) {
		ids := customers[company]
		bulk = append(bulk, bulkRead{sql: sqlCustomerBodies, company: company, keys: ids, one: sqlCustomer, bodies: true},
			bulkRead{sql: sqlCustomersConversationMailboxes, company: company, keys: ids, one: sqlCustomerConversationMailboxes, all: true})
	}
	reads := make([]pendingRead, len(bulk))
	for i, b := range bulk {
		reads[i] = t.bulk(b)
	}
	t.pipeline(reads)
}

// bulk is the pipelined read of a bulkRead, whose rows it keeps as the
// answers of the read it names.
func (t *Tx) bulk(b bulkRead) pendingRead {
	found := map[int64]answer{}
	return pendingRead{sql: b.sql, args: []any{b.company, b.keys}, row: func(rows pgx.Rows) error {
		var key, id int64
		var body []byte
		value := any(&id)
		if b.bodies {
			value = &body
		}
		if err := rows.Scan(&key, value); err != nil {
			return err
		}
		if value == &body {
			found[key] = append(found[key], []any{bytes.Clone(body)})
		} else {
			found[key] = append(found[key], []any{id})
		}
		return nil
	}, done: func() {
		for _, key := range b.keys {
			k, table, ok := keyOf(b.one, []any{b.company, key})
			if !ok {
				continue
			}
			k.all = b.all
			a := found[key]
			if a == nil {
				a = answer{}
			}
			t.keep(table, k, a)
		}
	}}
}
