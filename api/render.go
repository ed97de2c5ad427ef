package api

import (
	"sort"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// renderer turns records into HAL resources within one read transaction,
// caching the related records a page of conversations shares.
type renderer struct {
	s         *Server
	c         *gin.Context
	tx        parley.Tx
	company   int64
	mailboxes map[int64]*parley.Mailbox
	users     map[int64]*parley.User
	customers map[int64]*parley.Customer
}

func newRenderer(s *Server, c *gin.Context, tx parley.Tx) *renderer {
	return &renderer{s: s, c: c, tx: tx, company: caller(c).Company.ID,
		mailboxes: map[int64]*parley.Mailbox{}, users: map[int64]*parley.User{}, customers: map[int64]*parley.Customer{}}
}

func (r *renderer) mailbox(id int64) *parley.Mailbox {
	if m, ok := r.mailboxes[id]; ok {
		return m
	}
	m, _ := r.tx.Mailbox(r.company, id)
	r.mailboxes[id] = m
	return m
}

func (r *renderer) user(id int64) *parley.User {
	if u, ok := r.users[id]; ok {
		return u
	}
	u, _ := r.tx.User(r.company, id)
	r.users[id] = u
	return u
}

func (r *renderer) customer(id int64) *parley.Customer {
	if cu, ok := r.customers[id]; ok {
		return cu
	}
	cu, _ := r.tx.Customer(r.company, id)
	r.customers[id] = cu
	return cu
}

// person renders a user, team or customer reference: id, type, first, last, email.
func (r *renderer) person(p parley.Party) gin.H {
	out := gin.H{"id": p.ID, "type": p.Type, "first": "", "last": "", "email": ""}
	switch p.Type {
	case parley.PartyUser:
		if u := r.user(p.ID); u != nil {
			out["first"], out["last"], out["email"] = u.FirstName, u.LastName, u.Email
		}
	case parley.PartyTeam:
		if t, err := r.tx.Team(r.company, p.ID); err == nil {
			out["first"] = t.Name
		}
	case parley.PartyCustomer:
		if cu := r.customer(p.ID); cu != nil {
			out["first"], out["last"], out["email"] = cu.FirstName, cu.LastName, cu.PrimaryEmail()
		}
	}
	return out
}

// waitingSince renders customerWaitingSince, which the real service always
// sends: while the customer waits, since when (latestReplyFrom "customer");
// otherwise the last user action, or the creation of a conversation no one
// acted on yet (latestReplyFrom "user").
func waitingSince(conv *parley.Conversation, now time.Time) gin.H {
	at, from := conv.CreatedAt, "user"
	switch {
	case conv.CustomerWaitingSince != nil:
		at, from = *conv.CustomerWaitingSince, "customer"
	case conv.UserUpdatedAt != nil:
		at = *conv.UserUpdatedAt
	}
	return gin.H{"time": parley.FormatTime(at), "friendly": parley.WaitingFriendly(at, now), "latestReplyFrom": from}
}

// conversation renders the Conversation resource of SPEC.
func (r *renderer) conversation(conv *parley.Conversation, embed bool) (gin.H, error) {
	s, c := r.s, r.c
	out := gin.H{
		"id": conv.ID, "number": conv.Number, "threads": conv.ThreadCount, "type": conv.Type,
		"folderId": conv.FolderID, "status": conv.Status, "state": conv.State, "subject": conv.Subject,
		"preview": conv.Preview, "mailboxId": conv.MailboxID,
		"createdBy":       r.person(conv.CreatedBy),
		"createdAt":       parley.FormatTime(conv.CreatedAt),
		"source":          gin.H{"type": conv.Source.Type, "via": conv.Source.Via},
		"tags":            r.tags(conv.TagIDs),
		"cc":              nonNil(conv.CC),
		"bcc":             nonNil(conv.BCC),
		"primaryCustomer": r.person(parley.Party{ID: conv.CustomerID, Type: parley.PartyCustomer}),
		"customFields":    r.customFields(conv),
	}
	links := gin.H{
		"self":            link(s.url(c, "v2", "conversations", conv.ID)),
		"mailbox":         link(s.url(c, "v2", "mailboxes", conv.MailboxID)),
		"primaryCustomer": link(s.url(c, "v2", "customers", conv.CustomerID)),
		"threads":         link(s.url(c, "v2", "conversations", conv.ID, "threads")),
		"web":             link(s.webLink(c, conv)),
	}
	if conv.CreatedBy.Type == parley.PartyCustomer {
		links["createdByCustomer"] = link(s.url(c, "v2", "customers", conv.CreatedBy.ID))
	} else {
		links["createdByUser"] = link(s.url(c, "v2", "users", conv.CreatedBy.ID))
	}
	if conv.Assignee != nil {
		out["assignee"] = r.person(*conv.Assignee)
		if conv.Assignee.Type == parley.PartyTeam {
			links["assignee"] = link(s.url(c, "v2", "teams", conv.Assignee.ID))
		} else {
			links["assignee"] = link(s.url(c, "v2", "users", conv.Assignee.ID))
		}
	}
	if conv.ClosedAt != nil {
		out["closedAt"] = parley.FormatTime(*conv.ClosedAt)
		out["closedBy"] = conv.ClosedBy
		closer := r.person(parley.Party{ID: conv.ClosedBy, Type: parley.PartyUser})
		if u := r.user(conv.ClosedBy); u != nil {
			closer["photoUrl"] = u.PhotoURL
		}
		out["closedByUser"] = closer
		links["closedBy"] = link(s.url(c, "v2", "users", conv.ClosedBy))
	}
	if conv.UserUpdatedAt != nil {
		out["userUpdatedAt"] = parley.FormatTime(*conv.UserUpdatedAt)
	}
	out["customerWaitingSince"] = waitingSince(conv, s.now())
	if conv.Snooze != nil {
		out["snooze"] = gin.H{"snoozedBy": conv.Snooze.SnoozedBy, "snoozedUntil": parley.FormatTime(conv.Snooze.SnoozedUntil),
			"unsnoozeOnCustomerReply": conv.Snooze.UnsnoozeOnCustomerReply}
	}
	if e := conv.NextEvent; e != nil {
		out["nextEvent"] = gin.H{"time": parley.FormatTime(e.Time), "eventType": e.EventType, "userId": e.UserID,
			"cancelOnCustomerReply": e.CancelOnCustomerReply}
	}
	if embed {
		threads, err := r.tx.Threads(conv.ID)
		if err != nil {
			return nil, err
		}
		out["_embedded"] = gin.H{"threads": r.threads(conv, threads)}
	}
	out["_links"] = links
	return out, nil
}

// tags renders conversation tags with the deprecated `color` and its
// replacement `styles`.
func (r *renderer) tags(ids []int64) []gin.H {
	out := []gin.H{}
	for _, id := range ids {
		t, err := r.tx.Tag(r.company, id)
		if err != nil {
			continue
		}
		out = append(out, gin.H{"id": t.ID, "tag": t.Name, "color": t.Color, "styles": tagStyles(t.Color)})
	}
	return out
}

// tagStyles derives the light and dark styles from a tag colour: the colour
// fills the background, text is white on it.
func tagStyles(color string) gin.H {
	style := gin.H{"background": gin.H{"fill": color}, "text": gin.H{"fill": "#ffffff"}}
	return gin.H{"default": style, "dark": style}
}

// customFields renders values with their field name and, for dropdowns,
// the option label as `text`.
func (r *renderer) customFields(conv *parley.Conversation) []gin.H {
	out := []gin.H{}
	m := r.mailbox(conv.MailboxID)
	for _, v := range conv.CustomFields {
		item := gin.H{"id": v.ID, "value": v.Value, "text": v.Value, "name": ""}
		if m != nil {
			if def, ok := m.Field(v.ID); ok {
				item["name"] = def.Name
				if def.Type == parley.FieldDropdown {
					for _, o := range def.Options {
						if strconv.FormatInt(o.ID, 10) == v.Value {
							item["text"] = o.Label
						}
					}
				}
			}
		}
		out = append(out, item)
	}
	return out
}

// threads renders threads newest first (COMPAT.md).
func (r *renderer) threads(conv *parley.Conversation, threads []parley.Thread) []gin.H {
	sorted := append([]parley.Thread(nil), threads...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if !sorted[i].CreatedAt.Equal(sorted[j].CreatedAt) {
			return sorted[i].CreatedAt.After(sorted[j].CreatedAt)
		}
		return sorted[i].ID > sorted[j].ID
	})
	out := make([]gin.H, 0, len(sorted))
	for i := range sorted {
		out = append(out, r.thread(conv, &sorted[i]))
	}
	return out
}

func (r *renderer) thread(conv *parley.Conversation, t *parley.Thread) gin.H {
	s, c := r.s, r.c
	via := parley.PartyUser
	if t.CreatedBy.Type == parley.PartyCustomer {
		via = parley.PartyCustomer
	}
	out := gin.H{
		"id": t.ID, "type": t.Type, "state": t.State, "body": t.Body,
		"source":    gin.H{"type": conv.Source.Type, "via": via},
		"createdBy": r.person(t.CreatedBy),
		"to":        nonNil(t.To),
		"cc":        nonNil(t.CC),
		"bcc":       nonNil(t.BCC),
		"createdAt": parley.FormatTime(t.CreatedAt),
		"_embedded": gin.H{"attachments": r.attachments(conv, t)},
	}
	// The real thread object always carries these; absent values are null.
	out["status"], out["assignedTo"], out["openedAt"], out["savedReplyId"], out["linkedConversationId"] = parley.StatusNoChange, nil, nil, nil, nil
	if t.Action != nil {
		out["action"] = gin.H{"type": t.Action.Type, "text": t.Action.Text, "associatedEntities": gin.H{}}
	}
	if t.Scheduled != nil {
		out["scheduled"] = gin.H{"scheduledFor": parley.FormatTime(t.Scheduled.For), "scheduledBy": t.Scheduled.By,
			"unscheduleOnCustomerReply": t.Scheduled.UnscheduleOnCustomerReply, "sendAsCreator": t.Scheduled.SendAsCreator}
	}
	if t.OriginalBody != "" {
		out["originalBody"] = t.OriginalBody
	}
	if r := t.Rating; r != nil {
		out["rating"] = gin.H{"id": r.ID, "rating": r.Rating, "comments": r.Comments, "customerId": r.CustomerID,
			"createdAt": parley.FormatTime(r.CreatedAt)}
	}
	if t.Status != "" {
		out["status"] = t.Status
	}
	links := gin.H{}
	if t.CustomerID != 0 {
		out["customer"] = r.person(parley.Party{ID: t.CustomerID, Type: parley.PartyCustomer})
		links["customer"] = link(s.url(c, "v2", "customers", t.CustomerID))
	}
	if t.CreatedBy.Type == parley.PartyCustomer {
		links["createdByCustomer"] = link(s.url(c, "v2", "customers", t.CreatedBy.ID))
	} else {
		links["createdByUser"] = link(s.url(c, "v2", "users", t.CreatedBy.ID))
	}
	if t.AssignedTo != nil {
		out["assignedTo"] = r.person(*t.AssignedTo)
	}
	if t.SavedReplyID != 0 {
		out["savedReplyId"] = t.SavedReplyID
	}
	if t.OpenedAt != nil {
		out["openedAt"] = parley.FormatTime(*t.OpenedAt)
	}
	out["_links"] = links
	return out
}

// attachments renders a thread's attachments; a malicious one is listed
// with state `virus` and no links.
func (r *renderer) attachments(conv *parley.Conversation, t *parley.Thread) []gin.H {
	out := []gin.H{}
	for _, id := range t.Attachments {
		a, err := r.tx.Attachment(r.company, id)
		if err != nil {
			continue
		}
		item := gin.H{"id": a.ID, "filename": a.FileName, "mimeType": a.MimeType, "size": a.Size,
			"width": a.Width, "height": a.Height, "state": a.State}
		if a.State == parley.AttachmentOK {
			base := r.s.url(r.c, "v2", "conversations", conv.ID, "attachments", a.ID)
			item["_links"] = gin.H{"data": link(base + "/data"), "download": link(base + "/download")}
		}
		out = append(out, item)
	}
	return out
}

// nonNil renders a nil list as [] rather than null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
