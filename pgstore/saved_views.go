package pgstore

import parley "github.com/parley/parley"

var (
	sqlSavedView    = stmt(`SELECT v.body FROM saved_views v WHERE v.company_id = $1 AND v.id = $2`)
	sqlSavedViews   = stmt(`SELECT v.body FROM saved_views v WHERE v.company_id = $1 ORDER BY v.id`)
	sqlPutSavedView = stmt(`INSERT INTO saved_views (company_id, id, body) VALUES ($1, $2, $3)
ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlDeleteSavedView = stmt(`DELETE FROM saved_views v WHERE v.company_id = $1 AND v.id = $2`)
)

var _ parley.SavedViewStore = (*Tx)(nil)

// SavedView loads a company's view.
func (t *Tx) SavedView(companyID, id int64) (*parley.SavedView, error) {
	return one[parley.SavedView](t, "view", sqlSavedView, companyID, id)
}

// SavedViews lists a company's views in id order.
func (t *Tx) SavedViews(companyID int64) ([]parley.SavedView, error) {
	return many[parley.SavedView](t, sqlSavedViews, companyID)
}

// PutSavedView stores a view; a new one takes its id from the sequence
// folders and fields share, so `folder=` never names a folder and a view.
func (t *Tx) PutSavedView(v *parley.SavedView) error {
	if err := t.assignID(seqItems, &v.ID); err != nil {
		return err
	}
	return t.put(sqlPutSavedView, v, v.CompanyID, v.ID)
}

// DeleteSavedView removes a view.
func (t *Tx) DeleteSavedView(v *parley.SavedView) error {
	return t.exec(sqlDeleteSavedView, v.CompanyID, v.ID)
}
