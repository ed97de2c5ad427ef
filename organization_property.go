package parley

import (
	"encoding/json"
	"strconv"
	"time"
)

// FindOrganizationPropertyDef finds a definition by slug.
func FindOrganizationPropertyDef(tx Tx, companyID int64, slug string) (*PropertyDef, error) {
	defs, err := tx.OrganizationPropertyDefs(companyID)
	if err != nil {
		return nil, err
	}
	if d := findProperty(defs, slug); d != nil {
		return d, nil
	}
	return nil, NotFound(OrganizationProperties.Noun)
}

// DefineOrganizationProperty lets an owner or administrator define an
// organization property; a company holds at most 50.
func DefineOrganizationProperty(tx Tx, caller Caller, in *PropertyDefInput, now time.Time) (*PropertyDef, error) {
	if err := RequireAdmin(caller, "define organization properties"); err != nil {
		return nil, err
	}
	d, err := in.Validate(&OrganizationProperties, caller.Company.ID, now)
	if err != nil {
		return nil, err
	}
	defs, err := tx.OrganizationPropertyDefs(caller.Company.ID)
	if err != nil {
		return nil, err
	}
	if len(defs) >= OrganizationProperties.MaxDefs {
		return nil, InvalidField("slug", CodeSize, "a company may define at most 50 organization properties", d.Slug)
	}
	return d, tx.PutOrganizationPropertyDef(d, true)
}

// ReviseOrganizationProperty lets an owner or administrator rename a
// definition and replace a dropdown's options; the values naming an option
// that went are removed in the same transaction.
func ReviseOrganizationProperty(tx Tx, caller Caller, slug string, in *PropertyDefInput, now time.Time) error {
	if err := RequireAdmin(caller, "update organization properties"); err != nil {
		return err
	}
	d, err := FindOrganizationPropertyDef(tx, caller.Company.ID, slug)
	if err != nil {
		return err
	}
	gone, err := in.Revise(&OrganizationProperties, d)
	if err != nil {
		return err
	}
	if err := tx.PutOrganizationPropertyDef(d, false); err != nil {
		return err
	}
	if len(gone) == 0 {
		return nil
	}
	stale := map[string]bool{}
	for _, id := range gone {
		stale[strconv.FormatInt(id, 10)] = true
	}
	return clearOrganizationValues(tx, caller.Company.ID, d.Slug, func(v string) bool { return stale[v] }, now)
}

// DeleteOrganizationProperty lets an owner or administrator delete a
// definition; every organization's value goes with it, freeing the slug.
func DeleteOrganizationProperty(tx Tx, caller Caller, slug string, now time.Time) error {
	if err := RequireAdmin(caller, "delete organization properties"); err != nil {
		return err
	}
	d, err := FindOrganizationPropertyDef(tx, caller.Company.ID, slug)
	if err != nil {
		return err
	}
	if err := clearOrganizationValues(tx, caller.Company.ID, d.Slug, func(string) bool { return true }, now); err != nil {
		return err
	}
	return tx.DeleteOrganizationPropertyDef(caller.Company.ID, d.Slug)
}

// clearOrganizationValues removes the slug's value from every organization
// of the company whose value matches.
func clearOrganizationValues(tx Tx, companyID int64, slug string, match func(string) bool, now time.Time) error {
	orgs, err := tx.Organizations(companyID)
	if err != nil {
		return err
	}
	for i := range orgs {
		o := &orgs[i]
		if v, ok := o.Properties[slug]; !ok || !match(v) {
			continue
		}
		delete(o.Properties, slug)
		if err := saveOrganizationValues(tx, o, now); err != nil {
			return err
		}
	}
	return nil
}

// PropertyValueInput is the body of Set Organization Property Value.
type PropertyValueInput struct {
	Value json.RawMessage `json:"value"`
}

// SetOrganizationProperty sets the value of a property on an organization.
// The value is a string (a number is read as its text) checked against the
// definition's type; a dropdown's value is one of its option labels.
func SetOrganizationProperty(tx Tx, companyID, orgID int64, slug string, in *PropertyValueInput, now time.Time) error {
	o, d, err := organizationAndDef(tx, companyID, orgID, slug)
	if err != nil {
		return err
	}
	v := propertyValue(d.Slug, in.Value, "value")
	switch {
	case v.bad:
		return InvalidField("value", CodeInvalidJSON, "must be a string or a number", nil)
	case v.Value == nil:
		return InvalidField("value", CodeNullValue, "may not be null", nil)
	}
	stored, code, msg := d.Normalize(*v.Value)
	if code != "" {
		return InvalidField("value", code, msg, *v.Value)
	}
	if o.Properties == nil {
		o.Properties = map[string]string{}
	}
	o.Properties[d.Slug] = stored
	return saveOrganizationValues(tx, o, now)
}

// RemoveOrganizationProperty clears the value of a property on an
// organization; the definition stays. Clearing an unset value is no error.
func RemoveOrganizationProperty(tx Tx, companyID, orgID int64, slug string, now time.Time) error {
	o, d, err := organizationAndDef(tx, companyID, orgID, slug)
	if err != nil {
		return err
	}
	if _, ok := o.Properties[d.Slug]; !ok {
		return nil
	}
	delete(o.Properties, d.Slug)
	return saveOrganizationValues(tx, o, now)
}

// organizationAndDef loads the organization and the definition a value
// path names; either missing is 404.
func organizationAndDef(tx Tx, companyID, orgID int64, slug string) (*Organization, *PropertyDef, error) {
	o, err := tx.Organization(companyID, orgID)
	if err != nil {
		return nil, nil, err
	}
	d, err := FindOrganizationPropertyDef(tx, companyID, slug)
	return o, d, err
}

func saveOrganizationValues(tx Tx, o *Organization, now time.Time) error {
	if len(o.Properties) == 0 {
		o.Properties = nil
	}
	o.UpdatedAt = now
	if err := tx.PutOrganization(o); err != nil {
		return err
	}
	return emit(tx, EventOrganizationUpdated, o.CompanyID, o.ID, now)
}

// OrganizationPropertyValue is one value of an organization as read, with
// its definition.
type OrganizationPropertyValue struct {
	Def   *PropertyDef
	Value string // as read: a dropdown's label
}

// OrganizationPropertyValues lists an organization's values in slug order;
// a value whose definition is gone is not shown.
func OrganizationPropertyValues(o *Organization, defs []PropertyDef) []OrganizationPropertyValue {
	out := []OrganizationPropertyValue{}
	for i := range defs {
		if v, ok := o.Properties[defs[i].Slug]; ok {
			out = append(out, OrganizationPropertyValue{Def: &defs[i], Value: defs[i].Text(v)})
		}
	}
	return out
}
