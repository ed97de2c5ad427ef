// Package parley is the domain of Parley, a shared-inbox support API: the
// records (companies, users, teams, mailboxes, tags, customers,
// conversations, threads, OAuth applications and tokens), their enums and
// validation rules, and the one error type every layer returns.
//
// It imports the standard library only. Rules that need stored records
// (creating a conversation finds or creates its customer and tags) are
// written against the Tx interface, which the storage package implements, so
// the rules live here and not in handlers or in storage.
package parley
