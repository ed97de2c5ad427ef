package pgstore

import (
	"fmt"

	parley "github.com/parley/parley"
)

var _ parley.CopyStore = (*Tx)(nil)

// familySequences maps each id family to the sequence that draws its ids.
var familySequences = map[parley.IDFamily]string{
	parley.FamilyCompanies:              seqCompanies,
	parley.FamilyUsers:                  seqUsers,
	parley.FamilyMailboxes:              seqMailboxes,
	parley.FamilyItems:                  seqItems,
	parley.FamilySavedReplies:           seqSavedReplies,
	parley.FamilyCustomers:              seqCustomers,
	parley.FamilyCustomerProperties:     seqCustomerProperties,
	parley.FamilyOrganizations:          seqOrganizations,
	parley.FamilyOrganizationProperties: seqOrganizationProperties,
	parley.FamilyTags:                   seqTags,
	parley.FamilyConversations:          seqConversations,
	parley.FamilyThreads:                seqThreads,
	parley.FamilyRatings:                seqRatings,
	parley.FamilyAttachments:            seqAttachments,
	parley.FamilyWebhooks:               seqWebhooks,
	parley.FamilyDeliveries:             seqDeliveries,
	parley.FamilyMail:                   seqMail,
	parley.FamilyWorkflows:              seqWorkflows,
	parley.FamilyWorkflowRuns:           seqWorkflowRuns,
}

// KeepIDsPast moves a family's sequence to at least id.
func (t *Tx) KeepIDsPast(family parley.IDFamily, id int64) error {
	sequence, ok := familySequences[family]
	if !ok {
		return fmt.Errorf("pgstore: no sequence for id family %q", family)
	}
	return t.keepSequencePast(sequence, id)
}

var sqlCredentials = stmt(`SELECT c.body FROM credentials c WHERE c.kind = $1 ORDER BY c.key COLLATE "C"`)

// Credentials lists the OAuth records of every company, each kind in key
// order.
func (t *Tx) Credentials() (*parley.Credentials, error) {
	c := &parley.Credentials{}
	var err error
	if c.Apps, err = t.Apps(); err != nil {
		return nil, err
	}
	if c.Grants, err = many[parley.Grant](t, sqlCredentials, credGrant); err != nil {
		return nil, err
	}
	if c.AuthCodes, err = many[parley.AuthCode](t, sqlCredentials, credAuthCode); err != nil {
		return nil, err
	}
	if c.Tokens, err = many[parley.Token](t, sqlCredentials, credToken); err != nil {
		return nil, err
	}
	if c.RefreshTokens, err = many[parley.RefreshToken](t, sqlCredentials, credRefreshToken); err != nil {
		return nil, err
	}
	if c.V1Exchanges, err = many[parley.V1Exchange](t, sqlCredentials, credV1Exchange); err != nil {
		return nil, err
	}
	c.Sessions, err = many[parley.Session](t, sqlCredentials, credSession)
	return c, err
}
