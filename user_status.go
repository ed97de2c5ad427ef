package parley

import (
	"strconv"
	"time"
)

// E-mail and chat availability of a user.
const (
	EmailActive     = "active"
	EmailAway       = "away"
	ChatAvailable   = "available"
	ChatUnavailable = "unavailable"
)

// EventUserStatusChanged names the event a status change emits; webhooks
// deliver it under this name.
const EventUserStatusChanged = "user.status.changed"

// UserStatus is a user's availability.
type UserStatus struct {
	Email       string    `json:"email"` // EmailActive or EmailAway
	Chat        string    `json:"chat"`  // ChatAvailable or ChatUnavailable
	UpdatedAt   time.Time `json:"updatedAt"`
	PerformedBy int64     `json:"performedBy"` // user id
	Source      string    `json:"source"`      // "api", or "ui" for the defaults
}

// CurrentStatus is the user's status; a user whose status was never set is
// active for e-mail and available for chat when they may chat.
func (u *User) CurrentStatus() UserStatus {
	if u.Status != nil {
		return *u.Status
	}
	chat := ChatUnavailable
	if u.CanChat {
		chat = ChatAvailable
	}
	return UserStatus{Email: EmailActive, Chat: chat, UpdatedAt: u.CreatedAt, PerformedBy: u.ID, Source: "ui"}
}

// StatusChange is a request to change a user's status; nil leaves a part
// as it is.
type StatusChange struct {
	Email *string `json:"status"`
	Chat  *string `json:"chat"`
}

// SetUserStatus applies a status change by the caller to target: users set
// their own status, owners and administrators anyone's in their company
// (403 `Access denied` otherwise). It returns the event to record, or nil
// when nothing changed.
func SetUserStatus(who Caller, target *User, change StatusChange, now time.Time) (*Event, error) {
	var p Problems
	if change.Email == nil && change.Chat == nil {
		p.Add("status", CodeNullValue, "give status (active, away) or chat (available, unavailable)", nil)
	}
	if v := change.Email; v != nil && *v != EmailActive && *v != EmailAway {
		p.Add("status", CodeEnumValue, "must be one of: active, away", *v)
	}
	if v := change.Chat; v != nil && *v != ChatAvailable && *v != ChatUnavailable {
		p.Add("chat", CodeEnumValue, "must be one of: available, unavailable", *v)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	if who.User.ID != target.ID && !who.User.IsAdmin() {
		return nil, Forbidden(CodeAccessDenied, "only administrators and account owners may change another user's status")
	}
	before := target.CurrentStatus()
	after := before
	if change.Email != nil {
		after.Email = *change.Email
	}
	if change.Chat != nil {
		after.Chat = *change.Chat
	}
	if after.Email == before.Email && after.Chat == before.Chat {
		return nil, nil
	}
	after.UpdatedAt, after.PerformedBy, after.Source = now, who.User.ID, "api"
	target.Status = &after
	return &Event{Kind: EventUserStatusChanged, CompanyID: target.CompanyID, ResourceID: itoa64(target.ID), At: now}, nil
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
