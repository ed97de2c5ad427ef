package parley

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

// MaxLabelLength bounds the names of companies, mailboxes and custom
// fields and the labels of options, in characters.
const MaxLabelLength = 100

// NewMailbox is a request to create a mailbox. Absent fields are nil.
type NewMailbox struct {
	Name  *string `json:"name"`
	Email *string `json:"email"`
}

// MailboxPatch renames a mailbox or changes its address; absent fields
// stay as they are.
type MailboxPatch struct {
	Name  *string `json:"name"`
	Email *string `json:"email"`
}

// checkName validates a required name: trimmed, not empty, at most
// MaxLabelLength characters, no control character.
func checkName(p *Problems, path string, v *string) string {
	switch {
	case v == nil:
		p.Add(path, CodeNullValue, "may not be null", nil)
	case strings.TrimSpace(*v) == "":
		p.Add(path, CodeEmptyValue, "may not be empty", *v)
	case len([]rune(strings.TrimSpace(*v))) > MaxLabelLength:
		p.Add(path, CodeSize, "must be at most "+itoa(MaxLabelLength)+" characters", *v)
	case strings.ContainsFunc(*v, unicode.IsControl):
		p.Add(path, CodeValueNotSupported, "may not contain control characters", *v)
	default:
		return strings.TrimSpace(*v)
	}
	return ""
}

// checkEmail validates a required e-mail address.
func checkEmail(p *Problems, path string, v *string) string {
	switch {
	case v == nil:
		p.Add(path, CodeNullValue, "may not be null", nil)
	case !ValidEmail(strings.TrimSpace(*v)):
		p.Add(path, CodeEmail, EmailRule, *v)
	default:
		return strings.TrimSpace(*v)
	}
	return ""
}

// systemFolderNames are the display names of SystemFolders, in order.
var systemFolderNames = []string{"Unassigned", "Assigned", "Drafts", "Closed", "Spam"}

// SystemFolderSet returns one folder of each system type, updated at now;
// every mailbox holds them.
func SystemFolderSet(now time.Time) []Folder {
	out := make([]Folder, 0, len(SystemFolders))
	for i, t := range SystemFolders {
		out = append(out, Folder{Name: systemFolderNames[i], Type: t, UpdatedAt: now})
	}
	return out
}

// CreateMailbox creates a mailbox of a company with its system folders and
// no custom field. Names are unique within the company (409 Conflict).
func CreateMailbox(tx Tx, companyID int64, req NewMailbox, now time.Time) (*Mailbox, error) {
	if _, err := tx.Company(companyID); err != nil {
		return nil, err
	}
	var p Problems
	m := &Mailbox{CompanyID: companyID, Name: checkName(&p, "name", req.Name), Email: checkEmail(&p, "email", req.Email),
		Folders: SystemFolderSet(now), Fields: []FieldDef{}, DefaultStatus: StatusActive, CreatedAt: now, UpdatedAt: now}
	if err := p.Err(); err != nil {
		return nil, err
	}
	if err := uniqueMailboxName(tx, m); err != nil {
		return nil, err
	}
	if err := freeMailboxAddress(tx, companyID, "email", m.Email, ""); err != nil {
		return nil, err
	}
	m.Slug = TagSlug(m.Name)
	if err := tx.PutMailbox(m); err != nil {
		return nil, err
	}
	return m, nil
}

// UpdateMailbox renames a mailbox or changes its address.
func UpdateMailbox(tx Tx, companyID, id int64, req MailboxPatch, now time.Time) (*Mailbox, error) {
	m, err := tx.Mailbox(companyID, id)
	if err != nil {
		return nil, err
	}
	var p Problems
	if req.Name != nil {
		m.Name = checkName(&p, "name", req.Name)
	}
	if req.Email != nil {
		m.Email = checkEmail(&p, "email", req.Email)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	if err := uniqueMailboxName(tx, m); err != nil {
		return nil, err
	}
	if req.Email != nil {
		if err := freeMailboxAddress(tx, companyID, "email", m.Email, ""); err != nil {
			return nil, err
		}
	}
	m.UpdatedAt = now
	if err := tx.PutMailbox(m); err != nil {
		return nil, err
	}
	return m, nil
}

// uniqueMailboxName answers 409 when another mailbox of the company has
// the name (compared without case).
func uniqueMailboxName(tx Tx, m *Mailbox) error {
	if err := tx.LockRule(m.CompanyID, "mailbox names"); err != nil {
		return err
	}
	all, err := tx.Mailboxes(m.CompanyID)
	if err != nil {
		return err
	}
	for _, o := range all {
		if o.ID != m.ID && strings.EqualFold(o.Name, m.Name) {
			return conflict("name", "a mailbox of the company is already called "+o.Name, m.Name)
		}
	}
	return nil
}

// freeMailboxAddress answers 409 when a mailbox of another company than
// companyID (0: a company not created yet) receives mail at the address:
// incoming mail goes to one mailbox per address, so the new one would
// silently never get any. note is added to the message.
func freeMailboxAddress(tx Tx, companyID int64, path, address, note string) error {
	if err := tx.LockRule(0, "mailbox addresses"); err != nil {
		return err
	}
	other, err := tx.MailboxByEmail(address)
	switch {
	case IsNotFound(err):
		return nil
	case err != nil:
		return err
	case other.CompanyID != companyID:
		return conflict(path, "another company's mailbox receives mail at this address"+note, address)
	}
	return nil
}

// conflict builds a 409 about one field of a JSON body.
func conflict(path, msg string, rejected any) *Error {
	return &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{Path: path, Code: CodeConflict,
		Message: msg, RejectedValue: rejected, Origin: OriginBody}}}
}

// NewField is a request to add a custom field to a mailbox.
type NewField struct {
	Name     *string  `json:"name"`
	Type     *string  `json:"type"`
	Required bool     `json:"required"`
	Options  []string `json:"options"`
}

// fieldTypes are the custom field types, in the order errors list them.
var fieldTypes = []string{string(FieldSingleLine), string(FieldMultiLine), string(FieldDropdown), string(FieldNumber), string(FieldDate)}

// MaxFieldOptions bounds the choices of a dropdown field.
const MaxFieldOptions = 100

// AddField adds a custom field at the end of a mailbox's fields. Only a
// dropdown has options (at least one, distinct); names are unique within
// the mailbox (409).
func AddField(tx Tx, companyID, mailboxID int64, req NewField, now time.Time) (*Mailbox, FieldDef, error) {
	m, err := tx.Mailbox(companyID, mailboxID)
	if err != nil {
		return nil, FieldDef{}, err
	}
	var p Problems
	f := FieldDef{Name: checkName(&p, "name", req.Name), Required: req.Required, Order: len(m.Fields) + 1, Options: []FieldOption{}}
	switch {
	case req.Type == nil:
		p.Add("type", CodeNullValue, "may not be null", nil)
	case !slices.Contains(fieldTypes, *req.Type):
		p.Add("type", CodeEnumValue, "must be one of: "+strings.Join(fieldTypes, ", "), *req.Type)
	default:
		f.Type = FieldType(*req.Type)
	}
	switch {
	case f.Type == FieldDropdown && len(req.Options) == 0:
		p.Add("options", CodeEmptyValue, "a dropdown needs at least one option", nil)
	case f.Type != "" && f.Type != FieldDropdown && len(req.Options) > 0:
		p.Add("options", CodeValueNotSupported, "only a dropdown has options", req.Options)
	case len(req.Options) > MaxFieldOptions:
		p.Add("options", CodeSize, "at most "+itoa(MaxFieldOptions)+" options", len(req.Options))
	}
	seen := map[string]bool{}
	for i, o := range req.Options {
		path := "options[" + itoa(i) + "]"
		label := checkName(&p, path, &o)
		if seen[strings.ToLower(label)] && label != "" {
			p.Add(path, CodeValueNotSupported, "options must be distinct", o)
		}
		seen[strings.ToLower(label)] = true
		f.Options = append(f.Options, FieldOption{Order: i + 1, Label: label})
	}
	if err := p.Err(); err != nil {
		return nil, FieldDef{}, err
	}
	for _, o := range m.Fields {
		if strings.EqualFold(o.Name, f.Name) {
			return nil, FieldDef{}, conflict("name", "the mailbox already has a field called "+o.Name, f.Name)
		}
	}
	m.Fields = append(m.Fields, f)
	m.UpdatedAt = now
	if err := tx.PutMailbox(m); err != nil {
		return nil, FieldDef{}, err
	}
	return m, m.Fields[len(m.Fields)-1], nil
}

// NewWidget is a request to add a public chat widget to a mailbox.
// Absent id draws a random one.
type NewWidget struct {
	ID *string `json:"id"`
}

// widgetIDRule is the message of a widget id that is not valid.
const widgetIDRule = "must be 8 to 64 letters, digits, '-' or '_'"

// AddWidget adds a chat widget to a mailbox: its public id is what the
// embeddable widget sends (POST /v2/widgets/{widgetId}/chats). Ids are
// unique across Parley (409).
func AddWidget(tx Tx, companyID, mailboxID int64, req NewWidget, now time.Time) (*Mailbox, string, error) {
	m, err := tx.Mailbox(companyID, mailboxID)
	if err != nil {
		return nil, "", err
	}
	id := strings.ReplaceAll(strings.ToLower(NewSecret()[:22]), "_", "-")
	if req.ID != nil {
		id = *req.ID
		ok := len(id) >= 8 && len(id) <= 64 && !strings.ContainsFunc(id, func(r rune) bool {
			return !(r == '-' || r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		})
		if !ok {
			return nil, "", InvalidField("id", CodeValueNotSupported, widgetIDRule, id)
		}
	}
	if _, err := tx.MailboxByWidget(id); err == nil {
		return nil, "", conflict("id", "a chat widget already has this id", id)
	} else if !IsNotFound(err) {
		return nil, "", err
	}
	m.Widgets = append(m.Widgets, id)
	m.UpdatedAt = now
	if err := tx.PutMailbox(m); err != nil {
		return nil, "", err
	}
	return m, id, nil
}
