package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
)

// Time conditions. An automatic workflow whose conditions use NOW-relative
// date math (`status:pending AND modifiedAt:[* TO NOW-30DAYS]`) must run
// when the time comes, not only on the next write. After each write to a
// conversation (and each wake-up), the conversation gets one wake-up
// (parley.LaterWorkflow), at the earliest instant one of the mailbox's
// active automatic workflows that does not match now will match the
// conversation as it stands, naming the workflows due then. The
// scheduler fires it (Wake): each named workflow is evaluated again and
// runs if it matches, and the next wake-up is computed. No conversation
// is ever scanned: a workflow created or activated acts on a conversation
// from the conversation's next write on.
//
// The instant is exact, not polled: a condition's answer for a fixed
// document can only change when one of its NOW-relative values crosses a
// date of the document it is compared with (query.NowBounds and
// query.Crossings list those instants), so the conditions are evaluated
// at each such instant, in order, with the search oracle's evaluation, up
// to maxCandidates of them. Instants are rounded up to the second (the
// wake-up loop's resolution).
//
// Once per change. Help Scout's automatic workflows act only the first
// time a conversation matches, so that a workflow does not run again on
// its own changes. Here a workflow runs on a conversation at most once
// between two changes made other than by the automatic workflows (by a
// user, a customer, an API client, incoming e-mail, or the scheduler
// ending a snooze or sending a scheduled reply, on a person's request):
// whatever ran on the conversation since such a change is kept on its
// wake-up (parley.LaterItem.Ran), left out of the wake-ups computed, and
// not run again by a wake-up nor by the changes a wake-up's workflows
// make. The next such change starts afresh. (With no wake-up left nothing
// runs by time before that change, so nothing else need keep them.)
// Without it, a condition its own action makes false and time makes true
// again (`modifiedAt:[* TO NOW-2SECONDS]` with a note) ran every few
// seconds forever.

// maxCandidates bounds the instants tried per workflow and conversation.
const maxCandidates = 256

// woken is what one transaction of Wake ran: conversation id -> the
// workflows that ran on it since it was last changed other than by the
// workflows (parley.LaterItem.Ran and those the wake-up ran).
type woken map[int64]map[int64]bool

// takeWoken returns, and forgets, what a Wake transaction ran; nil for
// any other write.
func (e *Engine) takeWoken(tx parley.Tx) woken {
	v, ok := e.woken.LoadAndDelete(tx)
	if !ok {
		return nil
	}
	return v.(woken)
}

// WakeReport is what one round of Wake did.
type WakeReport struct {
	// Woken counts the wake-ups fired.
	Woken int
	// Seq is the highest outbox sequence their writes queued, which a
	// caller waits on to read them from the search index.
	Seq uint64
	// Failed are the wake-ups whose write failed.
	Failed []WakeFailure
}

// WakeFailure is a wake-up whose write failed (Err), and what
// parley.WakeFailed then did with it: moved it to RetryAt, or Dropped it
// with a line item on its conversation. Neither when it was no longer
// there to deal with.
type WakeFailure struct {
	Item    parley.LaterItem
	Err     error
	RetryAt time.Time
	Dropped bool
}

// Wake fires every wake-up due at now: snoozes and scheduled threads
// (parley.WakeItem) and workflow wake-ups, each in a write of its own, so
// a wake-up that fails holds up no other, of its company or another. A
// failed one is moved later or dropped (parley.WakeFailed), in a write of
// its own too. The error is that of listing the due wake-ups, or of the
// writes that could not deal with a failure (the store refuses writes):
// those items stay due.
func (e *Engine) Wake(ctx context.Context, store parley.Store, now time.Time) (WakeReport, error) {
	var due []parley.LaterItem
	if err := store.View(ctx, func(tx parley.Tx) (err error) {
		due, err = tx.DueLater(now)
		return err
	}); err != nil {
		return WakeReport{}, err
	}
	var report WakeReport
	var errs []error
	for _, it := range due {
		fired, seq, err := e.wakeItem(ctx, store, it, now)
		if err == nil {
			if fired {
				report.Woken++
			}
			report.Seq = max(report.Seq, seq)
			continue
		}
		f := WakeFailure{Item: it, Err: err}
		if _, err := store.Update(ctx, func(tx parley.Tx) error {
			left, dropped, ok, err := parley.WakeFailed(tx, it, f.Err, now)
			if ok && !dropped {
				f.RetryAt = left.At
			}
			f.Dropped = dropped
			return err
		}); err != nil {
			errs = append(errs, fmt.Errorf("wake-up %s %d of company %d: %w; then: %w", it.Kind, it.ID, it.CompanyID, f.Err, err))
			continue
		}
		report.Failed = append(report.Failed, f)
	}
	return report, errors.Join(errs...)
}

// wakeItem fires one due wake-up in a write of its own; false when it was
// no longer there to fire.
func (e *Engine) wakeItem(ctx context.Context, store parley.Store, due parley.LaterItem, now time.Time) (fired bool, seq uint64, err error) {
	var txs []parley.Tx // every run of the write: a retried one too
	defer func() {
		for _, tx := range txs {
			e.woken.Delete(tx)
		}
	}()
	seq, err = store.Update(ctx, func(tx parley.Tx) (err error) {
		txs = append(txs, tx)
		fired, err = parley.WakeItem(tx, due, now, e.fire)
		return err
	})
	return fired, seq, err
}

// fire is the parley.WorkflowWaker: each workflow the wake-up names that
// is still an active automatic workflow of the conversation's mailbox,
// and has not run on the conversation since it was last changed other
// than by the workflows (item.Ran), runs when it matches now. Their
// changes then trigger the other automatic workflows as any write does
// (BeforeCommit, told what ran), and the conversation's next wake-up is
// computed.
func (e *Engine) fire(tx parley.Tx, item parley.LaterItem, now time.Time) error {
	c, err := tx.Conversation(item.CompanyID, item.ConversationID)
	if parley.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	auto, err := activeAutomatic(tx, item.CompanyID)
	if err != nil || len(auto) == 0 {
		return err
	}
	caller, err := parley.AccountOwner(tx, item.CompanyID)
	if err != nil || caller.User == nil {
		return err
	}
	ran := map[int64]bool{}
	for _, id := range item.Ran {
		ran[id] = true
	}
	for i := range auto {
		w := &auto[i]
		if ran[w.ID] || w.MailboxID != c.MailboxID || !slices.Contains(item.WorkflowIDs, w.ID) {
			continue
		}
		matched, err := Matches(tx, w, c.ID, now)
		if err != nil {
			return err
		}
		if matched {
			if err := record(tx, caller, w, c.ID, true, TriggerTime, now); err != nil {
				return err
			}
			ran[w.ID] = true
		}
	}
	v, _ := e.woken.LoadOrStore(tx, woken{})
	v.(woken)[c.ID] = ran
	return schedule(newConditions(tx), auto, item.CompanyID, c.ID, nil, ran, now)
}

// schedule replaces the conversation's workflow wake-up: at the earliest
// instant after now at which one of the mailbox's automatic workflows
// (auto, active) that does not match now, and is not one of those that
// ran on the conversation since it was last changed other than by the
// workflows (ran, which the wake-up keeps), will match; or none. doc is
// the conversation's current document when the caller built it, else nil.
func schedule(cs *conditions, auto []parley.Workflow, companyID, convID int64, doc *index.Document, ran map[int64]bool, now time.Time) error {
	tx := cs.tx
	item := parley.LaterItem{CompanyID: companyID, Kind: parley.LaterWorkflow, ID: convID, ConversationID: convID}
	c, err := tx.Conversation(companyID, convID)
	if parley.IsNotFound(err) {
		return tx.DeleteLater(companyID, parley.LaterWorkflow, convID)
	}
	if err != nil {
		return err
	}
	for i := range auto {
		w := &auto[i]
		if w.MailboxID != c.MailboxID || ran[w.ID] || !timed(w) {
			continue
		}
		if doc == nil {
			built, ok, err := indexer.ConversationDocument(tx, companyID, convID)
			if err != nil {
				return err
			}
			if !ok {
				break // not searchable (deleted): nothing will match
			}
			doc = &built
		}
		at, ok, err := nextMatch(cs, w, *doc, now)
		if err != nil {
			return err
		}
		switch {
		case !ok || (!item.At.IsZero() && at.After(item.At)):
		case at.Equal(item.At):
			item.WorkflowIDs = append(item.WorkflowIDs, w.ID)
		default:
			item.At, item.WorkflowIDs = at, []int64{w.ID}
		}
	}
	if item.At.IsZero() {
		return tx.DeleteLater(companyID, parley.LaterWorkflow, convID)
	}
	for id := range ran {
		item.Ran = append(item.Ran, id)
	}
	slices.Sort(item.Ran)
	return tx.PutLater(item)
}

// timed reports whether a workflow's conditions use NOW-relative dates.
func timed(w *parley.Workflow) bool {
	for _, cond := range w.Conditions {
		if n, err := parse(cond); err == nil && len(query.NowBounds(n)) > 0 {
			return true
		}
	}
	return false
}

// nextMatch is the earliest instant after now at which w will match the
// document, when it does not match now; false when it matches now or
// never will (as the document stands).
func nextMatch(cs *conditions, w *parley.Workflow, doc index.Document, now time.Time) (time.Time, bool, error) {
	if doc.Company != w.CompanyID {
		return time.Time{}, false, nil
	}
	schema, syntax, ok, err := cs.of(w)
	if err != nil || !ok {
		return time.Time{}, false, err // a condition no longer parses: matches nothing
	}
	var bounds []query.NowBound
	for _, n := range syntax {
		bounds = append(bounds, query.NowBounds(n)...)
	}
	matchAt := func(at time.Time) (bool, error) {
		nodes, ok, err := checked(schema, syntax, at)
		if err != nil || !ok {
			return false, err // no longer checks (a field removed): matches nothing
		}
		return scan.Match(doc, nodes...)
	}
	if ok, err := matchAt(now); ok || err != nil {
		return time.Time{}, false, err
	}
	var candidates []time.Time
	for _, b := range bounds {
		spec, ok := schema.Lookup(b.Field)
		if !ok || spec.Type != query.Date {
			continue
		}
		targets := spec.Targets
		if len(targets) == 0 {
			targets = []string{spec.Name}
		}
		for _, field := range targets {
			for _, v := range doc.Numbers[field] {
				for _, at := range query.Crossings(b.Value, time.UnixMilli(int64(v)).UTC()) {
					if at = ceilSecond(at); at.After(now) {
						candidates = append(candidates, at)
					}
				}
			}
		}
	}
	slices.SortFunc(candidates, time.Time.Compare)
	candidates = slices.CompactFunc(candidates, time.Time.Equal)
	for _, at := range candidates[:min(len(candidates), maxCandidates)] {
		if ok, err := matchAt(at); ok || err != nil {
			return at, ok, err
		}
	}
	return time.Time{}, false, nil
}

// ceilSecond rounds t up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}
