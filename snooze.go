package parley

import "time"

// SnoozeRequest is the body of PUT /v2/conversations/{id}/snooze.
type SnoozeRequest struct {
	SnoozedUntil            *string `json:"snoozedUntil"`
	UnsnoozeOnCustomerReply bool    `json:"unsnoozeOnCustomerReply"`
}

// SnoozeConversation hides a conversation until a time, optionally waking it on the
// customer's next reply.
func SnoozeConversation(tx Tx, caller Caller, convID int64, r *SnoozeRequest, now time.Time) error {
	until, err := futureTime("snoozedUntil", r.SnoozedUntil, now)
	if err != nil {
		return err
	}
	c, err := LoadConversation(tx, caller, convID, now)
	if err != nil {
		return err
	}
	if c.Snooze == nil {
		if err := checkLaterLimit(tx, caller.Company); err != nil {
			return err
		}
	}
	c.Snooze = &Snooze{SnoozedBy: caller.User.ID, SnoozedUntil: until, UnsnoozeOnCustomerReply: r.UnsnoozeOnCustomerReply}
	if err := tx.PutLater(LaterItem{CompanyID: c.CompanyID, Kind: LaterSnooze, ID: c.ID, ConversationID: c.ID, At: until}); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}

// UnsnoozeConversation wakes a conversation now.
func UnsnoozeConversation(tx Tx, caller Caller, convID int64, now time.Time) error {
	c, err := LoadConversation(tx, caller, convID, now)
	if err != nil {
		return err
	}
	if c.Snooze == nil {
		return NotFound("snooze")
	}
	c.Snooze = nil
	if err := tx.DeleteLater(c.CompanyID, LaterSnooze, c.ID); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}
