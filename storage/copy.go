package storage

import (
	"fmt"

	parley "github.com/parley/parley"
)

var _ parley.CopyStore = (*Tx)(nil)

// familyBuckets maps each id family to the bucket whose sequence draws
// its ids.
var familyBuckets = map[parley.IDFamily][]byte{
	parley.FamilyCompanies:              bucketCompanies,
	parley.FamilyUsers:                  bucketIDSpace,
	parley.FamilyMailboxes:              bucketMailboxes,
	parley.FamilyItems:                  bucketSequences,
	parley.FamilySavedReplies:           bucketSavedReplies,
	parley.FamilyCustomers:              bucketCustomers,
	parley.FamilyCustomerProperties:     bucketCustomerProperties,
	parley.FamilyOrganizations:          bucketOrganizations,
	parley.FamilyOrganizationProperties: bucketOrgProperties,
	parley.FamilyTags:                   bucketTags,
	parley.FamilyConversations:          bucketConversations,
	parley.FamilyThreads:                bucketThreads,
	parley.FamilyRatings:                bucketRatings,
	parley.FamilyAttachments:            bucketAttachments,
	parley.FamilyWebhooks:               bucketWebhooks,
	parley.FamilyDeliveries:             bucketDeliveries,
	parley.FamilyMail:                   bucketMail,
	parley.FamilyWorkflows:              bucketWorkflows,
	parley.FamilyWorkflowRuns:           bucketWorkflowRuns,
}

// KeepIDsPast moves a family's sequence to at least id.
func (t *Tx) KeepIDsPast(family parley.IDFamily, id int64) error {
	bucket, ok := familyBuckets[family]
	if !ok {
		return fmt.Errorf("storage: no sequence for id family %q", family)
	}
	return keepSequencePast(t.tx.Bucket(bucket), id)
}

// Credentials lists the OAuth records of every company, each kind in key
// order.
func (t *Tx) Credentials() (*parley.Credentials, error) {
	c := &parley.Credentials{}
	var err error
	if c.Apps, err = t.Apps(); err != nil {
		return nil, err
	}
	if c.Grants, err = all[parley.Grant](t, bucketGrants); err != nil {
		return nil, err
	}
	if c.AuthCodes, err = all[parley.AuthCode](t, bucketAuthCodes); err != nil {
		return nil, err
	}
	if c.Tokens, err = all[parley.Token](t, bucketTokens); err != nil {
		return nil, err
	}
	if c.RefreshTokens, err = all[parley.RefreshToken](t, bucketRefreshTokens); err != nil {
		return nil, err
	}
	if c.V1Exchanges, err = all[parley.V1Exchange](t, bucketV1Exchanges); err != nil {
		return nil, err
	}
	c.Sessions, err = all[parley.Session](t, bucketSessions)
	return c, err
}

// all decodes every value of bucket, in key order.
func all[T any](t *Tx, bucket []byte) ([]T, error) {
	var out []T
	err := each(t, bucket, func(rec *T) error { out = append(out, *rec); return nil })
	return out, err
}
