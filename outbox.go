package parley

// OutboxKind names what an outbox entry asks to reindex.
type OutboxKind string

// Outbox entry kinds.
const (
	OutboxConversation OutboxKind = "conversation"
	OutboxCustomer     OutboxKind = "customer"
	OutboxChat         OutboxKind = "chat"
)

// OutboxEntry asks the indexer to bring one record's document up to date
// (write it, or delete it when the record is gone or deleted). A backend
// queues one in the transaction of every write that changes a searchable
// record, and the indexer removes it once the search index holds the
// change durably. Records with numeric ids use ID; chats (UUIDs) use Ref.
type OutboxEntry struct {
	Seq     uint64     `json:"-"`
	Kind    OutboxKind `json:"kind"`
	Company int64      `json:"company,omitempty"` // 0 in entries written before entries named their company
	ID      int64      `json:"id,omitempty"`
	Ref     string     `json:"ref,omitempty"`
}
