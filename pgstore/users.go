package pgstore

import (
	"fmt"

	parley "github.com/parley/parley"
)

var (
	sqlUser    = cachedStmt(`SELECT u.body FROM users u WHERE u.company_id = $1 AND u.id = $2`)
	sqlUsers   = stmt(`SELECT u.body FROM users u WHERE u.company_id = $1 ORDER BY u.id`)
	sqlPutUser = stmt(`INSERT INTO users (company_id, id, body) VALUES ($1, $2, $3)
ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)

	sqlUserByEmail   = stmt(`SELECT e.company_id, e.user_id FROM user_emails e WHERE e.email = $1`)
	sqlPutUserEmail  = stmt(`INSERT INTO user_emails (email, company_id, user_id) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING`)
	sqlDropUserEmail = stmt(`DELETE FROM user_emails e WHERE e.email = $1`)
	sqlUserByV1Key   = stmt(`SELECT k.company_id, k.user_id FROM user_v1_keys k WHERE k.key_hash = $1`)
	sqlPutUserV1Key  = stmt(`INSERT INTO user_v1_keys (key_hash, company_id, user_id) VALUES ($1, $2, $3)
ON CONFLICT (key_hash) DO UPDATE SET company_id = EXCLUDED.company_id, user_id = EXCLUDED.user_id`)
	sqlDropUserV1Key = stmt(`DELETE FROM user_v1_keys k WHERE k.key_hash = $1`)

	sqlTeam    = cachedStmt(`SELECT m.body FROM teams m WHERE m.company_id = $1 AND m.id = $2`)
	sqlTeams   = stmt(`SELECT m.body FROM teams m WHERE m.company_id = $1 ORDER BY m.id`)
	sqlPutTeam = stmt(`INSERT INTO teams (company_id, id, body) VALUES ($1, $2, $3)
ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
)

// User loads a user of a company.
func (t *Tx) User(companyID, id int64) (*parley.User, error) {
	return one[parley.User](t, "user", sqlUser, companyID, id)
}

// Users lists a company's users in id order.
func (t *Tx) Users(companyID int64) ([]parley.User, error) {
	return many[parley.User](t, sqlUsers, companyID)
}

// UserByEmail finds a user by e-mail across companies (e-mails are unique).
func (t *Tx) UserByEmail(email string) (*parley.User, error) {
	return t.userUnder(sqlUserByEmail, keyText(parley.NormalizeEmail(email)))
}

// UserByV1Key finds the user holding the V1 API key with this hash.
func (t *Tx) UserByV1Key(hash string) (*parley.User, error) {
	if hash == "" {
		return nil, parley.NotFound("user")
	}
	return t.userUnder(sqlUserByV1Key, hash)
}

func (t *Tx) userUnder(sql, key string) (*parley.User, error) {
	var company, id int64
	found, err := t.scan(sql, []any{key}, &company, &id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("user")
	}
	return t.User(company, id)
}

// PutUser stores a user with its e-mail and V1-key keys; the e-mail must be
// unused by another user (of any company).
func (t *Tx) PutUser(u *parley.User) error {
	email := keyText(parley.NormalizeEmail(u.Email))
	if err := t.sharedID(&u.ID, u.CompanyID, sqlTeamTaken, "user", "team"); err != nil {
		return err
	}
	var holderCompany, holder int64
	taken, err := t.scan(sqlUserByEmail, []any{email}, &holderCompany, &holder)
	if err != nil {
		return err
	}
	if taken && holder != u.ID {
		return parley.UserEmailTaken()
	}
	old, err := t.User(u.CompanyID, u.ID)
	found := err == nil
	if err != nil && !parley.IsNotFound(err) {
		return err
	}
	if found && keyText(parley.NormalizeEmail(old.Email)) != email {
		if err := t.exec(sqlDropUserEmail, keyText(parley.NormalizeEmail(old.Email))); err != nil {
			return err
		}
	}
	if found && old.V1KeyHash != "" && old.V1KeyHash != u.V1KeyHash {
		if err := t.exec(sqlDropUserV1Key, old.V1KeyHash); err != nil {
			return err
		}
	}
	if u.V1KeyHash != "" {
		if err := t.exec(sqlPutUserV1Key, u.V1KeyHash, u.CompanyID, u.ID); err != nil {
			return err
		}
	}
	if err := t.exec(sqlPutUserEmail, email, u.CompanyID, u.ID); err != nil {
		return err
	}
	return t.put(sqlPutUser, u, u.CompanyID, u.ID)
}

// Team loads a team of a company.
func (t *Tx) Team(companyID, id int64) (*parley.Team, error) {
	return one[parley.Team](t, "team", sqlTeam, companyID, id)
}

// Teams lists a company's teams in id order.
func (t *Tx) Teams(companyID int64) ([]parley.Team, error) {
	return many[parley.Team](t, sqlTeams, companyID)
}

// PutTeam stores a team, assigning an id when ID is 0.
func (t *Tx) PutTeam(x *parley.Team) error {
	if err := t.sharedID(&x.ID, x.CompanyID, sqlUserTaken, "team", "user"); err != nil {
		return err
	}
	return t.put(sqlPutTeam, x, x.CompanyID, x.ID)
}

var (
	sqlTeamTaken = stmt(`SELECT 1 FROM teams t WHERE t.company_id = $1 AND t.id = $2`)
	sqlUserTaken = stmt(`SELECT 1 FROM users u WHERE u.company_id = $1 AND u.id = $2`)
)

// sharedID gives a user or team its id in the id space they share: the
// next one when *id is 0, else the sequence moves past the kept id (as the
// embedded store does), which must not be the other kind's (otherTaken
// finds it in the company).
func (t *Tx) sharedID(id *int64, company int64, otherTaken, kind, other string) error {
	if *id == 0 {
		return t.assignID(seqUsers, id)
	}
	if err := t.keepSequencePast(seqUsers, *id); err != nil {
		return err
	}
	var one int
	taken, err := t.scan(otherTaken, []any{company, *id}, &one)
	if err != nil {
		return err
	}
	if taken {
		return fmt.Errorf("pgstore: %s id %d is a %s's", kind, *id, other)
	}
	return nil
}
