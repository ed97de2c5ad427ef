package parley

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Organization is a company that customers belong to.
type Organization struct {
	ID          int64    `json:"id"`
	CompanyID   int64    `json:"companyId"`
	Name        string   `json:"name"`
	Website     string   `json:"website,omitempty"`
	Description string   `json:"description,omitempty"`
	Location    string   `json:"location,omitempty"`
	LogoURL     string   `json:"logoUrl,omitempty"`
	Note        string   `json:"note,omitempty"`
	BrandColor  *string  `json:"brandColor,omitempty"`
	Domains     []string `json:"domains,omitempty"`
	Phones      []string `json:"phones,omitempty"`
	// Properties holds the organization property values by slug, in their
	// stored form (a dropdown's option id).
	Properties map[string]string `json:"properties,omitempty"`
	CreatedAt  time.Time         `json:"createdAt"`
	UpdatedAt  time.Time         `json:"updatedAt"`
}

// Organization field limits. Help Scout's docs give none beyond the customer's
// `organization` (60), which names an organization, so a name is 1 to 60.
const (
	MaxOrganizationNameLength = MaxShortTextLength
	MaxOrganizationTextLength = 2000 // description, note
	MaxOrganizationURLLength  = 200  // website, logoUrl
	MaxOrganizationListLength = 50   // domains, phones
	MaxOrganizationItemLength = 255  // one domain or phone
)

// OrganizationInput is the body of Create and Update Organization. Nil
// means absent.
type OrganizationInput struct {
	Name        *string          `json:"name"`
	Website     *string          `json:"website"`
	Description *string          `json:"description"`
	Location    *string          `json:"location"`
	LogoURL     *string          `json:"logoUrl"`
	Note        *string          `json:"note"`
	BrandColor  Nullable[string] `json:"brandColor"`
	Domains     []string         `json:"domains"`
	Phones      []string         `json:"phones"`
}

var (
	brandColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	domainName = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)
)

// Validate checks every field; logoURL says whether `logoUrl` is read (on
// create; Update Organization ignores it and keeps it, as Help Scout's docs say).
func (in *OrganizationInput) Validate(logoURL bool) error {
	p := &Problems{}
	requireString(p, "name", in.Name, MaxOrganizationNameLength)
	sized := []struct {
		name string
		v    *string
		max  int
	}{
		{"website", in.Website, MaxOrganizationURLLength},
		{"description", in.Description, MaxOrganizationTextLength},
		{"location", in.Location, MaxShortTextLength},
		{"note", in.Note, MaxOrganizationTextLength},
	}
	for _, s := range sized {
		if s.v != nil && len([]rune(*s.v)) > s.max {
			p.Add(s.name, CodeSize, sizeMessage(0, s.max), *s.v)
		}
	}
	if in.Website != nil && *in.Website != "" && !ValidURL(*in.Website) {
		p.Add("website", CodeValueNotSupported, "must be a valid http or https URL", *in.Website)
	}
	if logoURL && in.LogoURL != nil && len([]rune(*in.LogoURL)) > MaxOrganizationURLLength {
		p.Add("logoUrl", CodeSize, sizeMessage(0, MaxOrganizationURLLength), *in.LogoURL)
	} else if logoURL && in.LogoURL != nil && *in.LogoURL != "" && !ValidURL(*in.LogoURL) {
		p.Add("logoUrl", CodeValueNotSupported, "must be a valid http or https URL", *in.LogoURL)
	}
	if in.BrandColor.Set && !in.BrandColor.Null && !brandColor.MatchString(in.BrandColor.Value) {
		p.Add("brandColor", CodeValueNotSupported, "must be a colour #rrggbb or null", in.BrandColor.Value)
	}
	checkList(p, "phones", in.Phones, func(string) bool { return true }, "")
	checkList(p, "domains", in.Domains, func(d string) bool { return domainName.MatchString(NormalizeDomain(d)) }, "must be a domain name such as example.com")
	seen := map[string]bool{}
	for i, d := range in.Domains {
		if n := NormalizeDomain(d); seen[n] {
			p.Add(fmt.Sprintf("domains[%d]", i), CodeConflict, "is listed twice", d)
		} else {
			seen[n] = true
		}
	}
	return p.Err()
}

func checkList(p *Problems, name string, list []string, valid func(string) bool, msg string) {
	if len(list) > MaxOrganizationListLength {
		p.Add(name, CodeSize, sizeMessage(0, MaxOrganizationListLength), len(list))
	}
	for i, v := range list {
		path := fmt.Sprintf("%s[%d]", name, i)
		switch {
		case strings.TrimSpace(v) == "":
			p.Add(path, CodeEmptyValue, "may not be empty", v)
		case len([]rune(v)) > MaxOrganizationItemLength:
			p.Add(path, CodeSize, sizeMessage(1, MaxOrganizationItemLength), v)
		case !valid(v):
			p.Add(path, CodeValueNotSupported, msg, v)
		}
	}
}

// NormalizeDomain gives the stored, compared form of a domain.
func NormalizeDomain(d string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
}

// Apply writes the input into o as a complete replacement (Help Scout's docs, Update
// Organization): a missing scalar becomes empty (read as null), a missing
// array empty, given arrays replace the stored ones; id and logoUrl are
// kept unless logoURL allows setting it (create).
func (in *OrganizationInput) Apply(o *Organization, logoURL bool, now time.Time) {
	str := func(v *string) string {
		if v == nil {
			return ""
		}
		return strings.TrimSpace(*v)
	}
	o.Name = str(in.Name)
	o.Website, o.Description, o.Location, o.Note = str(in.Website), str(in.Description), str(in.Location), str(in.Note)
	if logoURL {
		o.LogoURL = str(in.LogoURL)
	}
	o.BrandColor = nil
	if in.BrandColor.Set && !in.BrandColor.Null {
		o.BrandColor = Ptr(in.BrandColor.Value) // as sent: clients compare what they wrote
	}
	o.Domains, o.Phones = nil, nil
	for _, d := range in.Domains {
		o.Domains = append(o.Domains, NormalizeDomain(d))
	}
	for _, ph := range in.Phones {
		o.Phones = append(o.Phones, strings.TrimSpace(ph))
	}
	o.UpdatedAt = now
}

// CreateOrganization validates and stores a new organization.
func CreateOrganization(tx Tx, companyID int64, in *OrganizationInput, now time.Time) (*Organization, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	o := &Organization{CompanyID: companyID, CreatedAt: now}
	in.Apply(o, true, now)
	if err := tx.PutOrganization(o); err != nil {
		return nil, err
	}
	return o, emit(tx, EventOrganizationCreated, companyID, o.ID, now)
}

// ReplaceOrganization applies Update Organization's four rules.
func ReplaceOrganization(tx Tx, companyID, id int64, in *OrganizationInput, now time.Time) error {
	o, err := tx.Organization(companyID, id)
	if err != nil {
		return err
	}
	if err := in.Validate(false); err != nil {
		return err
	}
	in.Apply(o, false, now)
	if err := tx.PutOrganization(o); err != nil {
		return err
	}
	return emit(tx, EventOrganizationUpdated, companyID, o.ID, now)
}

// RemoveOrganization deletes an organization; its customers stay, unlinked.
func RemoveOrganization(tx Tx, companyID, id int64, now time.Time) error {
	o, err := tx.Organization(companyID, id)
	if err != nil {
		return err
	}
	if err := tx.DeleteOrganization(o, now); err != nil {
		return err
	}
	return emit(tx, EventOrganizationDeleted, companyID, o.ID, now)
}

// UnlinkOrganizationCustomers clears an organization from each of its
// customers, updated at now (and so reindexed): what every backend's
// DeleteOrganization does before removing the organization.
func UnlinkOrganizationCustomers(tx Tx, o *Organization, now time.Time) error {
	for _, id := range tx.OrganizationCustomerIDs(o.CompanyID, o.ID) {
		cu, err := tx.Customer(o.CompanyID, id)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		cu.OrganizationID, cu.Organization, cu.UpdatedAt = 0, "", now
		if err := tx.PutCustomer(cu); err != nil {
			return err
		}
	}
	return nil
}

// organizationByName finds the company's organization with this name
// (case-insensitive; the oldest when several share it) or creates it.
func organizationByName(tx Tx, companyID int64, name string, now time.Time) (*Organization, error) {
	found, err := tx.OrganizationsByName(companyID, name)
	if err != nil {
		return nil, err
	}
	if len(found) > 0 {
		return &found[0], nil
	}
	o := &Organization{CompanyID: companyID, Name: name, CreatedAt: now, UpdatedAt: now}
	if err := tx.PutOrganization(o); err != nil {
		return nil, err
	}
	return o, emit(tx, EventOrganizationCreated, companyID, o.ID, now)
}
