package storage

import (
	"bytes"
	"crypto/rand"

	parley "github.com/parley/parley"
)

// PropertyDefs lists a company's customer property definitions in slug order.
func (t *Tx) PropertyDefs(companyID int64) ([]parley.PropertyDef, error) {
	return t.propertyDefs(bucketCustomerProperties, companyID)
}

// PutPropertyDef stores a new property definition, assigning ids to it and
// its options. A slug already defined in the company is a Conflict.
func (t *Tx) PutPropertyDef(d *parley.PropertyDef) error {
	return t.putPropertyDef(bucketCustomerProperties, d, true, &parley.CustomerProperties)
}

// DeletePropertyDef removes a company's definition of a slug.
func (t *Tx) DeletePropertyDef(companyID int64, slug string) error {
	return t.tx.Bucket(bucketCustomerProperties).Delete(keyStr(companyID, slug))
}

// propertyDefs lists a company's definitions of a bucket in slug order.
func (t *Tx) propertyDefs(bucket []byte, companyID int64) ([]parley.PropertyDef, error) {
	var out []parley.PropertyDef
	prefix := key(companyID)
	c := t.tx.Bucket(bucket).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		d := new(parley.PropertyDef)
		if _, err := t.get(bucket, k, d); err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, nil
}

// putPropertyDef stores a definition keyed by company and slug, assigning
// an id when new (a slug already defined is then a Conflict) and ids to
// options without one.
func (t *Tx) putPropertyDef(bucket []byte, d *parley.PropertyDef, isNew bool, kind *parley.PropertyKind) error {
	k := keyStr(d.CompanyID, d.Slug)
	if isNew && t.tx.Bucket(bucket).Get(k) != nil {
		return parley.PropertySlugTaken(kind, d.Slug)
	}
	if isNew { // a new definition with its id (a copy) keeps it
		if err := t.assignOrKeepID(bucket, &d.ID); err != nil {
			return err
		}
	}
	for i := range d.Options {
		if d.Options[i].ID != 0 {
			continue
		}
		n, err := t.tx.Bucket(bucketSequences).NextSequence()
		if err != nil {
			return err
		}
		d.Options[i].ID = int64(n)
	}
	return t.put(bucket, k, d)
}

// CursorKey returns the key that signs customer list cursors, or nil when
// none was made yet (see MakeCursorKey).
func (t *Tx) CursorKey() []byte {
	if v := t.tx.Bucket(bucketCustomerSecrets).Get([]byte("cursor")); v != nil {
		return append([]byte(nil), v...)
	}
	return nil
}

// MakeCursorKey stores a random cursor key unless one exists, and returns
// the stored one.
func (t *Tx) MakeCursorKey() ([]byte, error) {
	if k := t.CursorKey(); k != nil {
		return k, nil
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, t.tx.Bucket(bucketCustomerSecrets).Put([]byte("cursor"), k)
}
