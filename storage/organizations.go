package storage

import (
	"bytes"
	"strings"
	"time"

	parley "github.com/parley/parley"
)

// Buckets of organizations.
var (
	bucketOrganizations = newBucket("organizations")
	// bucketOrgsByName keys company id, lowercased name, 0, organization id:
	// a company's organizations in name order, and lookups by name.
	bucketOrgsByName = newBucket("organizations_by_name")
	// bucketOrgsByDomain keys company id and domain to the organization id.
	bucketOrgsByDomain = newBucket("organizations_by_domain")
)

func orgNamePrefix(companyID int64, name string) []byte {
	return append(keyStr(companyID, strings.ToLower(strings.TrimSpace(name))), 0)
}

// Organization loads an organization of a company.
func (t *Tx) Organization(companyID, id int64) (*parley.Organization, error) {
	return scoped(t, bucketOrganizations, id, func(o *parley.Organization) int64 { return o.CompanyID }, companyID, "organization")
}

// OrganizationsByName finds a company's organizations with this name,
// compared case-insensitively, in id order.
func (t *Tx) OrganizationsByName(companyID int64, name string) ([]parley.Organization, error) {
	return t.organizationsUnder(companyID, orgNamePrefix(companyID, name))
}

// Organizations lists a company's organizations in name order (then id).
func (t *Tx) Organizations(companyID int64) ([]parley.Organization, error) {
	return t.organizationsUnder(companyID, key(companyID))
}

func (t *Tx) organizationsUnder(companyID int64, prefix []byte) ([]parley.Organization, error) {
	var out []parley.Organization
	c := t.tx.Bucket(bucketOrgsByName).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		o, err := t.Organization(companyID, idOf(k[len(k)-8:]))
		if err != nil {
			return nil, err
		}
		out = append(out, *o)
	}
	return out, nil
}

// PutOrganization stores an organization with its name and domain keys,
// assigning an id when ID is 0. A domain held by another organization of
// the company is a Conflict.
func (t *Tx) PutOrganization(o *parley.Organization) error {
	if err := t.assignOrKeepID(bucketOrganizations, &o.ID); err != nil {
		return err
	}
	old := new(parley.Organization)
	found, err := t.get(bucketOrganizations, key(o.ID), old)
	if err != nil {
		return err
	}
	if found {
		if err := t.unkeyOrganization(old); err != nil {
			return err
		}
	}
	domains := t.tx.Bucket(bucketOrgsByDomain)
	for i, d := range o.Domains {
		k := keyStr(o.CompanyID, d)
		if owner := domains.Get(k); owner != nil && idOf(owner) != o.ID {
			return parley.OrganizationDomainTaken(i, d)
		}
		if err := domains.Put(k, key(o.ID)); err != nil {
			return err
		}
	}
	if err := t.tx.Bucket(bucketOrgsByName).Put(append(orgNamePrefix(o.CompanyID, o.Name), key(o.ID)...), nil); err != nil {
		return err
	}
	return t.put(bucketOrganizations, key(o.ID), o)
}

func (t *Tx) unkeyOrganization(old *parley.Organization) error {
	for _, d := range old.Domains {
		if err := t.tx.Bucket(bucketOrgsByDomain).Delete(keyStr(old.CompanyID, d)); err != nil {
			return err
		}
	}
	return t.tx.Bucket(bucketOrgsByName).Delete(append(orgNamePrefix(old.CompanyID, old.Name), key(old.ID)...))
}

// OrganizationCustomerIDs lists the customers of an organization in id order.
func (t *Tx) OrganizationCustomerIDs(_, orgID int64) []int64 {
	var out []int64
	c := t.tx.Bucket(bucketCustomersByOrg).Cursor()
	prefix := key(orgID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, idOf(k[8:]))
	}
	return out
}

// DeleteOrganization removes an organization; its customers stay, unlinked
// (and reindexed).
func (t *Tx) DeleteOrganization(o *parley.Organization, now time.Time) error {
	if err := parley.UnlinkOrganizationCustomers(t, o, now); err != nil {
		return err
	}
	if err := t.unkeyOrganization(o); err != nil {
		return err
	}
	return t.tx.Bucket(bucketOrganizations).Delete(key(o.ID))
}
