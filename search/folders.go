package search

import (
	"context"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
)

// Folder is one folder of a mailbox as its list shows it, with the counts
// of its conversations: a system folder, or a saved view listed among
// them (type "view").
type Folder struct {
	ID        int64
	Name      string
	Type      parley.FolderType
	UserID    int64
	UpdatedAt time.Time
	// Total counts the folder's conversations, Active those of them
	// active.
	Total, Active int
}

// Folders lists a mailbox's folders for a caller: its system folders,
// then the saved views listed among them (the mailbox's shared views and
// the caller's private views that name it). The counts come from the
// index, so they are true to the data; a view's counts are of its
// conversations in this mailbox, what listing the view with the mailbox
// finds (a view may name several mailboxes).
func Folders(ctx context.Context, d Deps, who parley.Caller, m *parley.Mailbox) ([]Folder, error) {
	var views []parley.SavedView
	var mailboxes []parley.Mailbox
	err := d.Store.View(ctx, func(tx parley.Tx) (err error) {
		if views, err = parley.SavedViewsOf(tx, who, m.ID); err == nil && len(views) > 0 {
			mailboxes, err = tx.Mailboxes(who.Company.ID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	counted := func(f Folder, selection query.Node) (Folder, error) {
		var err error
		if f.Total, err = count(ctx, d, who.Company.ID, selection); err == nil {
			f.Active, err = count(ctx, d, who.Company.ID, selection, query.Keyword{Field: "status", Value: string(parley.StatusActive)})
		}
		return f, err
	}
	out := make([]Folder, 0, len(m.Folders)+len(views))
	for _, f := range m.Folders {
		item, err := counted(Folder{ID: f.ID, Name: f.Name, Type: f.Type, UserID: f.UserID, UpdatedAt: f.UpdatedAt},
			query.EqualID("folderId", f.ID))
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	for i := range views {
		v := &views[i]
		selection, err := viewSelection(who, v, mailboxes, d.Now)
		if err != nil {
			return nil, err
		}
		inMailbox := query.And{Nodes: []query.Node{selection, query.EqualID("mailboxId", m.ID)}}
		item, err := counted(Folder{ID: v.ID, Name: v.Name, Type: parley.FolderView, UserID: v.OwnerID, UpdatedAt: v.ModifiedAt}, inMailbox)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}
