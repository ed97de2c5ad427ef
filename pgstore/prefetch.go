package pgstore

import (
	"bytes"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// Before the indexer builds the documents of the records a write touched
// (see search.go), the transaction reads, in one round trip whatever
// their number, what the indexer reads of each one by one: the touched
// conversations (by the company each touch names), their threads, the
// customers, and the mailboxes of the customers' conversations. The answers go to the transaction's cache (cache.go)
// under the reads the indexer makes, so each of its reads is answered
// without a round trip; a loader's transaction of hundreds of
// conversations saves several round trips per conversation.

var (
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
	conversations, customers := map[int64][]int64{}, map[int64][]int64{}
	for _, e := range touched {
		switch e.Kind {
		case parley.OutboxConversation:
			conversations[e.Company] = append(conversations[e.Company], e.ID)
		case parley.OutboxCustomer:
			customers[e.Company] = append(customers[e.Company], e.ID)
		}
	}
	var bulk []bulkRead
	for _, company := range slices.Sorted(maps.Keys(conversations)) {
		ids := sortedOnce(conversations[company])
		bulk = append(bulk, bulkRead{sql: sqlConversationBodies, company: company, keys: ids, one: sqlConversation, bodies: true},
			bulkRead{sql: sqlThreadsOf, company: company, keys: ids, one: sqlThreads, all: true, bodies: true})
	}
	for _, company := range slices.Sorted(maps.Keys(customers)) {
		ids := sortedOnce(customers[company])
		bulk = append(bulk, bulkRead{sql: sqlCustomerBodies, company: company, keys: ids, one: sqlCustomer, bodies: true},
			bulkRead{sql: sqlCustomersConversationMailboxes, company: company, keys: ids, one: sqlCustomerConversationMailboxes, all: true})
	}
	reads := make([]pendingRead, len(bulk))
	for i, b := range bulk {
		reads[i] = t.bulk(b)
	}
	t.pipeline(reads)
}

// sortedOnce sorts ids and drops the repeated ones.
func sortedOnce(ids []int64) []int64 {
	slices.Sort(ids)
	return slices.Compact(ids)
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
