package parley

import (
	"cmp"
	"slices"
	"time"
)

// SavedView is a named saved search over a company's conversations: a
// Parley query, the list filters of GET /v2/conversations and a sort. It is
// private to its owner, or shared with the users of a mailbox; either way
// it appears among a mailbox's folders and lists through `folder=`. Its id
// is drawn from the sequence of folder ids, so a `folder` parameter names
// a folder or a view, never both.
type SavedView struct {
	ID         int64       `json:"id"`
	CompanyID  int64       `json:"companyId"`
	OwnerID    int64       `json:"ownerId"`
	Name       string      `json:"name"`
	Visibility string      `json:"visibility"`
	MailboxID  int64       `json:"mailboxId,omitempty"` // required when shared
	Query      string      `json:"query,omitempty"`
	Filters    ViewFilters `json:"filters"`
	SortField  string      `json:"sortField"`
	SortOrder  string      `json:"sortOrder"`
	CreatedAt  time.Time   `json:"createdAt"`
	ModifiedAt time.Time   `json:"modifiedAt"`
}

// ViewFilters are the list parameters a view keeps, named as
// GET /v2/conversations names them. An absent status keeps every status:
// a view is its own folder, not the list's default of active ones.
type ViewFilters struct {
	Status        string     `json:"status,omitempty"`
	Mailboxes     []int64    `json:"mailbox,omitempty"`
	Tags          []string   `json:"tag,omitempty"`
	AssignedTo    *int64     `json:"assigned_to,omitempty"`
	ModifiedSince *time.Time `json:"modifiedSince,omitempty"`
}

// View visibilities.
const (
	ViewPrivate = "private"
	ViewShared  = "shared"
)

// ViewVisibilities are the allowed visibilities, for validation messages.
var ViewVisibilities = []string{ViewPrivate, ViewShared}

// FolderView is the folder type under which a mailbox's folders list a
// saved view.
const FolderView FolderType = "view"

// Limits of a view.
const (
	MaxViewName  = 255
	MaxViewQuery = 2000 // characters, as a workflow condition
)

// ConversationSortFields and SortOrders are the sorts of the conversation
// list (Help Scout's docs), which a view keeps too.
var (
	ConversationSortFields = []string{"createdAt", "customerEmail", "customerName", "mailboxid", "modifiedAt",
		"number", "score", "status", "subject", "waitingSince"}
	SortOrders = []string{"desc", "asc"}
)

// The list's default sort, which a view keeps when it names none.
const (
	DefaultSortField = "createdAt"
	DefaultSortOrder = "desc"
)

// QueryChecker checks a Parley query for the conversations of a company's
// mailboxes (their custom fields are fields of the query); its error
// message names the column. The domain cannot import the checker, so the
// caller passes it in.
type QueryChecker func(mailboxes []Mailbox, query string) error

// SavedViewStore holds saved views.
type SavedViewStore interface {
	SavedView(companyID, id int64) (*SavedView, error)
	// SavedViews lists a company's views in id order.
	SavedViews(companyID int64) ([]SavedView, error)
	// PutSavedView stores a view, assigning an id from the folders'
	// sequence when ID is 0.
	PutSavedView(v *SavedView) error
	DeleteSavedView(v *SavedView) error
}

// ConversationFilter is the view's list filters as the list's typed
// filter.
func (f *ViewFilters) ConversationFilter() ConversationFilter {
	out := ConversationFilter{MailboxIDs: f.Mailboxes, Tags: f.Tags, AssigneeID: f.AssignedTo, ModifiedSince: f.ModifiedSince}
	if selected, all := StatusFilter(f.Status); f.Status != "" && !all {
		out.Statuses = selected
	}
	return out
}

// VisibleTo reports whether a user sees the view: its owner always, the
// users of its mailbox when it is shared.
func (v *SavedView) VisibleTo(u *User) bool {
	if v.Visibility == ViewShared {
		return u.CanAccessMailbox(v.MailboxID)
	}
	return v.OwnerID == u.ID
}

// Names reports whether the view belongs among a mailbox's folders: a
// shared view in its mailbox's, a private one in those of the mailbox it
// names (its mailboxId or its mailbox filter).
func (v *SavedView) Names(mailboxID int64) bool {
	return v.MailboxID == mailboxID || v.Visibility == ViewPrivate && slices.Contains(v.Filters.Mailboxes, mailboxID)
}

// LoadSavedView loads a view the caller sees; another user's private view
// is not found, like another company's.
func LoadSavedView(tx SavedViewStore, caller Caller, id int64) (*SavedView, error) {
	v, err := tx.SavedView(caller.Company.ID, id)
	if err != nil {
		return nil, err
	}
	if !v.VisibleTo(caller.User) {
		return nil, NotFound("view")
	}
	return v, nil
}

// SavedViewsOf lists the views the caller sees, in id order; a mailbox id
// other than 0 keeps those that belong among its folders.
func SavedViewsOf(tx SavedViewStore, caller Caller, mailboxID int64) ([]SavedView, error) {
	all, err := tx.SavedViews(caller.Company.ID)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, v := range all {
		if v.VisibleTo(caller.User) && (mailboxID == 0 || v.Names(mailboxID)) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b SavedView) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
