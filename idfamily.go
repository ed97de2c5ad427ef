package parley

// IDFamily names a sequence ids are drawn from. A copy between backends
// (parley copy) keeps every record's id, then moves each family's sequence
// past the highest id it copied, so the ids the target draws later never
// reach a copied record.
type IDFamily string

// The id families, the same in every backend. Users and teams share one
// (an id names a user or a team, never both); Items numbers the records
// kept inside others: a mailbox's folders, fields and their options, a
// customer's e-mails, phones, chats, social profiles and websites, property
// options, and saved views.
const (
	FamilyCompanies              IDFamily = "companies"
	FamilyUsers                  IDFamily = "users"
	FamilyMailboxes              IDFamily = "mailboxes"
	FamilyItems                  IDFamily = "items"
	FamilySavedReplies           IDFamily = "saved replies"
	FamilyCustomers              IDFamily = "customers"
	FamilyCustomerProperties     IDFamily = "customer properties"
	FamilyOrganizations          IDFamily = "organizations"
	FamilyOrganizationProperties IDFamily = "organization properties"
	FamilyTags                   IDFamily = "tags"
	FamilyConversations          IDFamily = "conversations"
	FamilyThreads                IDFamily = "threads"
	FamilyRatings                IDFamily = "ratings"
	FamilyAttachments            IDFamily = "attachments"
	FamilyWebhooks               IDFamily = "webhooks"
	FamilyDeliveries             IDFamily = "deliveries"
	FamilyMail                   IDFamily = "mail"
	FamilyWorkflows              IDFamily = "workflows"
	FamilyWorkflowRuns           IDFamily = "workflow runs"
)

// IDFamilies lists every family, for backends to check their mapping.
var IDFamilies = []IDFamily{FamilyCompanies, FamilyUsers, FamilyMailboxes, FamilyItems, FamilySavedReplies,
	FamilyCustomers, FamilyCustomerProperties, FamilyOrganizations, FamilyOrganizationProperties, FamilyTags,
	FamilyConversations, FamilyThreads, FamilyRatings, FamilyAttachments, FamilyWebhooks, FamilyDeliveries,
	FamilyMail, FamilyWorkflows, FamilyWorkflowRuns}

// CopyStore is what a copy between backends needs beyond the record
// families, whose Put methods keep an id they are given.
type CopyStore interface {
	// Credentials lists the OAuth records of every company (see
	// Credentials.OfCompany).
	Credentials() (*Credentials, error)
	// KeepIDsPast moves a family's sequence to at least id.
	KeepIDsPast(family IDFamily, id int64) error
}
