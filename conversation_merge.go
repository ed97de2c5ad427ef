package parley

import (
	"fmt"
	"slices"
	"time"
)

// MergeRequest is the body of POST /v2/conversations/{id}/merge.
type MergeRequest struct {
	TargetID *int64 `json:"targetId"`
}

// Merge moves every thread of a conversation into the target, which also
// takes its tags and addresses. The source is gone from lists; its URL
// redirects to the target for MergeRedirect.
func Merge(tx Tx, caller Caller, sourceID int64, r *MergeRequest, now time.Time) (*Conversation, error) {
	if r.TargetID == nil || *r.TargetID <= 0 {
		return nil, InvalidField("targetId", CodeInvalidID, "must be the id of the conversation to merge into", r.TargetID)
	}
	if *r.TargetID == sourceID {
		return nil, InvalidField("targetId", CodeValueNotSupported, "a conversation cannot be merged into itself", *r.TargetID)
	}
	src, err := LoadConversation(tx, caller, sourceID, now)
	if err != nil {
		return nil, err
	}
	dst, err := LoadConversation(tx, caller, *r.TargetID, now)
	if err != nil {
		if IsNotFound(err) || KindOf(err) == KindMoved {
			return nil, InvalidField("targetId", CodeInvalidID, "no conversation with this id", *r.TargetID)
		}
		return nil, err
	}
	moving, err := tx.Threads(src.CompanyID, src.ID)
	if err != nil {
		return nil, err
	}
	existing, err := tx.Threads(dst.CompanyID, dst.ID)
	if err != nil {
		return nil, err
	}
	if err := checkLocks(caller.Company, dst, append(existing, moving[:max(len(moving)-1, 0)]...), now); err != nil {
		return nil, err
	}
	if err := dropLater(tx, src); err != nil {
		return nil, err
	}
	for i := range moving {
		t := moving[i]
		if err := tx.DeleteThread(src.CompanyID, src.ID, t.ID); err != nil {
			return nil, err
		}
		t.ConversationID = dst.ID
		if err := tx.PutThread(&t); err != nil {
			return nil, err
		}
		if err := tx.MoveAttachments(dst.CompanyID, t.Attachments, dst.ID); err != nil {
			return nil, err
		}
	}
	merged := Thread{ConversationID: dst.ID, CompanyID: dst.CompanyID, Type: ThreadLineItem, State: ThreadPublished, CreatedAt: now,
		CreatedBy: Party{ID: caller.User.ID, Type: PartyUser}, Action: &Action{Type: "merged", Text: fmt.Sprintf("Merged with #%d", src.Number)}}
	if err := tx.PutThread(&merged); err != nil {
		return nil, err
	}
	for _, id := range src.TagIDs {
		if !slices.Contains(dst.TagIDs, id) && len(dst.TagIDs) < MaxTags { // a merge keeps the target within the bound
			dst.TagIDs = append(dst.TagIDs, id)
		}
	}
	dst.CC = appendUnique(dst.CC, src.CC...)
	dst.BCC = appendUnique(dst.BCC, src.BCC...)
	if err := saveConversation(tx, dst, now); err != nil {
		return nil, err
	}
	if err := tx.DeleteLater(src.CompanyID, LaterWorkflow, src.ID); err != nil {
		return nil, err
	}
	src.State, src.MergedInto, src.MergedAt, src.ModifiedAt = StateDeleted, dst.ID, &now, now
	src.Derive(nil)
	if err := tx.PutConversation(src); err != nil {
		return nil, err
	}
	return dst, emitPublished(tx, EventConvoMerged, dst, now)
}
