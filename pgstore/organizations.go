package pgstore

import (
	"strings"
	"time"

	parley "github.com/parley/parley"
)

var (
	sqlOrganization        = cachedStmt(`SELECT o.body FROM organizations o WHERE o.company_id = $1 AND o.id = $2`)
	sqlOrganizations       = stmt(`SELECT o.body FROM organizations o WHERE o.company_id = $1 ORDER BY o.name_key, o.id`)
	sqlOrganizationsByName = stmt(`SELECT o.body FROM organizations o WHERE o.company_id = $1 AND o.name_key = $2 ORDER BY o.id`)
	sqlPutOrganization     = stmt(`INSERT INTO organizations (company_id, id, name_key, body) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, id) DO UPDATE SET name_key = EXCLUDED.name_key, body = EXCLUDED.body`)
	sqlDeleteOrganization = stmt(`DELETE FROM organizations o WHERE o.company_id = $1 AND o.id = $2`)

	sqlOrganizationByDomain  = stmt(`SELECT d.organization_id FROM organization_domains d WHERE d.company_id = $1 AND d.domain = $2`)
	sqlAddOrganizationDomain = stmt(`INSERT INTO organization_domains (company_id, domain, organization_id) VALUES ($1, $2, $3)
ON CONFLICT (company_id, domain) DO NOTHING RETURNING organization_id`)
	sqlDropOrganizationDomains = stmt(`DELETE FROM organization_domains d WHERE d.company_id = $1 AND d.organization_id = $2`)

	sqlOrganizationCustomers = stmt(`SELECT c.id FROM customers c WHERE c.company_id = $1 AND c.organization_id = $2 ORDER BY c.id`)
)

// orgNameKey is the form organizations are listed and found by name in.
func orgNameKey(name string) string { return keyText(strings.ToLower(strings.TrimSpace(name))) }

// Organization loads an organization of a company.
func (t *Tx) Organization(companyID, id int64) (*parley.Organization, error) {
	return one[parley.Organization](t, "organization", sqlOrganization, companyID, id)
}

// Organizations lists a company's organizations in name order (then id).
func (t *Tx) Organizations(companyID int64) ([]parley.Organization, error) {
	return many[parley.Organization](t, sqlOrganizations, companyID)
}

// OrganizationsByName finds a company's organizations with this name,
// compared case-insensitively, in id order.
func (t *Tx) OrganizationsByName(companyID int64, name string) ([]parley.Organization, error) {
	return many[parley.Organization](t, sqlOrganizationsByName, companyID, orgNameKey(name))
}

// PutOrganization stores an organization with its domain keys, assigning
// an id when ID is 0. A domain held by another organization of the company
// is a Conflict.
func (t *Tx) PutOrganization(o *parley.Organization) error {
	if err := t.assignOrKeepID(organizationIDs, &o.ID, o.CompanyID, func() (bool, error) { return absent(t.Organization(o.CompanyID, o.ID)) }); err != nil {
		return err
	}
	if err := t.exec(sqlDropOrganizationDomains, o.CompanyID, o.ID); err != nil {
		return err
	}
	for i, d := range o.Domains {
		var holder int64
		added, err := t.scan(sqlAddOrganizationDomain, []any{o.CompanyID, keyText(d), o.ID}, &holder)
		if err != nil {
			return err
		}
		if !added {
			if _, err := t.scan(sqlOrganizationByDomain, []any{o.CompanyID, keyText(d)}, &holder); err != nil {
				return err
			}
			if holder != o.ID {
				return parley.OrganizationDomainTaken(i, d)
			}
		}
	}
	return t.put(sqlPutOrganization, o, o.CompanyID, o.ID, orgNameKey(o.Name))
}

// OrganizationCustomerIDs lists the customers of an organization in id order.
func (t *Tx) OrganizationCustomerIDs(companyID, orgID int64) []int64 {
	ids, _ := t.ids(sqlOrganizationCustomers, companyID, orgID) // a failure stays on the transaction
	return ids
}

// DeleteOrganization removes an organization; its customers stay, unlinked
// (and reindexed).
func (t *Tx) DeleteOrganization(o *parley.Organization, now time.Time) error {
	if err := parley.UnlinkOrganizationCustomers(t, o, now); err != nil {
		return err
	}
	if err := t.exec(sqlDropOrganizationDomains, o.CompanyID, o.ID); err != nil {
		return err
	}
	return t.exec(sqlDeleteOrganization, o.CompanyID, o.ID)
}
