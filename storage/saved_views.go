package storage

import parley "github.com/parley/parley"

// bucketSavedViews keys saved views by (company id, view id), so a
// company's views are one prefix.
var bucketSavedViews = newBucket("saved_views")

var _ parley.SavedViewStore = (*Tx)(nil)

// SavedView loads a company's view.
func (t *Tx) SavedView(companyID, id int64) (*parley.SavedView, error) {
	v := new(parley.SavedView)
	found, err := t.get(bucketSavedViews, key2(companyID, id), v)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("view")
	}
	return v, nil
}

// SavedViews lists a company's views in id order.
func (t *Tx) SavedViews(companyID int64) ([]parley.SavedView, error) {
	return prefixed[parley.SavedView](t, bucketSavedViews, key(companyID))
}

// PutSavedView stores a view; a new one takes its id from the sequence
// folders and fields share, so `folder=` never names a folder and a view.
func (t *Tx) PutSavedView(v *parley.SavedView) error {
	if v.ID == 0 {
		n, err := t.tx.Bucket(bucketSequences).NextSequence()
		if err != nil {
			return err
		}
		v.ID = int64(n)
	}
	return t.put(bucketSavedViews, key2(v.CompanyID, v.ID), v)
}

// DeleteSavedView removes a view.
func (t *Tx) DeleteSavedView(v *parley.SavedView) error {
	return t.tx.Bucket(bucketSavedViews).Delete(key2(v.CompanyID, v.ID))
}
