package parley

import (
	"net/mail"
	"slices"
	"strings"
	"time"
)

// Customer is a person who contacts a company.
type Customer struct {
	ID             int64             `json:"id"`
	CompanyID      int64             `json:"companyId"`
	FirstName      string            `json:"firstName,omitempty"`
	LastName       string            `json:"lastName,omitempty"`
	PhotoURL       string            `json:"photoUrl,omitempty"`
	PhotoType      string            `json:"photoType,omitempty"`
	JobTitle       string            `json:"jobTitle,omitempty"`
	Background     string            `json:"background,omitempty"`
	Location       string            `json:"location,omitempty"`
	Organization   string            `json:"organization,omitempty"`
	OrganizationID int64             `json:"organizationId,omitempty"`
	Gender         string            `json:"gender,omitempty"`
	Age            string            `json:"age,omitempty"`
	Emails         []Entry           `json:"emails,omitempty"`
	Phones         []Entry           `json:"phones,omitempty"`
	Chats          []Entry           `json:"chats,omitempty"`
	SocialProfiles []Entry           `json:"socialProfiles,omitempty"`
	Websites       []Entry           `json:"websites,omitempty"`
	Address        *Address          `json:"address,omitempty"`
	Properties     map[string]string `json:"properties,omitempty"`
	Draft          bool              `json:"draft,omitempty"`
	CreatedAt      time.Time         `json:"createdAt"`
	UpdatedAt      time.Time         `json:"updatedAt"`
}

// Entry is one contact entry of a customer (e-mail, phone, chat handle,
// social profile, website).
type Entry struct {
	ID    int64  `json:"id"`
	Value string `json:"value"`
	Type  string `json:"type,omitempty"`
}

// Address is a customer's postal address.
type Address struct {
	City       string   `json:"city,omitempty"`
	State      string   `json:"state,omitempty"`
	PostalCode string   `json:"postalCode,omitempty"`
	Country    string   `json:"country,omitempty"`
	Lines      []string `json:"lines,omitempty"`
}

// Name is the customer's full name.
func (c *Customer) Name() string { return strings.TrimSpace(c.FirstName + " " + c.LastName) }

// PrimaryEmail is the first e-mail entry, or "".
func (c *Customer) PrimaryEmail() string {
	if len(c.Emails) == 0 {
		return ""
	}
	return c.Emails[0].Value
}

// Customer field limits (Help Scout's docs, "Limits").
const (
	MaxNameLength       = 40
	MaxPhotoURLLength   = 200
	MaxBackgroundLength = 200
	MaxShortTextLength  = 60 // jobTitle, location, organization
)

// Value sets of customer fields.
var (
	PhotoTypes = []string{"unknown", "gravatar", "twitter", "facebook", "googleprofile", "googleplus", "linkedin", "instagram"}
	Genders    = []string{"male", "female", "unknown"}
)

// EntryKind describes one collection of customer entries: its path segment
// (`social-profiles`, also the name its own list embeds under), its request
// field (`socialProfiles`) and its type value set (nil: untyped, websites).
type EntryKind struct {
	Segment string
	Field   string
	Types   []string
}

// Entry kinds of a customer. Help Scout's docs do not list the type values; these are
// the ones this family of APIs documents.
var (
	EmailEntries   = EntryKind{"emails", "emails", []string{"home", "other", "work"}}
	PhoneEntries   = EntryKind{"phones", "phones", []string{"fax", "home", "mobile", "other", "pager", "work"}}
	ChatEntries    = EntryKind{"chats", "chats", []string{"aim", "gtalk", "icq", "msn", "other", "qq", "skype", "xmpp", "yahoo"}}
	SocialEntries  = EntryKind{"social-profiles", "socialProfiles", []string{"aboutme", "facebook", "flickr", "forsquare", "google", "googleplus", "linkedin", "other", "quora", "tungleme", "twitter", "youtube"}}
	WebsiteEntries = EntryKind{"websites", "websites", nil}
	EntryKinds     = []EntryKind{EmailEntries, PhoneEntries, ChatEntries, SocialEntries, WebsiteEntries}
)

// EntryKindOf finds an entry kind by its path segment.
func EntryKindOf(segment string) (EntryKind, bool) {
	for _, k := range EntryKinds {
		if k.Segment == segment {
			return k, true
		}
	}
	return EntryKind{}, false
}

// Typed reports whether entries of the kind carry a type.
func (k EntryKind) Typed() bool { return k.Types != nil }

// Entries returns the customer's list of that kind, for reading and writing.
func (c *Customer) Entries(k EntryKind) *[]Entry {
	switch k.Segment {
	case "emails":
		return &c.Emails
	case "phones":
		return &c.Phones
	case "chats":
		return &c.Chats
	case "social-profiles":
		return &c.SocialProfiles
	}
	return &c.Websites
}

// NormalizeEmail gives the stored, compared form of an e-mail address.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// MaxEmailLength bounds an e-mail address (RFC 5321 allows 254 octets in
// a path); addresses are storage keys, so the bound is also what keeps a
// key within bbolt's limit.
const MaxEmailLength = 255

// EmailRule is the message of an e-mail that is not valid.
const EmailRule = "must be a well-formed e-mail address of at most 255 characters"

// ValidEmail reports whether s is a single well-formed address without a
// display name, of at most MaxEmailLength bytes.
func ValidEmail(s string) bool {
	if len(s) > MaxEmailLength {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && strings.Contains(s[strings.LastIndexByte(s, '@'):], ".")
}

// CustomerInput is the customer part of a create request (Create
// Conversation's `customer`, Create Customer's scalars). Nil means absent.
type CustomerInput struct {
	ID             *int64
	Email          *string
	FirstName      *string
	LastName       *string
	Phone          *string
	PhotoURL       *string
	PhotoType      *string
	JobTitle       *string
	Background     *string
	Location       *string
	Organization   *string
	OrganizationID *int64
	Gender         *string
	Age            *string
}

// Validate checks the limits of Help Scout's docs on every given field; prefix is the
// path of the object in the request ("customer.").
func (in *CustomerInput) Validate(p *Problems, prefix string) {
	if in.ID != nil && *in.ID <= 0 {
		p.Add(prefix+"id", CodeInvalidID, "must be a positive identifier", *in.ID)
	}
	if in.Email != nil && !ValidEmail(strings.TrimSpace(*in.Email)) {
		p.Add(prefix+"email", CodeEmail, EmailRule, *in.Email)
	}
	sized := []struct {
		name     string
		v        *string
		min, max int
	}{
		{"firstName", in.FirstName, 1, MaxNameLength},
		{"lastName", in.LastName, 1, MaxNameLength},
		{"photoUrl", in.PhotoURL, 0, MaxPhotoURLLength},
		{"background", in.Background, 0, MaxBackgroundLength},
		{"jobTitle", in.JobTitle, 0, MaxShortTextLength},
		{"location", in.Location, 0, MaxShortTextLength},
		{"organization", in.Organization, 0, MaxShortTextLength},
	}
	for _, s := range sized {
		if s.v == nil {
			continue
		}
		if n := len([]rune(*s.v)); n < s.min || n > s.max {
			p.Add(prefix+s.name, CodeSize, sizeMessage(s.min, s.max), *s.v)
		}
	}
	if in.PhotoType != nil && !slices.Contains(PhotoTypes, *in.PhotoType) {
		p.Add(prefix+"photoType", CodeValueNotSupported, "must be one of: "+strings.Join(PhotoTypes, ", "), *in.PhotoType)
	}
	if in.Gender != nil && !slices.Contains(Genders, strings.ToLower(*in.Gender)) {
		p.Add(prefix+"gender", CodeValueNotSupported, "must be one of: "+strings.Join(Genders, ", "), *in.Gender)
	}
	if in.OrganizationID != nil && *in.OrganizationID <= 0 {
		p.Add(prefix+"organizationId", CodeInvalidID, "must be a positive identifier", *in.OrganizationID)
	}
}

// NewCustomer builds a customer record from the input (fields ignored by the
// rules are not consulted); the caller links its organization
// (LinkOrganization) and stores it.
func (in *CustomerInput) NewCustomer(companyID int64, now time.Time) *Customer {
	c := &Customer{CompanyID: companyID, CreatedAt: now, UpdatedAt: now}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&c.FirstName, in.FirstName)
	set(&c.LastName, in.LastName)
	set(&c.PhotoURL, in.PhotoURL)
	set(&c.PhotoType, in.PhotoType)
	set(&c.JobTitle, in.JobTitle)
	set(&c.Background, in.Background)
	set(&c.Location, in.Location)
	set(&c.Age, in.Age)
	if in.Gender != nil {
		c.Gender = strings.ToLower(*in.Gender)
	}
	if in.Email != nil {
		c.Emails = []Entry{{Value: NormalizeEmail(*in.Email), Type: "work"}}
	}
	if in.Phone != nil && strings.TrimSpace(*in.Phone) != "" {
		c.Phones = []Entry{{Value: strings.TrimSpace(*in.Phone), Type: "work"}}
	}
	return c
}

func sizeMessage(min, max int) string {
	if min == 0 {
		return "length must be at most " + itoa(max)
	}
	return "length must be between " + itoa(min) + " and " + itoa(max)
}

// saveCustomer stores a changed customer and records customer.updated.
func saveCustomer(tx Tx, c *Customer, now time.Time) error {
	if err := tx.PutCustomer(c); err != nil {
		return err
	}
	return emit(tx, EventCustomerUpdated, c.CompanyID, c.ID, now)
}
