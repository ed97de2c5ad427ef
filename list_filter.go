package parley

import "time"

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
	if ids, all := who.User.VisibleMailboxes(); !all {
		f.Visible = &ids
	}
	return f
}

// CustomerFilter narrows a list of customers. A nil pointer leaves its
// criterion open.
type CustomerFilter struct {
	// MailboxID lists the customers of one mailbox's conversations.
	MailboxID *int64
	// Email is normalised (NormalizeEmail).
	Email *string
	// FirstName and LastName match words of the name.
	FirstName, LastName *string
	// CreatedSince and ModifiedSince are inclusive.
	CreatedSince, ModifiedSince *time.Time
}
