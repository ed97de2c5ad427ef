// Package indexer keeps the search engines in step with storage. The
// document builders turn stored records into index documents
// (ConversationDocument, CustomerDocument, ChatDocument, CallDocuments,
// MessageDocuments; Documents yields all of a stored conversation's for
// the list engine to load), and the Syncer drains the storage outbox into an
// engine, batched by kind and company, acknowledging entries only once the
// engine holds them durably.
//
// It reaches storage only through the domain's seam (parley.Store and
// parley.OutboxEntry) and the Source interface it declares, which
// storage.DB satisfies; cmd wires the syncer's Notify to the database's
// commit hook. The contract it writes to (Document, Batch, Engine, the
// catalog) is package index.
package indexer
