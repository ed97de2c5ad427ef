package parley

import "time"

// Tx is what domain rules need from storage within one transaction. The
// storage package implements it over bbolt; every method scopes by company
// and answers a NotFound *Error for a record of another company or none.
type Tx interface {
	Company(id int64) (*Company, error)
	User(companyID, id int64) (*User, error)
	Team(companyID, id int64) (*Team, error)
	Mailbox(companyID, id int64) (*Mailbox, error)

	Customer(companyID, id int64) (*Customer, error)
	CustomerByEmail(companyID int64, email string) (*Customer, error)
	// PutCustomer stores a customer, assigning an id when ID is 0.
	PutCustomer(c *Customer) error

	TagByName(companyID int64, name string) (*Tag, error)
	// PutTag stores a tag, assigning an id when ID is 0.
	PutTag(t *Tag) error

	Conversation(companyID, id int64) (*Conversation, error)
	// PutConversation stores a conversation, assigning an id and a number
	// when ID is 0, and queues it for indexing.
	PutConversation(c *Conversation) error
	// Threads lists a conversation's threads, oldest first.
	Threads(conversationID int64) ([]Thread, error)
	// PutThread stores a thread, assigning an id when ID is 0.
	PutThread(t *Thread) error
}

// Clock tells the time; it is injected everywhere so tests fix it.
type Clock interface{ Now() time.Time }

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// SystemClock is the real clock, in UTC, truncated to the second (the
// precision of the wire format).
var SystemClock Clock = ClockFunc(func() time.Time { return time.Now().UTC().Truncate(time.Second) })
