package parley

import (
	"time"
)

// Mailbox is an inbox (called mailbox in paths).
type Mailbox struct {
	ID        int64      `json:"id"`
	CompanyID int64      `json:"companyId"`
	Name      string     `json:"name"`
	Slug      string     `json:"slug"`
	Email     string     `json:"email"`
	Folders   []Folder   `json:"folders"`
	Fields    []FieldDef `json:"fields"`
	// DefaultStatus is the status of a reply sent without one (inbox setting).
	DefaultStatus Status `json:"defaultStatus,omitempty"`
	// DefaultAssigneeID assigns conversations created without `assignTo`
	// (inbox setting); 0 leaves them unassigned.
	DefaultAssigneeID int64 `json:"defaultAssigneeId,omitempty"`
	// Routing assigns new conversations automatically; nil is disabled.
	Routing *Routing `json:"routing,omitempty"`
	// Widgets are the public ids of the mailbox's chat widgets.
	Widgets []string `json:"widgets,omitempty"`
	// AutoReply is the mailbox's auto reply; nil: none (autoreply.go).
	AutoReply *AutoReply `json:"autoReply,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// FolderType is the kind of a mailbox folder. Every mailbox has one folder
// of each system type; a conversation lives in exactly one of them, chosen
// by FolderTypeOf.
type FolderType string

// System folder types.
const (
	FolderUnassigned FolderType = "unassigned"
	FolderAssigned   FolderType = "assigned"
	FolderDrafts     FolderType = "drafts"
	FolderClosed     FolderType = "closed"
	FolderSpam       FolderType = "spam"
)

// SystemFolders lists the folder types every mailbox holds, in display order.
var SystemFolders = []FolderType{FolderUnassigned, FolderAssigned, FolderDrafts, FolderClosed, FolderSpam}

// Folder is a view of a mailbox holding conversations.
type Folder struct {
	ID        int64      `json:"id"`
	Name      string     `json:"name"`
	Type      FolderType `json:"type"`
	UserID    int64      `json:"userId"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// FolderOfType returns the mailbox's folder of a type.
func (m *Mailbox) FolderOfType(t FolderType) (Folder, bool) {
	for _, f := range m.Folders {
		if f.Type == t {
			return f, true
		}
	}
	return Folder{}, false
}

// FieldType is the type of a custom field definition.
type FieldType string

// Custom field types.
const (
	FieldDropdown   FieldType = "dropdown"
	FieldSingleLine FieldType = "singleline"
	FieldMultiLine  FieldType = "multiline"
	FieldNumber     FieldType = "number"
	FieldDate       FieldType = "date"
)

// FieldDef is a custom field defined on a mailbox.
type FieldDef struct {
	ID       int64         `json:"id"`
	Name     string        `json:"name"`
	Type     FieldType     `json:"type"`
	Required bool          `json:"required"`
	Order    int           `json:"order"`
	Options  []FieldOption `json:"options"`
}

// FieldOption is one choice of a dropdown field.
type FieldOption struct {
	ID    int64  `json:"id"`
	Order int    `json:"order"`
	Label string `json:"label"`
}

// Field returns the mailbox's custom field definition with the id.
func (m *Mailbox) Field(id int64) (FieldDef, bool) {
	for _, f := range m.Fields {
		if f.ID == id {
			return f, true
		}
	}
	return FieldDef{}, false
}

// tagPalette gives new tags a stable colour chosen from their name.
var tagPalette = []string{"#57c28d", "#e2675b", "#5b8be2", "#f5a623", "#9b59b6", "#1abc9c", "#7f8c8d"}

// DefaultTagColor picks a tag's colour from its name, so the same name always
// gets the same colour.
func DefaultTagColor(name string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return tagPalette[h%uint32(len(tagPalette))]
}
