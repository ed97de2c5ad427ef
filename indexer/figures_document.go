package indexer

import (
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
)

// addFigures stores a conversation's report figures (parley.Figures) in
// its document, so every report reads the same number: times in seconds,
// with office-hours twins when the company keeps office hours; and what
// the conversations reports count: its customer, its activity times, who
// created it and the hour of the week it was created in.
func addFigures(tx parley.Tx, c *parley.Conversation, threads []parley.Thread, d *index.Document) {
	n := d.Numbers
	f := c.ReportFigures(threads)
	n["replies"] = []float64{float64(f.Replies)}
	if c.CustomerID != 0 {
		n["primaryCustomerId"] = []float64{float64(c.CustomerID)}
	}
	for _, at := range c.Activity(threads) {
		n["activityAt"] = append(n["activityAt"], index.Millis(at))
	}
	for _, t := range threads {
		if t.IsUserReply() {
			n["replyAt"] = append(n["replyAt"], index.Millis(t.CreatedAt))
		}
		if t.State != parley.ThreadPublished {
			continue
		}
		if t.SavedReplyID != 0 {
			n["savedReplyId"] = append(n["savedReplyId"], float64(t.SavedReplyID))
		}
		if t.Action != nil && t.Action.WorkflowID != 0 {
			n["workflowId"] = append(n["workflowId"], float64(t.Action.WorkflowID))
		}
	}
	if h, ok := f.HandleTime(); ok {
		n["handleSeconds"] = []float64{h.Seconds()}
	}
	d.Keywords["createdBy"] = []string{string(c.CreatedBy.Type)}
	if c.Status == parley.StatusClosed && c.ClosedAt != nil {
		n["closedAt"] = []float64{index.Millis(*c.ClosedAt)}
	}
	loc, office := reportClock(tx, c.CompanyID)
	for _, t := range threads { // thread order, so documents are deterministic
		r, ok := f.Responses[t.ID]
		if !ok {
			continue
		}
		n["responseSeconds"] = append(n["responseSeconds"], r.Seconds())
		if office != nil {
			n["responseOfficeSeconds"] = append(n["responseOfficeSeconds"], office.duration(f.Waiting[t.ID], t.CreatedAt).Seconds())
		}
	}
	day, hour := parley.WeekHour(c.CreatedAt, loc)
	d.Keywords["createdWeekHour"] = []string{index.WeekHourKey(day, hour)}
	if c.Status == parley.StatusClosed && c.ClosedAt != nil && c.ClosedBy != 0 {
		n["closedByUserId"] = []float64{float64(c.ClosedBy)}
	}
	times := timesOf(c, f, office)
	set := func(field string, v *float64) {
		if v != nil {
			n[field] = []float64{*v}
		}
	}
	if f.FirstResponseAt != nil {
		n["firstResponseAt"] = []float64{index.Millis(*f.FirstResponseAt)}
	}
	set("firstResponseSeconds", times.first)
	set("firstResponseOfficeSeconds", times.firstOffice)
	if f.ResolvedAt != nil {
		n["resolvedAt"] = []float64{index.Millis(*f.ResolvedAt)}
		n["resolvedByUserId"] = []float64{float64(c.ClosedBy)}
	}
	set("resolutionSeconds", times.resolution)
	set("resolutionOfficeSeconds", times.resolutionOffice)
}

// conversationTimes are a conversation's first response and resolution
// times in seconds, with their office-hours twins (nil when the figure is
// missing or the company keeps no office hours): computed once here for
// the conversation's document and its replies' documents alike.
type conversationTimes struct {
	first, firstOffice, resolution, resolutionOffice *float64
}

func timesOf(c *parley.Conversation, f parley.Figures, office *officeClock) conversationTimes {
	var out conversationTimes
	seconds := func(d time.Duration) *float64 { v := d.Seconds(); return &v }
	if f.FirstResponseAt != nil {
		out.first = seconds(f.FirstResponse)
		if office != nil {
			out.firstOffice = seconds(office.duration(*f.FirstCustomerAt, *f.FirstResponseAt))
		}
	}
	if f.ResolvedAt != nil {
		out.resolution = seconds(f.Resolution)
		if office != nil {
			out.resolutionOffice = seconds(office.duration(c.CreatedAt, *f.ResolvedAt))
		}
	}
	return out
}

// conversationFigures is the conversationFigures value of a conversation's
// replies: its creation, number and times (see the catalog).
func conversationFigures(c *parley.Conversation, times conversationTimes) string {
	created, number := index.Millis(c.CreatedAt), float64(c.Number)
	return index.ConversationValues(c.ID, &created, &number, times.first, times.firstOffice, times.resolution, times.resolutionOffice)
}

// MessageDocuments builds the message documents of a conversation's user
// replies and customer messages, and lists the ids of its threads that
// must not have one (the conversation is deleted, or the thread is
// neither), with the conversation's company.
func MessageDocuments(tx parley.Tx, companyID, convID int64) (upserts []index.Document, deletes []string, company int64, err error) {
	c, threads, tags, err := threadsOf(tx, companyID, convID)
	if c == nil || err != nil {
		return nil, nil, 0, err
	}
	upserts, deletes, err = messageDocuments(tx, c, threads, tags)
	return upserts, deletes, c.CompanyID, err
}

// messageDocuments are the message documents of a conversation's threads,
// and the ids of its threads that must not have one.
func messageDocuments(tx parley.Tx, c *parley.Conversation, threads []parley.Thread, tags []string) (upserts []index.Document, deletes []string, err error) {
	if c.MergedInto != 0 {
		// Its threads moved to the merge target, where they are indexed
		// under the target's id: forget them under this one.
		moved, err := mergedThreads(tx, c)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range moved {
			deletes = append(deletes, index.MessageID(c.ID, t.ID))
		}
	}
	figures := c.ReportFigures(threads)
	loc, office := reportClock(tx, c.CompanyID)
	rowFigures := conversationFigures(c, timesOf(c, figures, office))
	for _, t := range threads {
		from := "user"
		if t.IsCustomerMessage() {
			from = "customer"
		}
		if c.State == parley.StateDeleted || !t.IsUserReply() && from != "customer" {
			deletes = append(deletes, index.MessageID(c.ID, t.ID))
			continue
		}
		d := index.NewDocument(index.MessageID(c.ID, t.ID), c.CompanyID)
		n, k := d.Numbers, d.Keywords
		k["from"] = []string{from}
		n["id"] = []float64{float64(t.ID)}
		n["createdAt"] = []float64{index.Millis(t.CreatedAt)}
		n["mailboxId"] = []float64{float64(c.MailboxID)}
		n["folderId"] = []float64{float64(c.FolderID)}
		k["type"] = []string{string(c.Type)}
		if len(tags) > 0 {
			k["tag"] = tags
		}
		if from == "customer" {
			// Received messages only count: the document stays small.
			upserts = append(upserts, d)
			continue
		}
		n["userId"] = []float64{float64(t.CreatedBy.ID)}
		n["conversationId"] = []float64{float64(c.ID)}
		if c.CustomerID != 0 {
			n["customerId"] = []float64{float64(c.CustomerID)}
		}
		k["status"] = []string{string(c.Status)}
		k["conversationFigures"] = []string{rowFigures}
		day, hour := parley.WeekHour(t.CreatedAt, loc)
		k["createdWeekHour"] = []string{index.WeekHourKey(day, hour)}
		if h, ok := figures.Handles[t.ID]; ok {
			n["handleSeconds"] = []float64{h.Seconds()}
		}
		if r, ok := figures.Responses[t.ID]; ok {
			seconds := r.Seconds()
			n["responseSeconds"] = []float64{seconds}
			var officeSeconds *float64
			if office != nil {
				v := office.duration(figures.Waiting[t.ID], t.CreatedAt).Seconds()
				n["responseOfficeSeconds"] = []float64{v}
				officeSeconds = &v
			}
			k["responseFigures"] = []string{index.ConversationValues(c.ID, &seconds, officeSeconds)}
		}
		if r := t.Rating; r != nil {
			k["rating"] = []string{r.Rating}
			n["number"] = []float64{float64(c.Number)} // the ratings list sorts by it
			n["ratedAt"] = []float64{index.Millis(r.CreatedAt)}
			n["ratingRank"] = []float64{index.RatingRanks[r.Rating]}
			if r.CustomerID != 0 {
				n["ratingCustomerId"] = []float64{float64(r.CustomerID)}
			}
		}
		upserts = append(upserts, d)
	}
	return upserts, deletes, nil
}

// officeClock measures office time with the schedule's zone loaded once.
type officeClock struct {
	hours *parley.OfficeHours
	loc   *time.Location
}

func (o *officeClock) duration(from, to time.Time) time.Duration {
	return o.hours.DurationIn(o.loc, from, to)
}

// reportClock loads the company once: the zone reports count days and
// hours in, and its office hours when it keeps them (nil otherwise).
func reportClock(tx parley.Tx, companyID int64) (*time.Location, *officeClock) {
	company, err := tx.Company(companyID)
	if err != nil {
		return time.UTC, nil
	}
	loc := company.ReportLocation()
	if !company.OfficeHours.Enabled {
		return loc, nil
	}
	return loc, &officeClock{hours: &company.OfficeHours, loc: company.OfficeHours.Location()}
}

// threadsOf loads a company's conversation (see conversationOf), its
// threads and its tag names, for the documents built per thread; the
// conversation is nil when it is gone.
func threadsOf(tx parley.Tx, companyID, convID int64) (*parley.Conversation, []parley.Thread, []string, error) {
	c, err := conversationOf(tx, companyID, convID)
	if parley.IsNotFound(err) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	return c, threads, tagNames(tx, c), nil
}

// maxMergeHops bounds following a chain of merges.
const maxMergeHops = 100

// mergedThreads lists the threads of the conversation a merged one ended
// up in (following later merges of the target).
func mergedThreads(tx parley.Tx, c *parley.Conversation) ([]parley.Thread, error) {
	target := c
	for hops := 0; target.MergedInto != 0 && hops < maxMergeHops; hops++ {
		next, err := tx.Conversation(c.CompanyID, target.MergedInto)
		if parley.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		target = next
	}
	return tx.Threads(target.CompanyID, target.ID)
}
