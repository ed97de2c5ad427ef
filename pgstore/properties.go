package pgstore

import parley "github.com/parley/parley"

// Customer and organization property definitions share a table, told apart
// by kind, each with its own id sequence as in the embedded store.
const (
	propertiesOfCustomers     = "customer"
	propertiesOfOrganizations = "organization"
)

var (
	sqlPropertyDefs    = stmt(`SELECT d.body FROM property_defs d WHERE d.company_id = $1 AND d.kind = $2 ORDER BY d.slug`)
	sqlPropertyDefined = stmt(`SELECT count(*) FROM property_defs d WHERE d.company_id = $1 AND d.kind = $2 AND d.slug = $3`)
	sqlPutPropertyDef  = stmt(`INSERT INTO property_defs (company_id, kind, slug, body) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, kind, slug) DO UPDATE SET body = EXCLUDED.body`)
	sqlDeletePropertyDef = stmt(`DELETE FROM property_defs d WHERE d.company_id = $1 AND d.kind = $2 AND d.slug = $3`)
)

// PropertyDefs lists a company's customer property definitions in slug order.
func (t *Tx) PropertyDefs(companyID int64) ([]parley.PropertyDef, error) {
	return many[parley.PropertyDef](t, sqlPropertyDefs, companyID, propertiesOfCustomers)
}

// PutPropertyDef stores a new property definition, assigning ids to it and
// its options. A slug already defined in the company is a Conflict.
func (t *Tx) PutPropertyDef(d *parley.PropertyDef) error {
	return t.putPropertyDef(propertiesOfCustomers, seqCustomerProperties, d, true, &parley.CustomerProperties)
}

// DeletePropertyDef removes a company's definition of a slug.
func (t *Tx) DeletePropertyDef(companyID int64, slug string) error {
	return t.exec(sqlDeletePropertyDef, companyID, propertiesOfCustomers, keyText(slug))
}

// OrganizationPropertyDefs lists a company's organization property
// definitions in slug order.
func (t *Tx) OrganizationPropertyDefs(companyID int64) ([]parley.PropertyDef, error) {
	return many[parley.PropertyDef](t, sqlPropertyDefs, companyID, propertiesOfOrganizations)
}

// PutOrganizationPropertyDef stores an organization property definition,
// assigning ids to it (when new: a slug already defined is a Conflict) and
// to options without one.
func (t *Tx) PutOrganizationPropertyDef(d *parley.PropertyDef, isNew bool) error {
	return t.putPropertyDef(propertiesOfOrganizations, seqOrganizationProperties, d, isNew, &parley.OrganizationProperties)
}

// DeleteOrganizationPropertyDef removes a company's definition of a slug.
func (t *Tx) DeleteOrganizationPropertyDef(companyID int64, slug string) error {
	return t.exec(sqlDeletePropertyDef, companyID, propertiesOfOrganizations, keyText(slug))
}

// putPropertyDef stores a definition keyed by company and slug, assigning
// an id when new (a slug already defined is then a Conflict) and ids to
// options without one.
func (t *Tx) putPropertyDef(kind, sequence string, d *parley.PropertyDef, isNew bool, noun *parley.PropertyKind) error {
	slug := keyText(d.Slug)
	if isNew {
		if t.countOf(sqlPropertyDefined, d.CompanyID, kind, slug) > 0 {
			return parley.PropertySlugTaken(noun, d.Slug)
		}
		if err := t.drawOrKeepID(sequence, &d.ID); err != nil { // a copy keeps its id
			return err
		}
	}
	for i := range d.Options {
		if err := t.assignID(seqItems, &d.Options[i].ID); err != nil {
			return err
		}
	}
	return t.put(sqlPutPropertyDef, d, d.CompanyID, kind, slug)
}
