package pgstore

import (
	"bytes"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// A request reads records by key one after another: sign-in its token,
// then the token's user and company; a page of conversations, then the
// users, customers, tags and mailboxes they name. Each read is a round
// trip. Told what comes next (parley.ReadAhead), the transaction reads it
// all in one round trip, a statement per record family, and keeps the
// answers in its cache (cache.go) under the reads they answer, so each of
// those reads is then answered without a round trip, as the database
// would answer it in the transaction's snapshot.

var (
	sqlUserBodies    = stmt(`SELECT u.id, u.body FROM users u WHERE u.company_id = $1 AND u.id = ANY($2)`)
	sqlTeamBodies    = stmt(`SELECT m.id, m.body FROM teams m WHERE m.company_id = $1 AND m.id = ANY($2)`)
	sqlTagBodies     = stmt(`SELECT g.id, g.body FROM tags g WHERE g.company_id = $1 AND g.id = ANY($2)`)
	sqlMailboxBodies = stmt(`SELECT m.id, m.body FROM mailboxes m WHERE m.company_id = $1 AND m.id = ANY($2)`)
)

var _ parley.ReadAheader = (*Tx)(nil)

// ReadAhead reads, in one round trip, the records refs names that the
// transaction has not read yet. A failure stays on the transaction, and
// the reads that follow return it.
func (t *Tx) ReadAhead(refs parley.Refs) {
	var reads []pendingRead
	single := func(sql string, args ...any) {
		if r, ok := t.unreadRow(sql, args...); ok {
			reads = append(reads, r)
		}
	}
	if refs.Company {
		single(sqlCompany, refs.CompanyID)
	}
	if refs.Grant != "" {
		single(sqlCredential, credGrant, refs.Grant)
	}
	if refs.App != "" {
		single(sqlCredential, credApp, refs.App)
	}
	for _, b := range []bulkRead{
		{sql: sqlUserBodies, keys: refs.Users, one: sqlUser},
		{sql: sqlTeamBodies, keys: refs.Teams, one: sqlTeam},
		{sql: sqlCustomerBodies, keys: refs.Customers, one: sqlCustomer},
		{sql: sqlTagBodies, keys: refs.Tags, one: sqlTag},
		{sql: sqlMailboxBodies, keys: refs.Mailboxes, one: sqlMailbox},
	} {
		b.company, b.bodies = refs.CompanyID, true
		b.keys = t.unread(b.one, b.company, b.keys)
		if len(b.keys) > 0 {
			reads = append(reads, t.bulk(b))
		}
	}
	t.pipeline(reads)
}

// unread lists the keys of a company whose read by one (a single row by
// company and key) the transaction has not kept.
func (t *Tx) unread(one string, company int64, keys []int64) []int64 {
	var out []int64
	for _, key := range keys {
		k, table, ok := keyOf(one, []any{company, key})
		if _, kept := t.cached(table, k); ok && !kept {
			out = append(out, key)
		}
	}
	return out
}

// unreadRow is the pipelined form of a cached read of one body by key,
// keeping its answer as scan would; ok is false when the transaction kept
// the answer already.
func (t *Tx) unreadRow(sql string, args ...any) (read pendingRead, ok bool) {
	key, table, cacheable := keyOf(sql, args)
	if _, kept := t.cached(table, key); !cacheable || kept {
		return pendingRead{}, false
	}
	a := answer{}
	return pendingRead{sql: sql, args: args, row: func(rows pgx.Rows) error {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return err
		}
		if len(a) == 0 { // scan keeps the first row
			a = answer{{bytes.Clone(body)}}
		}
		return nil
	}, done: func() { t.keep(table, key, a) }}, true
}
