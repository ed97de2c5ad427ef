package storage

import (
	"bytes"
	"crypto/rand"

	parley "github.com/parley/parley"
)

// PropertyDefs lists a company's customer property definitions in slug order.
func (t *Tx) PropertyDefs(companyID int64) ([]parley.PropertyDef, error) {
	var out []parley.PropertyDef
	prefix := key(companyID)
	c := t.tx.Bucket(bucketCustomerProperties).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		d := new(parley.PropertyDef)
		if _, err := t.get(bucketCustomerProperties, k, d); err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, nil
}

// PutPropertyDef stores a new property definition, assigning ids to it and
// its options. A slug already defined in the company is a Conflict.
func (t *Tx) PutPropertyDef(d *parley.PropertyDef) error {
	k := keyStr(d.CompanyID, d.Slug)
	if t.tx.Bucket(bucketCustomerProperties).Get(k) != nil {
		return &parley.Error{Kind: parley.KindConflict, Message: "Conflict", Errors: []parley.FieldError{{
			Path: "slug", Code: parley.CodeConflict, Message: "a customer property with this slug exists", RejectedValue: d.Slug, Source: "JSON"}}}
	}
	id, err := t.nextID(bucketCustomerProperties)
	if err != nil {
		return err
	}
	d.ID = id
	for i := range d.Options {
		n, err := t.tx.Bucket(bucketSequences).NextSequence()
		if err != nil {
			return err
		}
		d.Options[i].ID = int64(n)
	}
	return t.put(bucketCustomerProperties, k, d)
}

// DeletePropertyDef removes a company's definition of a slug.
func (t *Tx) DeletePropertyDef(companyID int64, slug string) error {
	return t.tx.Bucket(bucketCustomerProperties).Delete(keyStr(companyID, slug))
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
