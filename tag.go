package parley

import (
	"regexp"
	"strings"
	"time"
)

// Tag is a company-wide label for conversations. Names are lowercase.
type Tag struct {
	ID        int64     `json:"id"`
	CompanyID int64     `json:"companyId"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	Color     string    `json:"color"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// NormalizeTagName gives the stored form of a tag name: trimmed, lowercase.
func NormalizeTagName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// TagSlug turns a tag name into its slug: lowercase words joined by hyphens.
func TagSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range NormalizeTagName(name) {
		if r == ' ' || r == '-' || r == '_' {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TagInput is the body of PUT /v2/tags/{id}: a new name and/or colour.
type TagInput struct {
	Name  *string `json:"name"`
	Color *string `json:"color"`
}

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// manageTags allows owners and administrators to rename and delete tags.
func manageTags(caller Caller) error { return RequireAdmin(caller, "change tags") }

// UpdateTag renames a tag or changes its colour; conversations carrying it
// are reindexed under the new name. Records tag.updated.
func UpdateTag(tx Tx, caller Caller, id int64, in *TagInput, now time.Time) error {
	p := &Problems{}
	name := ""
	if in.Name != nil {
		if name = NormalizeTagName(*in.Name); name == "" || len(name) > MaxTagLength {
			p.Add("name", CodeSize, sizeMessage(1, MaxTagLength), *in.Name)
		}
	}
	if in.Color != nil && !hexColor.MatchString(*in.Color) {
		p.Add("color", CodeValueNotSupported, "must be a colour #rrggbb", *in.Color)
	}
	if in.Name == nil && in.Color == nil {
		p.Add("name", CodeNullValue, "give a name, a color, or both", nil)
	}
	if err := p.Err(); err != nil {
		return err
	}
	if err := manageTags(caller); err != nil {
		return err
	}
	t, err := tx.Tag(caller.Company.ID, id)
	if err != nil {
		return err
	}
	renamed := name != "" && name != t.Name
	if renamed {
		if other, err := tx.TagByName(t.CompanyID, name); err == nil && other.ID != t.ID {
			return &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{Path: "name", Code: CodeConflict,
				Message: "another tag has this name", RejectedValue: name, Origin: OriginBody}}}
		}
		t.Name, t.Slug = name, TagSlug(name)
	}
	if in.Color != nil {
		t.Color = strings.ToLower(*in.Color)
	}
	t.UpdatedAt = now
	if err := tx.PutTag(t); err != nil {
		return err
	}
	if renamed {
		if err := touchTagged(tx, t, nil); err != nil {
			return err
		}
	}
	return emit(tx, EventTagUpdated, t.CompanyID, t.ID, now)
}

// DeleteTag removes a tag from every conversation and deletes it.
// Records tag.deleted.
func DeleteTag(tx Tx, caller Caller, id int64, now time.Time) error {
	if err := manageTags(caller); err != nil {
		return err
	}
	t, err := tx.Tag(caller.Company.ID, id)
	if err != nil {
		return err
	}
	if err := touchTagged(tx, t, func(c *Conversation) {
		var kept []int64
		for _, tid := range c.TagIDs {
			if tid != t.ID {
				kept = append(kept, tid)
			}
		}
		c.TagIDs, c.ModifiedAt = kept, now
	}); err != nil {
		return err
	}
	if err := tx.DeleteTag(t); err != nil {
		return err
	}
	return emit(tx, EventTagDeleted, t.CompanyID, t.ID, now)
}

// touchTagged stores again every conversation carrying the tag (changed
// by change when not nil), so their documents are rebuilt.
func touchTagged(tx Tx, t *Tag, change func(*Conversation)) error {
	ids, err := tx.ConversationIDsWithTag(t.CompanyID, t.ID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		c, err := tx.Conversation(t.CompanyID, id)
		if err != nil {
			return err
		}
		if change != nil {
			change(c)
		}
		if err := tx.PutConversation(c); err != nil {
			return err
		}
	}
	return nil
}
