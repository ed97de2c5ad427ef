package storage

import parley "github.com/parley/parley"

// bucketOrgProperties keys company id and slug to an organization property
// definition; the values live on the organizations.
var bucketOrgProperties = newBucket("organization_properties")

// OrganizationPropertyDefs lists a company's organization property
// definitions in slug order.
func (t *Tx) OrganizationPropertyDefs(companyID int64) ([]parley.PropertyDef, error) {
	return t.propertyDefs(bucketOrgProperties, companyID)
}

// PutOrganizationPropertyDef stores an organization property definition,
// assigning ids to it (when new: a slug already defined is a Conflict) and
// to options without one.
func (t *Tx) PutOrganizationPropertyDef(d *parley.PropertyDef, isNew bool) error {
	return t.putPropertyDef(bucketOrgProperties, d, isNew, &parley.OrganizationProperties)
}

// DeleteOrganizationPropertyDef removes a company's definition of a slug.
func (t *Tx) DeleteOrganizationPropertyDef(companyID int64, slug string) error {
	return t.tx.Bucket(bucketOrgProperties).Delete(keyStr(companyID, slug))
}
