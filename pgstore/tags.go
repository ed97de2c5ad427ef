package pgstore

import parley "github.com/parley/parley"

var (
	sqlTag       = cachedStmt(`SELECT g.body FROM tags g WHERE g.company_id = $1 AND g.id = $2`)
	sqlTags      = stmt(`SELECT g.body FROM tags g WHERE g.company_id = $1 ORDER BY g.id`)
	sqlPutTag    = stmt(`INSERT INTO tags (company_id, id, body) VALUES ($1, $2, $3) ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlDeleteTag = stmt(`DELETE FROM tags g WHERE g.company_id = $1 AND g.id = $2`)

	sqlTagByName   = cachedStmt(`SELECT n.tag_id FROM tag_names n WHERE n.company_id = $1 AND n.name = $2`)
	sqlPutTagName  = stmt(`INSERT INTO tag_names (company_id, name, tag_id) VALUES ($1, $2, $3) ON CONFLICT (company_id, name) DO UPDATE SET tag_id = EXCLUDED.tag_id`)
	sqlDropTagName = stmt(`DELETE FROM tag_names n WHERE n.company_id = $1 AND n.name = $2`)

	sqlConversationsWithTag = stmt(`SELECT c.id FROM conversations c WHERE c.company_id = $1 AND NOT c.deleted AND $2 = ANY (c.tag_ids) ORDER BY c.id`)
)

// Tag loads a tag of a company.
func (t *Tx) Tag(companyID, id int64) (*parley.Tag, error) {
	return one[parley.Tag](t, "tag", sqlTag, companyID, id)
}

// TagByName finds a tag by its normalized name.
func (t *Tx) TagByName(companyID int64, name string) (*parley.Tag, error) {
	var id int64
	found, err := t.scan(sqlTagByName, []any{companyID, keyText(parley.NormalizeTagName(name))}, &id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("tag")
	}
	return t.Tag(companyID, id)
}

// Tags lists a company's tags in id order.
func (t *Tx) Tags(companyID int64) ([]parley.Tag, error) {
	return many[parley.Tag](t, sqlTags, companyID)
}

// PutTag stores a tag and its name key (the name as stored: domain rules
// store it normalized).
func (t *Tx) PutTag(x *parley.Tag) error {
	if err := t.assignID(seqTags, &x.ID); err != nil {
		return err
	}
	old, err := t.Tag(x.CompanyID, x.ID)
	if err != nil && !parley.IsNotFound(err) {
		return err
	}
	if err == nil && old.Name != x.Name {
		if err := t.exec(sqlDropTagName, x.CompanyID, keyText(old.Name)); err != nil {
			return err
		}
	}
	if err := t.exec(sqlPutTagName, x.CompanyID, keyText(x.Name), x.ID); err != nil {
		return err
	}
	return t.put(sqlPutTag, x, x.CompanyID, x.ID)
}

// DeleteTag removes a tag and its name key.
func (t *Tx) DeleteTag(x *parley.Tag) error {
	if err := t.exec(sqlDropTagName, x.CompanyID, keyText(x.Name)); err != nil {
		return err
	}
	return t.exec(sqlDeleteTag, x.CompanyID, x.ID)
}

// ConversationIDsWithTag lists the conversations of a company carrying a
// tag, in id order. It reads every conversation of the company: renaming
// or deleting a tag is rare.
func (t *Tx) ConversationIDsWithTag(companyID, tagID int64) ([]int64, error) {
	return t.ids(sqlConversationsWithTag, companyID, tagID)
}
