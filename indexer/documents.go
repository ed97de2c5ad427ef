package indexer

import (
	"strconv"
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
)

// ListFields is the part of a conversation's document that its own record
// and the names of what it refers to make: id, number, mailbox (and its
// name), folder, assignee (and its name), the dates, status, state, type
// and tag names. ConversationDocument starts from it, and the list engine
// fills its list rows from it at start (lists.Projection.List), reading
// no thread or customer. It returns ok=false when the conversation must
// not be searchable (deleted).
func ListFields(tx parley.Tx, c *parley.Conversation) (doc index.Document, ok bool) {
	if c.State == parley.StateDeleted {
		return doc, false
	}
	d := index.NewDocument(index.FormatID(c.ID), c.CompanyID)
	k, n := d.Keywords, d.Numbers
	n["id"] = []float64{float64(c.ID)}
	n["number"] = []float64{float64(c.Number)}
	n["mailboxId"] = []float64{float64(c.MailboxID)}
	if m, err := tx.Mailbox(c.CompanyID, c.MailboxID); err == nil {
		k["mailboxName"] = []string{strings.ToLower(m.Name)}
	}
	n["folderId"] = []float64{float64(c.FolderID)}
	k["assigned"] = []string{"unassigned"}
	if c.Assignee != nil {
		n["assigneeId"] = []float64{float64(c.Assignee.ID)}
		if name := assigneeName(tx, c); name != "" {
			k["assigned"] = []string{strings.ToLower(name)}
		}
	}
	n["createdAt"] = []float64{index.Millis(c.CreatedAt)}
	n["modifiedAt"] = []float64{index.Millis(c.ModifiedAt)}
	if c.CustomerWaitingSince != nil {
		n["waitingSince"] = []float64{index.Millis(*c.CustomerWaitingSince)}
	}
	k["status"] = []string{string(c.Status)}
	k["state"] = []string{string(c.State)}
	k["type"] = []string{string(c.Type)}
	if tags := tagNames(tx, c); len(tags) > 0 {
		k["tag"] = tags
	}
	return d, true
}

// tagNames lists the names of a conversation's tags that still exist.
func tagNames(tx parley.Tx, c *parley.Conversation) []string {
	var out []string
	for _, id := range c.TagIDs {
		if t, err := tx.Tag(c.CompanyID, id); err == nil {
			out = append(out, t.Name)
		}
	}
	return out
}

// conversationOf loads a company's conversation. Company 0 is an unknown
// company (an outbox entry older than entries naming their company): the
// conversation is then read whatever its company, which a store that
// spreads companies over nodes answers by asking them all.
func conversationOf(tx parley.Tx, companyID, id int64) (*parley.Conversation, error) {
	if companyID == 0 {
		return tx.ConversationByID(id)
	}
	return tx.Conversation(companyID, id)
}

// ConversationDocument builds the document of a company's conversation
// from storage. It returns ok=false when the conversation must not be
// searchable (deleted or gone).
func ConversationDocument(tx parley.Tx, companyID, id int64) (doc index.Document, ok bool, err error) {
	c, err := conversationOf(tx, companyID, id)
	if parley.IsNotFound(err) {
		return doc, false, nil
	}
	if err != nil {
		return doc, false, err
	}
	if c.State == parley.StateDeleted {
		return doc, false, nil
	}
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return doc, false, err
	}
	d, ok := conversationDocument(tx, c, threads)
	return d, ok, nil
}

// conversationDocument is the document of a conversation and its threads.
func conversationDocument(tx parley.Tx, c *parley.Conversation, threads []parley.Thread) (doc index.Document, ok bool) {
	d, ok := ListFields(tx, c)
	if !ok {
		return doc, false
	}
	k, txt, n := d.Keywords, d.Texts, d.Numbers
	k["hasAttachments"] = []string{boolString(c.HasAttachments)}
	txt["subject"] = []string{c.Subject}
	k["subjectSort"] = []string{strings.ToLower(c.Subject)}
	if c.CreatedBy.Type == parley.PartyUser {
		n["createdByUserId"] = []float64{float64(c.CreatedBy.ID)}
	}
	for _, uid := range c.ReplyUserIDs {
		n["replyUserId"] = append(n["replyUserId"], float64(uid))
	}
	emails := map[string]bool{}
	addEmail := func(e string) {
		if e = parley.NormalizeEmail(e); e != "" && !emails[e] {
			emails[e] = true
			k["email"] = append(k["email"], e)
		}
	}
	customers := map[int64]bool{}
	addCustomer := func(id int64) {
		if id == 0 || customers[id] {
			return
		}
		customers[id] = true
		n["customerId"] = append(n["customerId"], float64(id))
		cu, err := tx.Customer(c.CompanyID, id)
		if err != nil {
			return
		}
		for _, e := range cu.Emails {
			addEmail(e.Value)
		}
	}
	if cu, err := tx.Customer(c.CompanyID, c.CustomerID); err == nil {
		if name := cu.Name(); name != "" {
			txt["customerName"] = []string{name}
			k["customerNameSort"] = []string{strings.ToLower(name)}
		}
		if e := cu.PrimaryEmail(); e != "" {
			k["customerEmail"] = []string{parley.NormalizeEmail(e)}
		}
	}
	addCustomer(c.CustomerID)
	for _, e := range append(append([]string{}, c.CC...), c.BCC...) {
		addEmail(e)
	}
	for _, t := range threads {
		if t.State != parley.ThreadPublished && t.State != parley.ThreadDraft {
			continue
		}
		addCustomer(t.CustomerID)
		for _, list := range [][]string{t.To, t.CC, t.BCC} {
			for _, e := range list {
				addEmail(e)
			}
		}
		if t.Type != parley.ThreadLineItem && strings.TrimSpace(t.Body) != "" {
			txt["body"] = append(txt["body"], t.Body)
		}
	}
	addCustomFields(&d, tx, c)
	addFigures(tx, c, threads, &d)
	return d, true
}

// Documents yields every document a stored conversation makes, as the
// syncer builds them from its outbox entry: its own (when it is
// searchable), its messages' and its calls'. The list engine loads
// itself through it (lists.Projection), reading the threads once.
func Documents(tx parley.Tx, c *parley.Conversation, yield func(index.Kind, index.Document)) error {
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return err
	}
	if d, ok := conversationDocument(tx, c, threads); ok {
		yield(index.Conversations, d)
	}
	tags := tagNames(tx, c)
	messages, _, err := messageDocuments(tx, c, threads, tags)
	if err != nil {
		return err
	}
	for _, d := range messages {
		yield(index.Messages, d)
	}
	calls, _ := callDocuments(c, threads, tags)
	for _, d := range calls {
		yield(index.Calls, d)
	}
	return nil
}

// addCustomFields indexes custom field values by the type of their
// definition: dropdowns and single-line text as keywords (and text), numbers
// and dates as numbers, multi-line text as text.
func addCustomFields(d *index.Document, tx parley.Tx, c *parley.Conversation) {
	if len(c.CustomFields) == 0 {
		return
	}
	m, err := tx.Mailbox(c.CompanyID, c.MailboxID)
	if err != nil {
		return
	}
	for _, v := range c.CustomFields {
		def, ok := m.Field(v.ID)
		if !ok {
			continue
		}
		id := index.FormatID(v.ID)
		switch def.Type {
		case parley.FieldNumber:
			if f, ok := parseFloat(v.Value); ok {
				d.Numbers[index.CustomNumberPrefix+id] = []float64{f}
			}
		case parley.FieldDate:
			if t, err := time.Parse("2006-01-02", v.Value); err == nil {
				d.Numbers[index.CustomNumberPrefix+id] = []float64{index.Millis(t)}
			}
		case parley.FieldMultiLine:
			d.Texts[index.CustomTextPrefix+id] = []string{v.Value}
		default:
			d.Keywords[index.CustomKeywordPrefix+id] = []string{strings.ToLower(v.Value)}
			d.Texts[index.CustomTextPrefix+id] = []string{v.Value}
		}
	}
}

func assigneeName(tx parley.Tx, c *parley.Conversation) string {
	if c.Assignee.Type == parley.PartyTeam {
		if t, err := tx.Team(c.CompanyID, c.Assignee.ID); err == nil {
			return t.Name
		}
		return ""
	}
	if u, err := tx.User(c.CompanyID, c.Assignee.ID); err == nil {
		return u.Name()
	}
	return ""
}

// CustomerDocument builds the document of a company's customer (company 0:
// whatever its company, see conversationOf).
func CustomerDocument(tx parley.Tx, companyID, id int64) (doc index.Document, ok bool, err error) {
	var cu *parley.Customer
	if companyID == 0 {
		cu, err = tx.CustomerByID(id)
	} else {
		cu, err = tx.Customer(companyID, id)
	}
	if parley.IsNotFound(err) {
		return doc, false, nil
	}
	if err != nil {
		return doc, false, err
	}
	d := index.NewDocument(index.FormatID(cu.ID), cu.CompanyID)
	d.Numbers["id"] = []float64{float64(cu.ID)}
	d.Numbers["createdAt"] = []float64{index.Millis(cu.CreatedAt)}
	d.Numbers["modifiedAt"] = []float64{index.Millis(cu.UpdatedAt)}
	if cu.OrganizationID != 0 {
		d.Numbers["organizationId"] = []float64{float64(cu.OrganizationID)}
	}
	if cu.FirstName != "" {
		d.Texts["firstName"] = []string{cu.FirstName}
	}
	if cu.LastName != "" {
		d.Texts["lastName"] = []string{cu.LastName}
	}
	// Empty names stay absent, so they sort last in both engines.
	if cu.FirstName != "" {
		d.Keywords["firstNameSort"] = []string{strings.ToLower(cu.FirstName)}
	}
	if cu.LastName != "" {
		d.Keywords["lastNameSort"] = []string{strings.ToLower(cu.LastName)}
	}
	for _, e := range cu.Emails {
		v := parley.NormalizeEmail(e.Value)
		d.Keywords["email"] = append(d.Keywords["email"], v)
		if at := strings.LastIndexByte(v, '@'); at >= 0 {
			d.Keywords["emailDomain"] = append(d.Keywords["emailDomain"], v[at+1:])
		}
	}
	for _, mid := range tx.CustomerMailboxes(cu.CompanyID, cu.ID) {
		d.Numbers["mailboxId"] = append(d.Numbers["mailboxId"], float64(mid))
	}
	return d, true, nil
}

func parseFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// CallDocuments builds the call documents of a conversation's phone
// threads, and lists the ids of its threads that must not have one (the
// conversation is deleted, or the thread is not a published phone call),
// with the conversation's company.
func CallDocuments(tx parley.Tx, companyID, convID int64) (upserts []index.Document, deletes []string, company int64, err error) {
	c, threads, tags, err := threadsOf(tx, companyID, convID)
	if c == nil || err != nil {
		return nil, nil, 0, err
	}
	upserts, deletes = callDocuments(c, threads, tags)
	return upserts, deletes, c.CompanyID, nil
}

// callDocuments are the call documents of a conversation's threads, and
// the ids of its threads that must not have one.
func callDocuments(c *parley.Conversation, threads []parley.Thread, tags []string) (upserts []index.Document, deletes []string) {
	for _, t := range threads {
		if c.State == parley.StateDeleted || t.Type != parley.ThreadPhone || t.State != parley.ThreadPublished {
			deletes = append(deletes, index.FormatID(t.ID))
			continue
		}
		d := index.NewDocument(index.FormatID(t.ID), c.CompanyID)
		d.Numbers["id"] = []float64{float64(t.ID)}
		d.Numbers["createdAt"] = []float64{index.Millis(t.CreatedAt)}
		d.Numbers["conversationId"] = []float64{float64(c.ID)}
		d.Numbers["mailboxId"] = []float64{float64(c.MailboxID)}
		d.Numbers["folderId"] = []float64{float64(c.FolderID)}
		if t.CreatedBy.Type == parley.PartyUser {
			d.Numbers["userId"] = []float64{float64(t.CreatedBy.ID)}
		}
		if t.CustomerID != 0 {
			d.Numbers["customerId"] = []float64{float64(t.CustomerID)}
		}
		if len(tags) > 0 {
			d.Keywords["tag"] = tags
		}
		upserts = append(upserts, d)
	}
	return upserts, deletes
}
