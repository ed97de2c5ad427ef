package indexer

import (
	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
)

// ChatDocument builds the document of a company's chat (company 0:
// whatever its company, see conversationOf): what the chat report needs.
func ChatDocument(tx parley.Tx, companyID int64, id string) (doc index.Document, ok bool, err error) {
	var c *parley.Chat
	if companyID == 0 {
		c, err = tx.ChatByID(id)
	} else {
		c, err = tx.Chat(companyID, id)
	}
	if parley.IsNotFound(err) {
		return doc, false, nil
	}
	if err != nil {
		return doc, false, err
	}
	d := index.NewDocument(c.ID, c.CompanyID)
	n, k := d.Numbers, d.Keywords
	n["createdAt"] = []float64{index.Millis(c.CreatedAt)}
	n["mailboxId"] = []float64{float64(c.MailboxID)}
	if c.AssigneeID != 0 {
		n["assigneeId"] = []float64{float64(c.AssigneeID)}
	}
	if c.EndedAt != nil {
		n["endedAt"] = []float64{index.Millis(*c.EndedAt)}
	}
	if c.ConversationID != 0 {
		n["conversationId"] = []float64{float64(c.ConversationID)}
		if conv, err := tx.Conversation(c.CompanyID, c.ConversationID); err == nil {
			n["folderId"] = []float64{float64(conv.FolderID)}
		}
	}
	if w, ok := c.WaitTime(); ok {
		n["waitSeconds"] = []float64{w.Seconds()}
	}
	if r, ok := c.ResponseTime(); ok {
		n["responseSeconds"] = []float64{r.Seconds()}
	}
	if du, ok := c.Duration(); ok {
		n["durationSeconds"] = []float64{du.Seconds()}
	}
	n["messages"] = []float64{float64(c.Messages())}
	addOfficeTimes(tx, c, n)
	k["ended"] = []string{boolString(c.EndedAt != nil)}
	k["missed"] = []string{boolString(c.Missed())}
	k["completed"] = []string{boolString(c.EndedAt != nil && c.Answered())}
	k["integration"] = []string{boolString(c.Integration != "")}
	for _, t := range c.Tags {
		k["tag"] = append(k["tag"], t.Slug)
	}
	return d, true, nil
}

// addOfficeTimes stores the chat's times counted in the company's office
// hours, when the company has them.
func addOfficeTimes(tx parley.Tx, c *parley.Chat, n map[string][]float64) {
	company, err := tx.Company(c.CompanyID)
	if err != nil || !company.OfficeHours.Enabled {
		return
	}
	office := company.OfficeHours
	if c.AcceptedAt != nil {
		n["waitOfficeSeconds"] = []float64{office.Duration(c.CreatedAt, *c.AcceptedAt).Seconds()}
	}
	if r, ok := c.ResponseTime(); ok {
		first := c.FirstVisitorMessage()
		n["responseOfficeSeconds"] = []float64{office.Duration(first, first.Add(r)).Seconds()}
	}
	if c.EndedAt != nil {
		n["durationOfficeSeconds"] = []float64{office.Duration(c.CreatedAt, *c.EndedAt).Seconds()}
	}
}
