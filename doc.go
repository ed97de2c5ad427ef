// Package parley is the domain of Parley, a shared-inbox support API: the
// records (companies, users, teams, mailboxes, tags, customers,
// organizations, conversations, threads, OAuth applications and tokens),
// their enums and validation rules, and the one error type every layer
// returns.
//
// It imports the standard library only, and no net/http (layers_test.go).
// Rules that need stored records (creating a conversation finds or creates
// its customer and tags) are written against the seam in store.go: Store
// runs transactions and Tx is one <Noun>Store interface per record family.
// The storage package implements it over bbolt, so the rules live here and
// not in handlers or in storage.
//
// Files are named by the noun they hold, the verb after it:
// conversation.go (the record, derived fields), conversation_create.go,
// conversation_patch.go, conversation_merge.go, thread.go (adding threads,
// the thread limit, reopening), thread_rating.go, snooze.go, schedule.go,
// customer*.go, organization*.go, tag.go, company*.go, mailbox*.go, user*.go, auth.go
// and oauth*.go, webhook*.go, mail.go, routing.go. Cross-cutting pieces:
// errors.go (the error type and its kinds), validate.go (field checks and
// value formats), patch.go (JSON Patch: a table of operation and path to
// handler per record), clock.go and store.go.
package parley
