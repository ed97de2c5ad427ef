package parley

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// This file is the one seam between the domain and storage. A backend
// (bbolt today in package storage, PostgreSQL later) implements Store and
// Tx; nothing in the domain names a backend type.
//
// The contract every backend keeps:
//   - Transactions are a function argument: Store.View and Store.Update run
//     a function with a Tx and commit (Update) when it returns nil, roll back
//     when it returns an error or when their context is done.
//   - Every lookup scopes by company where the record has one, and a record
//     of another company, or none, answers a NotFound *Error: the caller
//     cannot tell them apart. A read that names a record by its id takes
//     the company too (the caller always knows it), so a backend that
//     spreads companies over nodes reads one company's rows; only the
//     indexer's loads of records its oldest outbox entries name without a
//     company (ConversationByID, CustomerByID, ChatByID) and the checks of
//     given ids (ConversationIDTaken, CustomerIDTaken) look across
//     companies.
//   - Errors are domain errors (*Error, see errors.go): NotFound for missing
//     records, Conflict for a taken unique key, Unavailable for a resource
//     the backend shares running short; anything else is returned as is
//     and becomes KindInternal.
//   - Put methods assign an id when the record's ID is 0. A new record
//     may come with its id (an import, a copy, a thread a merge moves):
//     the backend keeps it, and moves the family's sequence past it so no
//     id drawn later reaches it.
//
// The record families below are named <Noun>Store, one per noun; Tx is all
// of them. Domain rules take a Tx (or, for the event helpers, the one family
// they use).

// Store runs transactions. Each runs with the context it is given (a
// request's, a worker's loop's): once ctx is done a transaction does not
// start, a backend that can stops its statements, and a write does not
// commit; the error then wraps ctx.Err().
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction, committed when fn
	// returns nil. fn may run more than once (writes are batched) and must
	// touch only the transaction. seq is the highest outbox sequence the
	// write queued (0 if none), which a caller waits on to read its own
	// write from the search index.
	Update(ctx context.Context, fn func(Tx) error) (seq uint64, err error)
}

// BeforeCommit is work that runs at the end of every write that recorded
// domain events, inside the write's transaction, told those events: the
// automatic workflows the events trigger (workflow.Engine.BeforeCommit).
// What it writes commits with the write, or the write fails with it.
type BeforeCommit func(tx Tx, events []Event) error

// CommitHooks is the before-commit step of a backend: both backends embed
// one and run the function of every Store.Update through Write. It lives
// here, not in each backend, so the rule (which events, which
// transaction, what an error does) is written once.
type CommitHooks struct {
	hook atomic.Pointer[BeforeCommit]
}

// SetBeforeCommit sets the work every write runs before it commits; nil
// removes it.
func (h *CommitHooks) SetBeforeCommit(fn BeforeCommit) {
	if fn == nil {
		h.hook.Store(nil)
		return
	}
	h.hook.Store(&fn)
}

// Write runs fn on tx and then, when fn recorded domain events and a hook
// is set, the hook with those events, on the same transaction value fn saw
// (a hook may key what it remembers by the transaction). Events the hook
// itself records are not handed to it again: a hook that chains (the
// workflows) follows its own chain.
func (h *CommitHooks) Write(tx Tx, fn func(Tx) error) error {
	hook := h.hook.Load()
	if hook == nil {
		return fn(tx)
	}
	rec := &recorded{Tx: tx}
	if err := fn(rec); err != nil {
		return err
	}
	if len(rec.events) == 0 {
		return nil
	}
	events := rec.events
	rec.events = nil
	return (*hook)(rec, events)
}

// Tx is what domain rules need from storage within one transaction.
type Tx interface {
	CompanyStore
	UserStore
	TeamStore
	AuthStore
	MailboxStore
	SavedReplyStore
	CustomerStore
	PropertyStore
	OrganizationStore
	TagStore
	ConversationStore
	AttachmentStore
	LaterStore
	ChatStore
	EventStore
	MailStore
	WebhookStore
	WorkflowStore
	SavedViewStore
	PullStore
	EventQueue
	DeliveryQueue
	MailQueue
	CopyStore
	RuleLocks
}

// RuleLocks make the writes that check one rule run one after the other.
type RuleLocks interface {
	// LockRule makes the writes that call it with the same company and
	// rule run as if one after the other, whatever else they read: a rule
	// that decides by reading a set of records no unique key covers (a
	// name unique without case in a company, a mailbox address unique
	// across companies) calls it before those reads, so two writes cannot
	// both find the name free. Rules of every company use company 0. A
	// backend whose writes run one at a time has nothing to do.
	LockRule(companyID int64, rule string) error
}

// CompanyStore holds companies (accounts).
type CompanyStore interface {
	Company(id int64) (*Company, error)
	// Companies lists every company (the operator's backup and admin views).
	Companies() ([]Company, error)
	PutCompany(c *Company) error
}

// UserStore holds users.
type UserStore interface {
	User(companyID, id int64) (*User, error)
	// Users lists a company's users.
	Users(companyID int64) ([]User, error)
	// UserByEmail finds a user of any company by sign-in e-mail.
	UserByEmail(email string) (*User, error)
	PutUser(u *User) error
}

// TeamStore holds teams. The API reads them only; the demo fixtures
// write them.
type TeamStore interface {
	Team(companyID, id int64) (*Team, error)
	// Teams lists a company's teams in id order.
	Teams(companyID int64) ([]Team, error)
	PutTeam(t *Team) error
}

// AuthStore holds what authenticates a caller: OAuth applications,
// grants, codes and tokens, sign-in sessions and V1 key exchanges. Secrets
// are addressed by their hash (HashToken), never stored in clear.
type AuthStore interface {
	App(clientID string) (*App, error)
	PutApp(a *App) error
	Token(hash string) (*Token, error)
	PutToken(t *Token) error
	Grant(id string) (*Grant, error)
	PutGrant(g *Grant) error
	AuthCode(hash string) (*AuthCode, error)
	PutAuthCode(c *AuthCode) error
	RefreshToken(hash string) (*RefreshToken, error)
	PutRefreshToken(r *RefreshToken) error
	UserByV1Key(hash string) (*User, error)
	V1Exchange(keyHash, clientID string) (*V1Exchange, error)
	PutV1Exchange(x *V1Exchange) error
	Session(hash string) (*Session, error)
	PutSession(s *Session) error
}

// MailboxStore holds mailboxes with their folders, fields and widgets.
type MailboxStore interface {
	Mailbox(companyID, id int64) (*Mailbox, error)
	Mailboxes(companyID int64) ([]Mailbox, error)
	// PutMailbox stores a mailbox, assigning ids to it and to its new
	// folders, fields and options (routing keeps its turn there).
	PutMailbox(m *Mailbox) error
	// MailboxByWidget finds the mailbox a public chat widget belongs to.
	MailboxByWidget(widgetID string) (*Mailbox, error)
	// OpenAssigned counts the open (active or pending, published)
	// conversations of a mailbox assigned to a user.
	OpenAssigned(companyID, mailboxID, userID int64) int
	// MailboxByEmail finds the mailbox with an address (compared
	// normalized), in any company: the recipients of incoming mail name
	// no company. Of several, the oldest.
	MailboxByEmail(address string) (*Mailbox, error)
}

// SavedReplyStore holds a mailbox's saved replies.
type SavedReplyStore interface {
	SavedReply(companyID, mailboxID, id int64) (*SavedReply, error)
	SavedReplies(companyID, mailboxID int64) ([]SavedReply, error)
	PutSavedReply(r *SavedReply) error
	DeleteSavedReply(r *SavedReply) error
}

// CustomerStore holds customers.
type CustomerStore interface {
	Customer(companyID, id int64) (*Customer, error)
	// CustomersByIDs loads a company's customers in the order asked,
	// skipping ids no customer of the company holds: a page's customers in
	// one read.
	CustomersByIDs(companyID int64, ids []int64) ([]Customer, error)
	// ConversationCounts counts the conversations (not deleted) of each of
	// a company's customers named; a customer without any is absent.
	ConversationCounts(companyID int64, customerIDs []int64) (map[int64]int, error)
	CustomerByEmail(companyID int64, email string) (*Customer, error)
	// PutCustomer stores a customer with its e-mail keys (an e-mail of
	// another customer is a Conflict), assigning ids to it and its entries.
	PutCustomer(c *Customer) error
	// DeleteCustomer removes a customer record and its keys.
	DeleteCustomer(c *Customer) error
	// CustomerIDTaken says whether any record, of any company, holds a
	// customer id: an id given to a new customer (an import) must be free.
	CustomerIDTaken(id int64) bool
	// ConversationCount counts the customer's conversations (not deleted).
	ConversationCount(companyID, customerID int64) int
	// CustomerConversationIDs lists the customer's conversations (not deleted).
	CustomerConversationIDs(companyID, customerID int64) []int64
	// EachCustomer calls fn with every customer of every company.
	EachCustomer(fn func(*Customer) error) error
	// CursorKey returns the key that signs customer list cursors, or nil
	// when none was made yet; MakeCursorKey stores a random one unless one
	// exists, and returns the stored one.
	CursorKey() []byte
	MakeCursorKey() ([]byte, error)
	// CustomerByID loads a customer whatever its company, for the indexer
	// given an outbox entry older than entries naming their company;
	// whoever knows the company reads Customer.
	CustomerByID(id int64) (*Customer, error)
	// CustomerMailboxes lists the mailboxes a customer has conversations in.
	CustomerMailboxes(companyID, customerID int64) []int64
	// EachCustomerID calls fn with every customer id of every company, and
	// the company (an index rebuild).
	EachCustomerID(fn func(companyID, id int64)) error
}

// PropertyStore holds the customer property definitions.
type PropertyStore interface {
	// PropertyDefs lists a company's customer property definitions by slug.
	PropertyDefs(companyID int64) ([]PropertyDef, error)
	// PutPropertyDef stores a new definition (a slug already defined is a
	// Conflict), assigning an id when ID is 0.
	PutPropertyDef(d *PropertyDef) error
	DeletePropertyDef(companyID int64, slug string) error
}

// OrganizationStore holds organizations and their property definitions.
type OrganizationStore interface {
	Organization(companyID, id int64) (*Organization, error)
	Organizations(companyID int64) ([]Organization, error)
	// OrganizationCustomerIDs lists the customers of an organization in id order.
	OrganizationCustomerIDs(companyID, orgID int64) []int64
	// OrganizationsByName finds a company's organizations with this name,
	// compared case-insensitively, in id order.
	OrganizationsByName(companyID int64, name string) ([]Organization, error)
	// PutOrganization stores an organization and its domain keys, assigning
	// an id when ID is 0; a domain held by another organization of the
	// company is a Conflict.
	PutOrganization(o *Organization) error
	// DeleteOrganization removes an organization and unlinks its customers.
	DeleteOrganization(o *Organization, now time.Time) error
	OrganizationPropertyDefs(companyID int64) ([]PropertyDef, error)
	// PutOrganizationPropertyDef stores a definition, assigning ids to it
	// (when new: a slug already defined is a Conflict) and to options
	// without one.
	PutOrganizationPropertyDef(d *PropertyDef, isNew bool) error
	DeleteOrganizationPropertyDef(companyID int64, slug string) error
}

// TagStore holds tags.
type TagStore interface {
	TagByName(companyID int64, name string) (*Tag, error)
	Tag(companyID, id int64) (*Tag, error)
	Tags(companyID int64) ([]Tag, error)
	PutTag(t *Tag) error
	// DeleteTag removes a tag and its name key.
	DeleteTag(t *Tag) error
	// ConversationIDsWithTag lists the conversations carrying a tag.
	ConversationIDsWithTag(companyID, tagID int64) ([]int64, error)
}

// ConversationStore holds conversations and their threads.
type ConversationStore interface {
	Conversation(companyID, id int64) (*Conversation, error)
	// ConversationsByIDs loads a company's conversations in the order
	// asked, skipping ids no conversation of the company holds: a page of
	// conversations in one read.
	ConversationsByIDs(companyID int64, ids []int64) ([]Conversation, error)
	// ConversationByID loads a conversation whatever its company, for the
	// indexer given an outbox entry older than entries naming their
	// company; whoever knows the company reads Conversation.
	ConversationByID(id int64) (*Conversation, error)
	// PutConversation stores a conversation, assigning an id and a number
	// when they are 0, and queues it for indexing. A new conversation may
	// come with its id and number (an import): they must be free.
	PutConversation(c *Conversation) error
	// ConversationIDTaken and ConversationNumberTaken say whether an id is
	// used (by any company: an id given to a new conversation must be free)
	// and a number by the company.
	ConversationIDTaken(id int64) bool
	ConversationNumberTaken(companyID, number int64) bool
	// ConversationByMessageID finds the conversation of the company holding
	// a thread with this Message-ID (incoming replies).
	ConversationByMessageID(companyID int64, messageID string) (int64, error)
	// ConversationIDByNumber finds a company's conversation by number.
	ConversationIDByNumber(companyID, number int64) (int64, error)
	// Threads lists a conversation's threads, oldest first.
	Threads(companyID, conversationID int64) ([]Thread, error)
	PutThread(t *Thread) error
	// DeleteThread removes a thread from a conversation (merge moves it).
	DeleteThread(companyID, conversationID, threadID int64) error
	// RatedThread finds the thread a rating (by its id) belongs to.
	RatedThread(companyID, ratingID int64) (*Conversation, *Thread, error)
	// EachConversation calls fn with every conversation of every company,
	// and EachConversationID with every conversation id and its company
	// (filling the search engines).
	EachConversation(fn func(*Conversation) error) error
	EachConversationID(fn func(companyID, id int64)) error
}

// AttachmentStore holds attachments and their bytes.
type AttachmentStore interface {
	// PutAttachment stores an attachment, assigning an id, with its bytes
	// (nil for a file that must not be kept).
	PutAttachment(a *Attachment, data []byte) error
	Attachment(companyID, id int64) (*Attachment, error)
	AttachmentData(companyID, id int64) ([]byte, error)
	DeleteAttachment(companyID, id int64) error
	// MoveAttachments points a company's attachments at another of its
	// conversations.
	MoveAttachments(companyID int64, ids []int64, conversationID int64) error
}

// LaterStore holds wake-ups: snoozes, scheduled replies and workflows'
// time conditions.
type LaterStore interface {
	// PutLater records (or moves) a wake-up; DeleteLater removes one.
	PutLater(item LaterItem) error
	DeleteLater(companyID int64, kind LaterKind, id int64) error
	// CountLater counts a company's pending snoozes and scheduled threads
	// (workflow wake-ups are not counted: they are no one's request).
	CountLater(companyID int64) (int, error)
	// DueLater lists the wake-ups due at or before now, oldest first, of
	// every company (to the second; of one second, by id then kind).
	DueLater(now time.Time) ([]LaterItem, error)
	// NextLater is when the earliest wake-up of any company is due (to the
	// second, as DueLater compares), and false when there is none.
	NextLater() (time.Time, bool)
	// TakeLater removes and returns one wake-up if it is due at now (to
	// the second), in a write: false when it is gone, was moved later, or,
	// on a backend several nodes share, another node's transaction holds
	// it (that node fires it). The scheduler takes each item it fires, so
	// it fires once.
	TakeLater(companyID int64, kind LaterKind, id int64, now time.Time) (LaterItem, bool, error)
}

// ChatStore holds chats and their timelines.
type ChatStore interface {
	Chat(companyID int64, id string) (*Chat, error)
	// ChatByID loads a chat whatever its company, for the indexer given an
	// outbox entry older than entries naming their company; whoever knows
	// the company reads Chat.
	ChatByID(id string) (*Chat, error)
	// PutChat stores a chat and queues it for indexing.
	PutChat(c *Chat) error
	// EachChatID calls fn with every chat id, and its company (an index
	// rebuild).
	EachChatID(fn func(companyID int64, id string)) error
	// PutTimelineEntry appends an entry to a chat's timeline. The entries
	// are records of their own, keyed by chat: adding one writes that
	// entry alone, never the chat nor its other entries, and queues
	// nothing for indexing (the search documents hold no timeline).
	PutTimelineEntry(companyID int64, chatID string, e TimelineEntry) error
	// ChatTimeline lists a chat's timeline in the order it was added (nil
	// when empty), and TimelineLength counts it.
	ChatTimeline(companyID int64, chatID string) ([]TimelineEntry, error)
	TimelineLength(companyID int64, chatID string) (int, error)
}

// EventStore records domain events for webhook delivery, in the
// transaction of the change.
type EventStore interface {
	PutEvent(e Event) error
}

// MailStore holds outgoing e-mail and the raw messages of threads.
type MailStore interface {
	// PutMail stores an outgoing e-mail, assigning an id when ID is 0, and
	// keeps it queued (due at NextAttemptAt) until it is final.
	PutMail(m *Mail) error
	// PutThreadSource keeps the raw message a thread came in as, or the
	// message Parley built for it; ThreadSource reads it back (NotFound
	// when there is none).
	PutThreadSource(companyID, threadID int64, raw []byte) error
	ThreadSource(companyID, threadID int64) ([]byte, error)
	// ConversationMail lists a conversation's outgoing e-mails, oldest
	// first (its delivery log).
	ConversationMail(companyID, conversationID int64) ([]Mail, error)
}

// WebhookStore holds webhooks and their deliveries.
type WebhookStore interface {
	Webhook(companyID, id int64) (*Webhook, error)
	PutWebhook(w *Webhook) error
	// DeleteWebhook removes a webhook and its deliveries.
	DeleteWebhook(w *Webhook) error
	// Webhooks lists a company's webhooks in id order.
	Webhooks(companyID int64) ([]Webhook, error)
	Delivery(companyID, webhookID, id int64) (*Delivery, error)
	// Deliveries pages through a webhook's deliveries, newest first, and
	// counts them all.
	Deliveries(companyID, webhookID int64, offset, limit int) ([]Delivery, int, error)
	// PutDelivery stores a delivery and keeps it queued while it is
	// pending.
	PutDelivery(d *Delivery) error
	// SetDeliveriesPaused pauses or resumes (due at now) every pending
	// delivery of a webhook.
	SetDeliveriesPaused(companyID, webhookID int64, paused bool, now time.Time) error
}

// The queues below are what the background workers drain (the webhook
// and e-mail dispatchers): each lists work of every company, in the order
// it is due, so a worker reads them without knowing the companies.

// EventQueue holds the domain events recorded (EventStore) and not yet
// turned into webhook deliveries.
type EventQueue interface {
	// HasPendingEvents reports whether any company has an event waiting.
	HasPendingEvents() bool
	// PendingEvents lists up to max waiting events, in the order they were
	// recorded. In a write, a store that nodes share may claim them
	// company by company instead, skipping the companies another node is
	// fanning out: each company's events still in the order recorded.
	PendingEvents(max int) ([]RecordedEvent, error)
	// DeleteEvent removes an event of a company once its deliveries are
	// stored (nothing when it is not there).
	DeleteEvent(companyID int64, seq uint64) error
}

// RecordedEvent is a domain event with its recording sequence.
type RecordedEvent struct {
	Seq uint64
	Event
}

// DeliveryQueue orders the webhook deliveries waiting to be attempted.
type DeliveryQueue interface {
	// DueDeliveries lists up to max deliveries to attempt at now: due,
	// unpaused, and each the oldest queued delivery of its webhook and
	// order key (so events about one record reach a webhook in commit
	// order), earliest due first.
	DueDeliveries(now time.Time, max int) ([]Delivery, error)
	// NextDeliveryAt is when the earliest delivery that heads its queue is
	// due (one queued behind another waits for it), and false when none is
	// queued and unpaused.
	NextDeliveryAt() (time.Time, bool, error)
}

// MailQueue holds the outgoing e-mail waiting to be sent.
type MailQueue interface {
	// Mail loads an outgoing e-mail of a company.
	Mail(companyID, id int64) (*Mail, error)
	// DueMail lists up to max e-mails waiting whose next attempt is at or
	// before now, earliest first.
	DueMail(now time.Time, max int) ([]Mail, error)
	// NextMailAt is when the earliest waiting e-mail is due, and false
	// when none waits.
	NextMailAt() (time.Time, bool)
}

// The signals a backend gives its workers: each is signalled after a
// commit that stored work for them, so they sleep between rounds instead
// of polling with transactions. A signal is kept until received; several
// commits may share one.

// LaterSource is what the scheduler needs: the store, and the signal of
// a commit that stored a wake-up (snooze, scheduled thread).
type LaterSource interface {
	Store() Store
	LaterChanged() <-chan struct{}
}

// WebhookSource is what the webhook dispatcher needs: the store, and the
// signal of a commit that recorded an event or stored a delivery.
type WebhookSource interface {
	Store() Store
	WebhookWork() <-chan struct{}
}

// MailSource is what the e-mail dispatcher needs: the store, and the
// signal of a commit that stored an e-mail to send.
type MailSource interface {
	Store() Store
	MailWork() <-chan struct{}
}

// Claims is what a backend shared by several nodes (PostgreSQL) gives the
// webhook and e-mail dispatchers, so that each delivery and e-mail is
// attempted by one node: a dispatcher claims an item it listed as due just
// before attempting it, and attempts it only if it got it. A claim moves
// the item's due time to until (still the time it was listed at, or no
// node gets it), so no node finds it due meanwhile; recording the attempt
// sets the real next one, and an item whose node died holding it is due
// again at until. The embedded store, one process, has no claims.
type Claims interface {
	ClaimDelivery(d *Delivery, until time.Time) (bool, error)
	ClaimMail(m *Mail, until time.Time) (bool, error)
}

// The Conflict errors of taken unique keys, the same from every backend.

// UserEmailTaken is the Conflict of a sign-in e-mail another user holds.
func UserEmailTaken() *Error {
	return &Error{Kind: KindConflict, Message: "User email not unique", Errors: []FieldError{{
		Path: "email", Code: CodeUserEmailNotUnique, Message: "a user with this e-mail already exists", Source: "JSON"}}}
}

// CustomerEmailTaken is the Conflict of an e-mail another customer of the
// company holds.
func CustomerEmailTaken(email string) *Error {
	return &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{
		Path: "emails", Code: CodeConflict, Message: "the e-mail is used by another customer", RejectedValue: email, Source: "JSON"}}}
}

// OrganizationDomainTaken is the Conflict of the i-th domain of an
// organization, held by another organization of the company.
func OrganizationDomainTaken(i int, domain string) *Error {
	return &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{
		Path: fmt.Sprintf("domains[%d]", i), Code: CodeConflict, Message: "the domain belongs to another organization",
		RejectedValue: domain, Source: "JSON"}}}
}

// PropertySlugTaken is the Conflict of a new property definition whose slug
// the company already defined.
func PropertySlugTaken(kind *PropertyKind, slug string) *Error {
	return &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{
		Path: "slug", Code: CodeConflict, Message: "a " + kind.Noun + " with this slug exists", RejectedValue: slug, Source: "JSON"}}}
}
