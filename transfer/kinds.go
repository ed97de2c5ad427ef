package transfer

import (
	"slices"
	"time"

	parley "github.com/parley/parley"
)

// kinds are every kind of record the store seam holds, in the order they
// are copied: what a record names is stored before it (organizations
// before their customers, conversations before their threads).
var kinds = []mover{
	(&kind[int64, parley.Company]{name: "companies", puts: []string{"PutCompany"},
		keys: func(_ parley.Tx, company int64) ([]int64, error) { return []int64{company}, nil },
		load: func(tx parley.Tx, _ int64, id int64) (parley.Company, error) { return deref(tx.Company(id)) },
		put:  func(tx parley.Tx, c *parley.Company) error { return tx.PutCompany(c) },
	}).marked(func(c *parley.Company, m marks) { m.see(parley.FamilyCompanies, c.ID) }),
	listed("users", []string{"PutUser"}, parley.Tx.Users, parley.Tx.PutUser).
		marked(func(u *parley.User, m marks) { m.see(parley.FamilyUsers, u.ID) }),
	listed("teams", []string{"PutTeam"}, parley.Tx.Teams, parley.Tx.PutTeam).
		marked(func(x *parley.Team, m marks) { m.see(parley.FamilyUsers, x.ID) }),
	listed("mailboxes", []string{"PutMailbox"}, parley.Tx.Mailboxes, parley.Tx.PutMailbox).marked(markMailbox),
	listed("saved replies", []string{"PutSavedReply"}, savedReplies, parley.Tx.PutSavedReply).
		marked(func(r *parley.SavedReply, m marks) { m.see(parley.FamilySavedReplies, r.ID) }),
	listed("customer properties", []string{"PutPropertyDef"}, parley.Tx.PropertyDefs, parley.Tx.PutPropertyDef).
		marked(markProperty(parley.FamilyCustomerProperties)),
	listed("organization properties", []string{"PutOrganizationPropertyDef"}, parley.Tx.OrganizationPropertyDefs,
		func(tx parley.Tx, d *parley.PropertyDef) error { return tx.PutOrganizationPropertyDef(d, true) }).
		marked(markProperty(parley.FamilyOrganizationProperties)),
	listed("organizations", []string{"PutOrganization"}, parley.Tx.Organizations, parley.Tx.PutOrganization).
		marked(func(o *parley.Organization, m marks) { m.see(parley.FamilyOrganizations, o.ID) }),
	listed("tags", []string{"PutTag"}, parley.Tx.Tags, parley.Tx.PutTag).
		marked(func(x *parley.Tag, m marks) { m.see(parley.FamilyTags, x.ID) }),
	(&kind[int64, parley.Customer]{name: "customers", puts: []string{"PutCustomer"},
		keys:  customerIDs,
		load:  func(tx parley.Tx, company, id int64) (parley.Customer, error) { return deref(tx.Customer(company, id)) },
		put:   parley.Tx.PutCustomer,
		taken: parley.Tx.CustomerIDTaken,
	}).marked(markCustomer),
	conversations,
	&kind[string, chat]{name: "chats", puts: []string{"PutChat", "PutTimelineEntry"},
		keys:  chatIDs,
		load:  loadChat,
		put:   putChat,
		parts: chatParts,
	},
	listed("wake-ups", []string{"PutLater"}, wakeUps, func(tx parley.Tx, item *parley.LaterItem) error { return tx.PutLater(*item) }),
	listed("webhooks", []string{"PutWebhook"}, parley.Tx.Webhooks, parley.Tx.PutWebhook).
		marked(func(w *parley.Webhook, m marks) { m.see(parley.FamilyWebhooks, w.ID) }),
	listed("webhook deliveries", []string{"PutDelivery"}, deliveries, parley.Tx.PutDelivery).
		marked(func(d *parley.Delivery, m marks) { m.see(parley.FamilyDeliveries, d.ID) }),
	listed("workflows", []string{"PutWorkflow"}, parley.Tx.Workflows, parley.Tx.PutWorkflow).
		marked(func(w *parley.Workflow, m marks) { m.see(parley.FamilyWorkflows, w.ID) }),
	listed("workflow runs", []string{"PutWorkflowRun"}, workflowRuns, parley.Tx.PutWorkflowRun).
		marked(func(r *parley.WorkflowRun, m marks) { m.see(parley.FamilyWorkflowRuns, r.ID) }),
	listed("saved views", []string{"PutSavedView"}, parley.Tx.SavedViews, parley.Tx.PutSavedView).
		marked(func(v *parley.SavedView, m marks) { m.see(parley.FamilyItems, v.ID) }),
	listed("pending events", []string{"PutEvent"}, pendingEvents, func(tx parley.Tx, e *parley.Event) error { return tx.PutEvent(*e) }),
	credential("OAuth applications", "PutApp", func(c *parley.Credentials) []parley.App { return c.Apps }, parley.Tx.PutApp),
	credential("OAuth grants", "PutGrant", func(c *parley.Credentials) []parley.Grant { return c.Grants }, parley.Tx.PutGrant),
	credential("OAuth codes", "PutAuthCode", func(c *parley.Credentials) []parley.AuthCode { return c.AuthCodes }, parley.Tx.PutAuthCode),
	credential("access tokens", "PutToken", func(c *parley.Credentials) []parley.Token { return c.Tokens }, parley.Tx.PutToken),
	credential("refresh tokens", "PutRefreshToken", func(c *parley.Credentials) []parley.RefreshToken { return c.RefreshTokens }, parley.Tx.PutRefreshToken),
	credential("V1 key exchanges", "PutV1Exchange", func(c *parley.Credentials) []parley.V1Exchange { return c.V1Exchanges }, parley.Tx.PutV1Exchange),
	credential("sign-in sessions", "PutSession", func(c *parley.Credentials) []parley.Session { return c.Sessions }, parley.Tx.PutSession),
}

// deref turns a loaded record into a value.
func deref[T any](rec *T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return *rec, nil
}

func markMailbox(mb *parley.Mailbox, m marks) {
	m.see(parley.FamilyMailboxes, mb.ID)
	for _, f := range mb.Folders {
		m.see(parley.FamilyItems, f.ID)
	}
	for _, f := range mb.Fields {
		m.see(parley.FamilyItems, f.ID)
		for _, o := range f.Options {
			m.see(parley.FamilyItems, o.ID)
		}
	}
}

func markProperty(family parley.IDFamily) func(d *parley.PropertyDef, m marks) {
	return func(d *parley.PropertyDef, m marks) {
		m.see(family, d.ID)
		for _, o := range d.Options {
			m.see(parley.FamilyItems, o.ID)
		}
	}
}

func markCustomer(c *parley.Customer, m marks) {
	m.see(parley.FamilyCustomers, c.ID)
	for _, k := range parley.EntryKinds {
		for _, e := range *c.Entries(k) {
			m.see(parley.FamilyItems, e.ID)
		}
	}
}

// customerIDs lists the company's customers, in the order of the walk.
func customerIDs(tx parley.Tx, company int64) ([]int64, error) {
	var ids []int64
	err := tx.EachCustomer(func(c *parley.Customer) error {
		if c.CompanyID == company {
			ids = append(ids, c.ID)
		}
		return nil
	})
	slices.Sort(ids)
	return ids, err
}

// chatIDs lists the company's chats.
func chatIDs(tx parley.Tx, company int64) ([]string, error) {
	var ids []string
	err := tx.EachChatID(func(of int64, id string) {
		if of == company {
			ids = append(ids, id)
		}
	})
	slices.Sort(ids)
	return ids, err
}

// chat is a chat with its timeline, which is stored apart.
type chat struct {
	Chat     parley.Chat
	Timeline []parley.TimelineEntry
}

func loadChat(tx parley.Tx, company int64, id string) (chat, error) {
	c, err := tx.Chat(company, id)
	if err != nil {
		return chat{}, err
	}
	timeline, err := tx.ChatTimeline(company, id)
	return chat{*c, timeline}, err
}

func putChat(tx parley.Tx, c *chat) error {
	if err := tx.PutChat(&c.Chat); err != nil {
		return err
	}
	for _, e := range c.Timeline {
		if err := tx.PutTimelineEntry(c.Chat.CompanyID, c.Chat.ID, e); err != nil {
			return err
		}
	}
	return nil
}

func chatParts(c *chat, add func(name string, part any)) {
	add("chats", &c.Chat)
	for i := range c.Timeline {
		add("chat timeline entries", &c.Timeline[i])
	}
}

// forever is past every wake-up: DueLater at it lists them all.
var forever = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// wakeUps lists the company's snoozes and scheduled replies.
func wakeUps(tx parley.Tx, company int64) ([]parley.LaterItem, error) {
	all, err := tx.DueLater(forever)
	return slices.DeleteFunc(all, func(item parley.LaterItem) bool { return item.CompanyID != company }), err
}

// under lists the records of each of the company's parents, parent by
// parent (saved replies by mailbox, deliveries by webhook, runs by
// workflow).
func under[P, C any](parents func(tx parley.Tx, company int64) ([]P, error),
	children func(tx parley.Tx, company int64, parent *P) ([]C, error)) func(tx parley.Tx, company int64) ([]C, error) {
	return func(tx parley.Tx, company int64) ([]C, error) {
		list, err := parents(tx, company)
		var out []C
		for i := range list {
			more, err := children(tx, company, &list[i])
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
		return out, err
	}
}

var (
	savedReplies = under(parley.Tx.Mailboxes, func(tx parley.Tx, company int64, mb *parley.Mailbox) ([]parley.SavedReply, error) {
		return tx.SavedReplies(company, mb.ID)
	})
	// A webhook's deliveries oldest first: the order their ids were drawn in.
	deliveries = under(parley.Tx.Webhooks, func(tx parley.Tx, company int64, w *parley.Webhook) ([]parley.Delivery, error) {
		list, _, err := tx.Deliveries(company, w.ID, 0, maxRecords)
		slices.Reverse(list)
		return list, err
	})
	workflowRuns = under(parley.Tx.Workflows, func(tx parley.Tx, company int64, w *parley.Workflow) ([]parley.WorkflowRun, error) {
		return tx.WorkflowRuns(company, w.ID)
	})
)

// maxRecords bounds the lists a copy reads whole that the seam pages (a
// webhook's deliveries, the pending events): far above what a store holds.
const maxRecords = 1 << 30

// pendingEvents lists the company's events not yet turned into webhook
// deliveries (their recording sequence is the target's own).
func pendingEvents(tx parley.Tx, company int64) ([]parley.Event, error) {
	recorded, err := tx.PendingEvents(maxRecords)
	var out []parley.Event
	for _, e := range recorded {
		if e.CompanyID == company {
			out = append(out, e.Event)
		}
	}
	return out, err
}

// credential is the kind of one family of OAuth records, read from the
// store's Credentials.
func credential[T any](name, put string, of func(c *parley.Credentials) []T, store func(parley.Tx, *T) error) mover {
	return listed(name, []string{put}, func(tx parley.Tx, company int64) ([]T, error) {
		all, err := tx.Credentials()
		if err != nil {
			return nil, err
		}
		mine := all.OfCompany(company)
		return of(&mine), nil
	}, store)
}
