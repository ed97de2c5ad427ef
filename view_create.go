package parley

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// SavedViewInput is the body of creating or replacing a view. Absent
// visibility is private; absent sort is the list's default.
type SavedViewInput struct {
	Name       *string           `json:"name"`
	Visibility *string           `json:"visibility"`
	MailboxID  *int64            `json:"mailboxId"`
	Query      *string           `json:"query"`
	Filters    *ViewFiltersInput `json:"filters"`
	SortField  *string           `json:"sortField"`
	SortOrder  *string           `json:"sortOrder"`
}

// ViewFiltersInput is a view's list filters as sent, named as the list's
// parameters.
type ViewFiltersInput struct {
	Status        *string  `json:"status"`
	Mailboxes     []int64  `json:"mailbox"`
	Tags          []string `json:"tag"`
	AssignedTo    *int64   `json:"assigned_to"`
	ModifiedSince *string  `json:"modifiedSince"`
}

// validate checks the input and every id it names against what the
// caller may use; the query goes through check, over the company's
// mailboxes as the list checks `query=`.
func (in *SavedViewInput) validate(tx Tx, caller Caller, check QueryChecker) error {
	p := &Problems{}
	requireString(p, "name", in.Name, MaxViewName)
	visibility := ViewPrivate
	if in.Visibility != nil {
		visibility = *in.Visibility
		requireEnum(p, "visibility", in.Visibility, ViewVisibilities)
	}
	mailbox := func(path string, id int64) {
		if m, err := tx.Mailbox(caller.Company.ID, id); err != nil || !caller.User.CanAccessMailbox(m.ID) {
			p.Add(path, CodeInvalidID, "no mailbox with this id", id)
		}
	}
	switch {
	case in.MailboxID != nil:
		mailbox("mailboxId", *in.MailboxID)
	case visibility == ViewShared:
		p.Add("mailboxId", CodeNullValue, "a shared view needs the mailbox whose users share it", nil)
	}
	if f := in.Filters; f != nil {
		if f.Status != nil && !slices.Contains(ListStatuses, *f.Status) {
			p.Add("filters.status", CodeEnumValue, "must be one of: "+strings.Join(ListStatuses, ", "), *f.Status)
		}
		for i, id := range f.Mailboxes {
			mailbox(fmt.Sprintf("filters.mailbox[%d]", i), id)
		}
		tags := &Problems{}
		checkTagNames(tags, f.Tags)
		for _, item := range tags.items {
			p.Add("filters."+item.Path, item.Code, item.Message, item.RejectedValue)
		}
		if f.AssignedTo != nil {
			_, userErr := tx.User(caller.Company.ID, *f.AssignedTo)
			_, teamErr := tx.Team(caller.Company.ID, *f.AssignedTo)
			if userErr != nil && teamErr != nil {
				p.Add("filters.assigned_to", CodeInvalidID, "no user or team with this id", *f.AssignedTo)
			}
		}
		checkTime(p, "filters.modifiedSince", f.ModifiedSince)
	}
	if in.SortField != nil && !slices.Contains(ConversationSortFields, *in.SortField) {
		p.Add("sortField", CodeEnumValue, "must be one of: "+strings.Join(ConversationSortFields, ", "), *in.SortField)
	}
	if in.SortOrder != nil && !slices.Contains(SortOrders, *in.SortOrder) {
		p.Add("sortOrder", CodeEnumValue, "must be one of: "+strings.Join(SortOrders, ", "), *in.SortOrder)
	}
	if in.Query != nil {
		switch q := strings.TrimSpace(*in.Query); {
		case utf8.RuneCountInString(q) > MaxViewQuery:
			p.Add("query", CodeSize, sizeMessage(0, MaxViewQuery), nil)
		case q != "":
			mailboxes, err := tx.Mailboxes(caller.Company.ID)
			if err != nil {
				return err
			}
			if err := check(mailboxes, q); err != nil {
				p.Add("query", CodeInvalidCondition, err.Error(), *in.Query)
			}
		}
	}
	return p.Err()
}

// CreateSavedView validates and stores a new view owned by the caller.
func CreateSavedView(tx Tx, caller Caller, in *SavedViewInput, check QueryChecker, now time.Time) (*SavedView, error) {
	v := &SavedView{CompanyID: caller.Company.ID, OwnerID: caller.User.ID, CreatedAt: now}
	return v, v.apply(tx, caller, in, check, now)
}

// UpdateSavedView replaces a view's definition, as PUT replaces.
func UpdateSavedView(tx Tx, caller Caller, id int64, in *SavedViewInput, check QueryChecker, now time.Time) error {
	v, err := loadOwnView(tx, caller, id)
	if err != nil {
		return err
	}
	return v.apply(tx, caller, in, check, now)
}

// ruleViewsOfWebhooks is the rule that a view stays while a webhook
// filters on it, which a webhook's write and a view's deletion both check
// (see RuleLocks).
const ruleViewsOfWebhooks = "views of webhooks"

// DeleteSavedView removes a view. A view a webhook filters on stays until
// the webhook lets it go: deleting it would silently mute the webhook.
func DeleteSavedView(tx Tx, caller Caller, id int64) error {
	v, err := loadOwnView(tx, caller, id)
	if err != nil {
		return err
	}
	if err := tx.LockRule(v.CompanyID, ruleViewsOfWebhooks); err != nil {
		return err
	}
	hooks, err := tx.Webhooks(v.CompanyID)
	if err != nil {
		return err
	}
	for _, w := range hooks {
		if w.ViewID == v.ID {
			return &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{Code: CodeConflict,
				Message: fmt.Sprintf("webhook %d filters on this view", w.ID), RejectedValue: w.ID}}}
		}
	}
	return tx.DeleteSavedView(v)
}

// loadOwnView loads a view the caller may change: one it sees and owns, or
// any it sees when it administers the company (a shared view outlives
// the user who made it).
func loadOwnView(tx Tx, caller Caller, id int64) (*SavedView, error) {
	v, err := LoadSavedView(tx, caller, id)
	if err != nil {
		return nil, err
	}
	if v.OwnerID != caller.User.ID && !caller.User.IsAdmin() {
		return nil, Forbidden(CodeAccessDenied, "only the view's owner or an administrator may change it")
	}
	return v, nil
}

func (v *SavedView) apply(tx Tx, caller Caller, in *SavedViewInput, check QueryChecker, now time.Time) error {
	if err := in.validate(tx, caller, check); err != nil {
		return err
	}
	v.Name, v.Visibility, v.MailboxID, v.Query = strings.TrimSpace(*in.Name), ViewPrivate, 0, ""
	if in.Visibility != nil {
		v.Visibility = *in.Visibility
	}
	if in.MailboxID != nil {
		v.MailboxID = *in.MailboxID
	}
	if in.Query != nil {
		v.Query = strings.TrimSpace(*in.Query)
	}
	v.Filters = ViewFilters{}
	if f := in.Filters; f != nil {
		if f.Status != nil {
			v.Filters.Status = *f.Status
		}
		v.Filters.Mailboxes = slices.Compact(slices.Sorted(slices.Values(f.Mailboxes)))
		for _, t := range f.Tags {
			v.Filters.Tags = append(v.Filters.Tags, NormalizeTagName(t))
		}
		v.Filters.AssignedTo = f.AssignedTo
		if f.ModifiedSince != nil {
			t, _ := ParseTime(*f.ModifiedSince)
			v.Filters.ModifiedSince = &t
		}
	}
	v.SortField, v.SortOrder = DefaultSortField, DefaultSortOrder
	if in.SortField != nil {
		v.SortField = *in.SortField
	}
	if in.SortOrder != nil {
		v.SortOrder = *in.SortOrder
	}
	v.ModifiedAt = now
	return tx.PutSavedView(v)
}
