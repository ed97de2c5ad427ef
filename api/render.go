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
	mailboxes *lookup[parley.Mailbox]
	users     *lookup[parley.User]
	customers *lookup[parley.Customer]
	teams     *lookup[parley.Team]
	tags      *lookup[parley.Tag]
}

func newRenderer(s *Server, c *gin.Context, tx parley.Tx) *renderer {
	company := caller(c).Company.ID
	return &renderer{s: s, c: c, tx: tx, company: company,
		mailboxes: newLookup(company, tx.Mailbox), users: newLookup(company, tx.User),
		customers: newLookup(company, tx.Customer), teams: newLookup(company, tx.Team), tags: newLookup(company, tx.Tag)}
}

// readAhead names to the transaction the records a page of conversations
// renders with (its people, tags and mailboxes), which a store that reads
// ahead (on PostgreSQL) reads in one round trip rather than one each.
func (r *renderer) readAhead(convs []parley.Conversation) {
	parley.ReadAhead(r.tx, parley.ConversationRefs(r.company, convs))
}

// lookup reads a company's records of one kind by id, each once per
// renderer. A record that is not there (deleted since it was referred to)
// is nil: the reference renders with blank names. Any other failure is
// returned.
type lookup[T any] struct {
	company int64
	load    func(companyID, id int64) (*T, error)
	seen    map[int64]*T
}

func newLookup[T any](company int64, load func(companyID, id int64) (*T, error)) *lookup[T] {
	return &lookup[T]{company: company, load: load, seen: map[int64]*T{}}
}

func (l *lookup[T]) get(id int64) (*T, error) {
	if v, ok := l.seen[id]; ok {
		return v, nil
	}
	v, err := l.load(l.company, id)
	if parley.IsNotFound(err) {
		v, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	l.seen[id] = v
	return v, nil
}

// personView is a reference to a user, team or customer. PhotoURL is sent
// for the user who closed a conversation.
type personView struct {
	Email    string           `json:"email"`
	First    string           `json:"first"`
	ID       int64            `json:"id"`
	Last     string           `json:"last"`
	PhotoURL *string          `json:"photoUrl,omitempty"`
	Type     parley.PartyType `json:"type"`
}

// person renders a user, team or customer reference.
func (r *renderer) person(p parley.Party) (*personView, error) {
	out := &personView{ID: p.ID, Type: p.Type}
	switch p.Type {
	case parley.PartyUser:
		u, err := r.users.get(p.ID)
		if u != nil {
			out.First, out.Last, out.Email = u.FirstName, u.LastName, u.Email
		}
		return out, err
	case parley.PartyTeam:
		t, err := r.teams.get(p.ID)
		if t != nil {
			out.First = t.Name
		}
		return out, err
	case parley.PartyCustomer:
		cu, err := r.customers.get(p.ID)
		if cu != nil {
			out.First, out.Last, out.Email = cu.FirstName, cu.LastName, cu.PrimaryEmail()
		}
		return out, err
	}
	return out, nil
}

// waitingSinceView is customerWaitingSince.
type waitingSinceView struct {
	Friendly        string `json:"friendly"`
	LatestReplyFrom string `json:"latestReplyFrom"`
	Time            string `json:"time"`
}

// waitingSince renders customerWaitingSince, which the real service always
// sends: while the customer waits, since when (latestReplyFrom "customer");
// otherwise the last user action, or the creation of a conversation no one
// acted on yet (latestReplyFrom "user").
func waitingSince(conv *parley.Conversation, now time.Time) waitingSinceView {
	at, from := conv.CreatedAt, "user"
	switch {
	case conv.CustomerWaitingSince != nil:
		at, from = *conv.CustomerWaitingSince, "customer"
	case conv.UserUpdatedAt != nil:
		at = *conv.UserUpdatedAt
	}
	return waitingSinceView{Time: parley.FormatTime(at), Friendly: parley.WaitingFriendly(at, now), LatestReplyFrom: from}
}

// conversationView is the Conversation resource of Help Scout's docs.
type conversationView struct {
	Embedded             *threadsEmbedded        `json:"_embedded,omitempty"`
	Links                conversationLinks       `json:"_links"`
	Assignee             *personView             `json:"assignee,omitempty"`
	BCC                  []string                `json:"bcc"`
	CC                   []string                `json:"cc"`
	ClosedAt             string                  `json:"closedAt,omitempty"`
	ClosedBy             int64                   `json:"closedBy"` // 0 until closed: Help Scout sends it on every conversation
	ClosedByUser         *personView             `json:"closedByUser,omitempty"`
	CreatedAt            string                  `json:"createdAt"`
	CreatedBy            *personView             `json:"createdBy"`
	CustomFields         []customFieldView       `json:"customFields"`
	CustomerWaitingSince waitingSinceView        `json:"customerWaitingSince"`
	FolderID             int64                   `json:"folderId"`
	ID                   int64                   `json:"id"`
	MailboxID            int64                   `json:"mailboxId"`
	NextEvent            *nextEventView          `json:"nextEvent,omitempty"`
	Number               int64                   `json:"number"`
	Preview              string                  `json:"preview"`
	PrimaryCustomer      *personView             `json:"primaryCustomer"`
	Snooze               *snoozeView             `json:"snooze,omitempty"`
	Source               sourceView              `json:"source"`
	State                parley.State            `json:"state"`
	Status               parley.Status           `json:"status"`
	Subject              string                  `json:"subject"`
	Tags                 []tagRefView            `json:"tags"`
	Threads              int                     `json:"threads"`
	Type                 parley.ConversationType `json:"type"`
	UserUpdatedAt        string                  `json:"userUpdatedAt,omitempty"`
}

type threadsEmbedded struct {
	Threads []threadView `json:"threads"`
}

type conversationLinks struct {
	Assignee          *halLink `json:"assignee,omitempty"`
	ClosedBy          *halLink `json:"closedBy,omitempty"`
	CreatedByCustomer *halLink `json:"createdByCustomer,omitempty"`
	CreatedByUser     *halLink `json:"createdByUser,omitempty"`
	Mailbox           halLink  `json:"mailbox"`
	PrimaryCustomer   halLink  `json:"primaryCustomer"`
	Self              halLink  `json:"self"`
	Threads           halLink  `json:"threads"`
	Web               halLink  `json:"web"`
}

type sourceView struct {
	Type string           `json:"type"`
	Via  parley.PartyType `json:"via"`
}

type snoozeView struct {
	SnoozedBy               int64  `json:"snoozedBy"`
	SnoozedUntil            string `json:"snoozedUntil"`
	UnsnoozeOnCustomerReply bool   `json:"unsnoozeOnCustomerReply"`
}

type nextEventView struct {
	CancelOnCustomerReply bool   `json:"cancelOnCustomerReply"`
	EventType             string `json:"eventType"`
	Time                  string `json:"time"`
	UserID                int64  `json:"userId"`
}

// linkTo is an optional HAL link.
func linkTo(href string) *halLink {
	l := link(href)
	return &l
}

// conversation renders the Conversation resource of Help Scout's docs.
func (r *renderer) conversation(conv *parley.Conversation, embed bool) (*conversationView, error) {
	s, c := r.s, r.c
	out := &conversationView{
		ID: conv.ID, Number: conv.Number, Threads: conv.ThreadCount, Type: conv.Type,
		FolderID: conv.FolderID, Status: conv.Status, State: conv.State, Subject: conv.Subject,
		Preview: conv.Preview, MailboxID: conv.MailboxID, ClosedBy: conv.ClosedBy,
		CreatedAt: parley.FormatTime(conv.CreatedAt),
		Source:    sourceView{Type: conv.Source.Type, Via: conv.Source.Via},
		CC:        nonNil(conv.CC),
		BCC:       nonNil(conv.BCC),
		Links: conversationLinks{
			Self:            link(s.url(c, "v2", "conversations", conv.ID)),
			Mailbox:         link(s.url(c, "v2", "mailboxes", conv.MailboxID)),
			PrimaryCustomer: link(s.url(c, "v2", "customers", conv.CustomerID)),
			Threads:         link(s.url(c, "v2", "conversations", conv.ID, "threads")),
			Web:             link(s.webLink(c, conv)),
		},
	}
	var err error
	if out.CreatedBy, err = r.person(conv.CreatedBy); err != nil {
		return nil, err
	}
	if out.Tags, err = r.tagRefs(conv.TagIDs); err != nil {
		return nil, err
	}
	if out.PrimaryCustomer, err = r.person(parley.Party{ID: conv.CustomerID, Type: parley.PartyCustomer}); err != nil {
		return nil, err
	}
	if out.CustomFields, err = r.customFields(conv); err != nil {
		return nil, err
	}
	if conv.CreatedBy.Type == parley.PartyCustomer {
		out.Links.CreatedByCustomer = linkTo(s.url(c, "v2", "customers", conv.CreatedBy.ID))
	} else {
		out.Links.CreatedByUser = linkTo(s.url(c, "v2", "users", conv.CreatedBy.ID))
	}
	if conv.Assignee != nil {
		if out.Assignee, err = r.person(*conv.Assignee); err != nil {
			return nil, err
		}
		if conv.Assignee.Type == parley.PartyTeam {
			out.Links.Assignee = linkTo(s.url(c, "v2", "teams", conv.Assignee.ID))
		} else {
			out.Links.Assignee = linkTo(s.url(c, "v2", "users", conv.Assignee.ID))
		}
	}
	if conv.ClosedAt != nil {
		out.ClosedAt = parley.FormatTime(*conv.ClosedAt)
		if out.ClosedByUser, err = r.person(parley.Party{ID: conv.ClosedBy, Type: parley.PartyUser}); err != nil {
			return nil, err
		}
		u, err := r.users.get(conv.ClosedBy)
		if err != nil {
			return nil, err
		}
		if u != nil {
			out.ClosedByUser.PhotoURL = &u.PhotoURL
		}
		out.Links.ClosedBy = linkTo(s.url(c, "v2", "users", conv.ClosedBy))
	}
	if conv.UserUpdatedAt != nil {
		out.UserUpdatedAt = parley.FormatTime(*conv.UserUpdatedAt)
	}
	out.CustomerWaitingSince = waitingSince(conv, s.now())
	if conv.Snooze != nil {
		out.Snooze = &snoozeView{SnoozedBy: conv.Snooze.SnoozedBy, SnoozedUntil: parley.FormatTime(conv.Snooze.SnoozedUntil),
			UnsnoozeOnCustomerReply: conv.Snooze.UnsnoozeOnCustomerReply}
	}
	if e := conv.NextEvent; e != nil {
		out.NextEvent = &nextEventView{Time: parley.FormatTime(e.Time), EventType: e.EventType, UserID: e.UserID,
			CancelOnCustomerReply: e.CancelOnCustomerReply}
	}
	if embed {
		threads, err := r.tx.Threads(conv.CompanyID, conv.ID)
		if err != nil {
			return nil, err
		}
		views, err := r.threads(conv, threads)
		if err != nil {
			return nil, err
		}
		out.Embedded = &threadsEmbedded{Threads: views}
	}
	return out, nil
}

// tagRefView is a tag on a conversation, with the deprecated `color` and
// its replacement `styles`.
type tagRefView struct {
	Color  string        `json:"color"`
	ID     int64         `json:"id"`
	Styles tagStylesView `json:"styles"`
	Tag    string        `json:"tag"`
}

// tagRefs renders conversation tags; a tag deleted since is left out.
func (r *renderer) tagRefs(ids []int64) ([]tagRefView, error) {
	out := []tagRefView{}
	for _, id := range ids {
		t, err := r.tags.get(id)
		if err != nil {
			return nil, err
		}
		if t == nil {
			continue
		}
		out = append(out, tagRefView{ID: t.ID, Tag: t.Name, Color: t.Color, Styles: tagStyles(t.Color)})
	}
	return out, nil
}

// tagStylesView is a tag's light and dark styles.
type tagStylesView struct {
	Dark    tagStyle `json:"dark"`
	Default tagStyle `json:"default"`
}

type tagStyle struct {
	Background fill `json:"background"`
	Text       fill `json:"text"`
}

type fill struct {
	Fill string `json:"fill"`
}

// tagStyles derives the light and dark styles from a tag colour: the colour
// fills the background, text is white on it.
func tagStyles(color string) tagStylesView {
	style := tagStyle{Background: fill{color}, Text: fill{"#ffffff"}}
	return tagStylesView{Default: style, Dark: style}
}

// customFieldView is a conversation's custom field value with the field's
// name and, for dropdowns, the option label as `text`.
type customFieldView struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Text  string `json:"text"`
	Value string `json:"value"`
}

// customFields renders values with their field name and, for dropdowns,
// the option label as `text`.
func (r *renderer) customFields(conv *parley.Conversation) ([]customFieldView, error) {
	out := []customFieldView{}
	m, err := r.mailboxes.get(conv.MailboxID)
	if err != nil {
		return nil, err
	}
	for _, v := range conv.CustomFields {
		item := customFieldView{ID: v.ID, Value: v.Value, Text: v.Value}
		if m != nil {
			if def, ok := m.Field(v.ID); ok {
				item.Name = def.Name
				if def.Type == parley.FieldDropdown {
					for _, o := range def.Options {
						if strconv.FormatInt(o.ID, 10) == v.Value {
							item.Text = o.Label
						}
					}
				}
			}
		}
		out = append(out, item)
	}
	return out, nil
}

// threads renders threads newest first (as Help Scout's clients send it).
func (r *renderer) threads(conv *parley.Conversation, threads []parley.Thread) ([]threadView, error) {
	sorted := append([]parley.Thread(nil), threads...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if !sorted[i].CreatedAt.Equal(sorted[j].CreatedAt) {
			return sorted[i].CreatedAt.After(sorted[j].CreatedAt)
		}
		return sorted[i].ID > sorted[j].ID
	})
	out := make([]threadView, 0, len(sorted))
	for i := range sorted {
		t, err := r.thread(conv, &sorted[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, nil
}

// threadView is the Thread resource of Help Scout's docs. The real thread object
// always carries assignedTo, openedAt, savedReplyId and
// linkedConversationId; absent values are null.
type threadView struct {
	Embedded             attachmentsEmbedded `json:"_embedded"`
	Links                threadLinks         `json:"_links"`
	Action               *actionView         `json:"action,omitempty"`
	AssignedTo           *personView         `json:"assignedTo"`
	BCC                  []string            `json:"bcc"`
	Body                 string              `json:"body"`
	CC                   []string            `json:"cc"`
	CreatedAt            string              `json:"createdAt"`
	CreatedBy            *personView         `json:"createdBy"`
	Customer             *personView         `json:"customer,omitempty"`
	ID                   int64               `json:"id"`
	LinkedConversationID *int64              `json:"linkedConversationId"`
	OpenedAt             *string             `json:"openedAt"`
	OriginalBody         string              `json:"originalBody,omitempty"`
	Rating               *ratingView         `json:"rating,omitempty"`
	SavedReplyID         *int64              `json:"savedReplyId"`
	Scheduled            *scheduledView      `json:"scheduled,omitempty"`
	Source               sourceView          `json:"source"`
	State                parley.ThreadState  `json:"state"`
	Status               parley.Status       `json:"status"`
	To                   []string            `json:"to"`
	Type                 parley.ThreadType   `json:"type"`
}

type attachmentsEmbedded struct {
	Attachments []attachmentView `json:"attachments"`
}

type threadLinks struct {
	CreatedByCustomer *halLink `json:"createdByCustomer,omitempty"`
	CreatedByUser     *halLink `json:"createdByUser,omitempty"`
	Customer          *halLink `json:"customer,omitempty"`
}

// actionView is a line item's action; Parley links no entities to it.
type actionView struct {
	AssociatedEntities struct{} `json:"associatedEntities"`
	Text               string   `json:"text"`
	Type               string   `json:"type"`
}

type scheduledView struct {
	ScheduledBy               int64  `json:"scheduledBy"`
	ScheduledFor              string `json:"scheduledFor"`
	SendAsCreator             bool   `json:"sendAsCreator"`
	UnscheduleOnCustomerReply bool   `json:"unscheduleOnCustomerReply"`
}

type ratingView struct {
	Comments   string `json:"comments"`
	CreatedAt  string `json:"createdAt"`
	CustomerID int64  `json:"customerId"`
	ID         int64  `json:"id"`
	Rating     string `json:"rating"`
}

func (r *renderer) thread(conv *parley.Conversation, t *parley.Thread) (*threadView, error) {
	s, c := r.s, r.c
	via := parley.PartyUser
	if t.CreatedBy.Type == parley.PartyCustomer {
		via = parley.PartyCustomer
	}
	out := &threadView{
		ID: t.ID, Type: t.Type, State: t.State, Body: t.Body,
		Source:    sourceView{Type: conv.Source.Type, Via: via},
		To:        nonNil(t.To),
		CC:        nonNil(t.CC),
		BCC:       nonNil(t.BCC),
		CreatedAt: parley.FormatTime(t.CreatedAt),
		Status:    parley.StatusNoChange,
	}
	var err error
	if out.CreatedBy, err = r.person(t.CreatedBy); err != nil {
		return nil, err
	}
	if out.Embedded.Attachments, err = r.attachments(conv, t); err != nil {
		return nil, err
	}
	if t.Action != nil {
		out.Action = &actionView{Type: t.Action.Type, Text: t.Action.Text}
	}
	if t.Scheduled != nil {
		out.Scheduled = &scheduledView{ScheduledFor: parley.FormatTime(t.Scheduled.For), ScheduledBy: t.Scheduled.By,
			UnscheduleOnCustomerReply: t.Scheduled.UnscheduleOnCustomerReply, SendAsCreator: t.Scheduled.SendAsCreator}
	}
	out.OriginalBody = t.OriginalBody
	if r := t.Rating; r != nil {
		out.Rating = &ratingView{ID: r.ID, Rating: r.Rating, Comments: r.Comments, CustomerID: r.CustomerID,
			CreatedAt: parley.FormatTime(r.CreatedAt)}
	}
	if t.Status != "" {
		out.Status = t.Status
	}
	if t.CustomerID != 0 {
		if out.Customer, err = r.person(parley.Party{ID: t.CustomerID, Type: parley.PartyCustomer}); err != nil {
			return nil, err
		}
		out.Links.Customer = linkTo(s.url(c, "v2", "customers", t.CustomerID))
	}
	if t.CreatedBy.Type == parley.PartyCustomer {
		out.Links.CreatedByCustomer = linkTo(s.url(c, "v2", "customers", t.CreatedBy.ID))
	} else {
		out.Links.CreatedByUser = linkTo(s.url(c, "v2", "users", t.CreatedBy.ID))
	}
	if t.AssignedTo != nil {
		if out.AssignedTo, err = r.person(*t.AssignedTo); err != nil {
			return nil, err
		}
	}
	if t.SavedReplyID != 0 {
		out.SavedReplyID = &t.SavedReplyID
	}
	if t.OpenedAt != nil {
		at := parley.FormatTime(*t.OpenedAt)
		out.OpenedAt = &at
	}
	return out, nil
}

// attachmentView is a thread's attachment; a malicious one has state
// `virus` and no links.
type attachmentView struct {
	Links    *attachmentLinks       `json:"_links,omitempty"`
	FileName string                 `json:"filename"`
	Height   int                    `json:"height"`
	ID       int64                  `json:"id"`
	MimeType string                 `json:"mimeType"`
	Size     int64                  `json:"size"`
	State    parley.AttachmentState `json:"state"`
	Width    int                    `json:"width"`
}

type attachmentLinks struct {
	Data     halLink `json:"data"`
	Download halLink `json:"download"`
}

// attachments renders a thread's attachments; one deleted since is left
// out.
func (r *renderer) attachments(conv *parley.Conversation, t *parley.Thread) ([]attachmentView, error) {
	out := []attachmentView{}
	for _, id := range t.Attachments {
		a, err := r.tx.Attachment(r.company, id)
		if parley.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		item := attachmentView{ID: a.ID, FileName: a.FileName, MimeType: a.MimeType, Size: a.Size,
			Width: a.Width, Height: a.Height, State: a.State}
		if a.State == parley.AttachmentOK {
			base := r.s.url(r.c, "v2", "conversations", conv.ID, "attachments", a.ID)
			item.Links = &attachmentLinks{Data: link(base + "/data"), Download: link(base + "/download")}
		}
		out = append(out, item)
	}
	return out, nil
}

// nonNil renders a nil list as [] rather than null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
