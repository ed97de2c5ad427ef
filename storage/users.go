package storage

import (
	"fmt"

	parley "github.com/parley/parley"
)

// bucketUsersByV1Key maps the hash of a user's V1 API key to the user id.
var bucketUsersByV1Key = newBucket("users_by_v1key")

// User loads a user of a company.
func (t *Tx) User(companyID, id int64) (*parley.User, error) {
	return scoped(t, bucketUsers, id, func(u *parley.User) int64 { return u.CompanyID }, companyID, "user")
}

// UserByEmail finds a user by e-mail across companies (e-mails are unique).
func (t *Tx) UserByEmail(email string) (*parley.User, error) {
	return t.userUnder(bucketUsersByEmail, []byte(parley.NormalizeEmail(email)))
}

// UserByV1Key finds the user holding the V1 API key with this hash.
func (t *Tx) UserByV1Key(hash string) (*parley.User, error) {
	if hash == "" {
		return nil, parley.NotFound("user")
	}
	return t.userUnder(bucketUsersByV1Key, []byte(hash))
}

func (t *Tx) userUnder(bucket, k []byte) (*parley.User, error) {
	id := t.tx.Bucket(bucket).Get(k)
	if id == nil {
		return nil, parley.NotFound("user")
	}
	u := new(parley.User)
	if found, err := t.get(bucketUsers, id, u); err != nil {
		return nil, err
	} else if !found {
		return nil, parley.NotFound("user")
	}
	return u, nil
}

// PutUser stores a user with its e-mail and V1-key keys; the e-mail must be
// unused by another user.
func (t *Tx) PutUser(u *parley.User) error {
	email := []byte(parley.NormalizeEmail(u.Email))
	if err := t.assignOrKeepID(bucketIDSpace, &u.ID); err != nil {
		return err
	}
	if t.tx.Bucket(bucketTeams).Get(key(u.ID)) != nil {
		return fmt.Errorf("storage: user id %d is a team's", u.ID)
	}
	emails := t.tx.Bucket(bucketUsersByEmail)
	if owner := emails.Get(email); owner != nil && idOf(owner) != u.ID {
		return parley.UserEmailTaken()
	}
	old := new(parley.User)
	found, err := t.get(bucketUsers, key(u.ID), old)
	if err != nil {
		return err
	}
	if found && parley.NormalizeEmail(old.Email) != string(email) {
		if err := emails.Delete([]byte(parley.NormalizeEmail(old.Email))); err != nil {
			return err
		}
	}
	keys := t.tx.Bucket(bucketUsersByV1Key)
	if found && old.V1KeyHash != "" && old.V1KeyHash != u.V1KeyHash {
		if err := keys.Delete([]byte(old.V1KeyHash)); err != nil {
			return err
		}
	}
	if u.V1KeyHash != "" {
		if err := keys.Put([]byte(u.V1KeyHash), key(u.ID)); err != nil {
			return err
		}
	}
	if err := emails.Put(email, key(u.ID)); err != nil {
		return err
	}
	return t.put(bucketUsers, key(u.ID), u)
}

// Users lists a company's users in id order.
func (t *Tx) Users(companyID int64) ([]parley.User, error) {
	var out []parley.User
	err := each(t, bucketUsers, func(u *parley.User) error {
		if u.CompanyID == companyID {
			out = append(out, *u)
		}
		return nil
	})
	return out, err
}
