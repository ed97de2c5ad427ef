package parley

import "time"

// Tx is what domain rules need from storage within one transaction. The
// storage package implements it over bbolt; every method scopes by company
// and answers a NotFound *Error for a record of another company or none.
type Tx interface {
	// A customer created with a conversation is linked to its organization.
	OrganizationStore

	Company(id int64) (*Company, error)
	User(companyID, id int64) (*User, error)
	// Users lists a company's users (mentions).
	Users(companyID int64) ([]User, error)
	Team(companyID, id int64) (*Team, error)
	Mailbox(companyID, id int64) (*Mailbox, error)
	// PutMailbox stores a mailbox (routing keeps its turn there).
	PutMailbox(m *Mailbox) error
	// OpenAssigned counts the open (active or pending, published)
	// conversations of a mailbox assigned to a user.
	OpenAssigned(mailboxID, userID int64) int
	SavedReply(companyID, mailboxID, id int64) (*SavedReply, error)

	Customer(companyID, id int64) (*Customer, error)
	CustomerByEmail(companyID int64, email string) (*Customer, error)
	// PutCustomer stores a customer, assigning an id when ID is 0.
	PutCustomer(c *Customer) error

	TagByName(companyID int64, name string) (*Tag, error)
	Tag(companyID, id int64) (*Tag, error)
	// DeleteTag removes a tag and its name key.
	DeleteTag(t *Tag) error
	// ConversationIDsWithTag lists the conversations carrying a tag.
	ConversationIDsWithTag(companyID, tagID int64) ([]int64, error)
	Tags(companyID int64) ([]Tag, error)
	// PutTag stores a tag, assigning an id when ID is 0.
	PutTag(t *Tag) error

	Conversation(companyID, id int64) (*Conversation, error)
	// PutConversation stores a conversation, assigning an id and a number
	// when they are 0, and queues it for indexing. A new conversation may
	// come with its id and number (an import): they must be free.
	PutConversation(c *Conversation) error
	// ConversationIDTaken and ConversationNumberTaken say whether an id is
	// used (by any company) and a number by the company.
	ConversationIDTaken(id int64) bool
	ConversationNumberTaken(companyID, number int64) bool
	// Threads lists a conversation's threads, oldest first.
	Threads(conversationID int64) ([]Thread, error)
	// PutThread stores a thread, assigning an id when ID is 0.
	PutThread(t *Thread) error
	// DeleteThread removes a thread from a conversation (merge moves it).
	DeleteThread(conversationID, threadID int64) error

	// PutAttachment stores an attachment, assigning an id, with its bytes
	// (nil for a file that must not be kept).
	PutAttachment(a *Attachment, data []byte) error
	Attachment(companyID, id int64) (*Attachment, error)
	AttachmentData(id int64) ([]byte, error)
	DeleteAttachment(id int64) error
	// MoveAttachments points attachments at another conversation.
	MoveAttachments(ids []int64, conversationID int64) error

	// PutLater records (or moves) a wake-up; DeleteLater removes one.
	PutLater(item LaterItem) error
	DeleteLater(companyID int64, kind LaterKind, id int64) error
	// CountLater counts a company's pending wake-ups.
	CountLater(companyID int64) (int, error)
	// DueLater lists the wake-ups due at or before now, oldest first.
	DueLater(now time.Time) ([]LaterItem, error)

	// Chat loads a chat of a company; PutChat stores one (and queues it
	// for indexing).
	Chat(companyID int64, id string) (*Chat, error)
	PutChat(c *Chat) error
	// MailboxByWidget finds the mailbox a public chat widget belongs to.
	MailboxByWidget(widgetID string) (*Mailbox, error)
	// PutEvent records a domain event for webhook delivery.
	PutEvent(e Event) error

	// Outgoing e-mail (mail.go).
	MailStore
	// ConversationByMessageID finds the conversation of the company holding
	// a thread with this Message-ID (incoming replies).
	ConversationByMessageID(companyID int64, messageID string) (int64, error)
	// ConversationIDByNumber finds a company's conversation by number.
	ConversationIDByNumber(companyID, number int64) (int64, error)
}
