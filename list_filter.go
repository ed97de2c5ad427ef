package parley

import (
	"slices"
	"time"
)

// ConversationFilter narrows a list or a report of conversations (and of
// the chats, calls and replies reported with them). Values of one list are
// alternatives; the criteria are all required. A nil list or pointer leaves
// its criterion open, while a pointer to an empty list matches nothing:
// where absent differs from empty, the field is a pointer.
type ConversationFilter struct {
	// Visible are the mailboxes the caller may see (VisibleTo); nil is
	// every mailbox of the company.
	Visible *[]int64
	// Statuses are the stored statuses listed; nil is every status.
	Statuses   []Status
	MailboxIDs []int64
	FolderIDs  []int64
	// Tags are tag values as the documents hold them: names, or slugs for
	// chats.
	Tags []string
	// Types are conversation types (email, chat, phone).
	Types         []string
	AssigneeID    *int64
	CustomerIDs   *[]int64
	ModifiedSince *time.Time
	Number        *int64
}

// VisibleTo narrows f to the conversations who may see: a user who is not
// an owner or administrator sees only those of the mailboxes it was given.
// Deleted conversations need no criterion: they leave the index.
func (f ConversationFilter) VisibleTo(who Caller) ConversationFilter {
	f.Visible = visibleMailboxes(who)
	return f
}

// visibleMailboxes are the mailboxes who may see, nil for every mailbox of
// the company (User.VisibleMailboxes).
func visibleMailboxes(who Caller) *[]int64 {
	if ids, all := who.User.VisibleMailboxes(); !all {
		return &ids
	}
	return nil
}

// CustomerFilter narrows a list of customers. A nil pointer leaves its
// criterion open.
type CustomerFilter struct {
	// Visible are the mailboxes the caller may see (VisibleTo); nil is
	// every mailbox of the company.
	Visible *[]int64
	// MailboxID lists the customers of one mailbox's conversations; of a
	// mailbox not Visible it lists none.
	MailboxID *int64
	// Email is normalised (NormalizeEmail).
	Email *string
	// FirstName and LastName match words of the name.
	FirstName, LastName *string
	// CreatedSince and ModifiedSince are inclusive.
	CreatedSince, ModifiedSince *time.Time
}

// VisibleTo narrows f to what who may see of the customers. Customers are
// the company's, whatever mailbox they wrote to, but by mailbox a user
// sees only its own: the customers of another mailbox are not listed (as
// a conversation list of that mailbox is empty) nor counted per mailbox.
func (f CustomerFilter) VisibleTo(who Caller) CustomerFilter {
	f.Visible = visibleMailboxes(who)
	return f
}

// ShowsMailbox reports whether the filter may list and count the customers
// of a mailbox by it.
func (f CustomerFilter) ShowsMailbox(id int64) bool {
	return f.Visible == nil || slices.Contains(*f.Visible, id)
}
