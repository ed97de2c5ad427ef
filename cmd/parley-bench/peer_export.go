package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// csvFile writes one peer table's CSV file.
type csvFile struct {
	table *peerTable
	file  *os.File
	buf   *bufio.Writer
	w     *csv.Writer
}

func (f *csvFile) row(values ...string) error {
	f.table.rows++
	return f.w.Write(values)
}

func (f *csvFile) close() error {
	f.w.Flush()
	err := f.w.Error()
	if ferr := f.buf.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// exportTables writes what Parley stored, read back from storage, as one
// CSV file per peer table in dir: the peer holds exactly the data Parley
// holds, ids included, so query 10 reads the same conversation in both.
func exportTables(db *storage.DB, dir string) ([]*peerTable, error) {
	specs := []struct {
		name string
		cols []string
	}{
		{"customers", []string{"company_id", "id", "first_name", "last_name", "created_at"}},
		{"customer_emails", []string{"company_id", "customer_id", "email"}},
		{"tags", []string{"company_id", "id", "name"}},
		{"conversation_load", []string{"company_id", "id", "number", "type", "mailbox_id", "status", "subject", "assignee_id",
			"customer_id", "created_at", "modified_at", "closed_at", "tag_ids", "thread_count", "preview", "body"}},
		{"conversation_fields", []string{"company_id", "conversation_id", "field_id", "value"}},
		{"threads", []string{"company_id", "id", "conversation_id", "type", "body", "customer_id", "created_by", "created_at"}},
		{"chats", []string{"company_id", "id", "mailbox_id", "assignee_id", "created_at", "ended_at", "wait_seconds",
			"response_seconds", "duration_seconds", "messages", "missed", "completed"}},
	}
	var tables []*peerTable
	files := map[string]*csvFile{}
	var err error
	for _, s := range specs {
		t := &peerTable{name: s.name, cols: s.cols, path: peerPath(dir, s.name)}
		tables = append(tables, t)
		f, ferr := os.Create(t.path)
		if ferr != nil {
			err = ferr
			break
		}
		buf := bufio.NewWriterSize(f, 1<<20)
		files[s.name] = &csvFile{table: t, file: f, buf: buf, w: csv.NewWriter(buf)}
	}
	if err == nil {
		err = db.View(func(tx *storage.Tx) error { return exportRows(tx, files) })
	}
	for _, f := range files {
		err = errors.Join(err, f.close())
	}
	return tables, err
}

func exportRows(tx *storage.Tx, files map[string]*csvFile) error {
	companies, err := tx.Companies()
	if err != nil {
		return err
	}
	for _, co := range companies {
		tags, err := tx.Tags(co.ID)
		if err != nil {
			return err
		}
		for _, t := range tags {
			if err := files["tags"].row(csvID(co.ID), csvID(t.ID), t.Name); err != nil {
				return err
			}
		}
	}
	err = tx.EachCustomer(func(cu *parley.Customer) error {
		if err := files["customers"].row(csvID(cu.CompanyID), csvID(cu.ID), cu.FirstName, cu.LastName, csvTime(cu.CreatedAt)); err != nil {
			return err
		}
		for _, e := range cu.Emails {
			if err := files["customer_emails"].row(csvID(cu.CompanyID), csvID(cu.ID), parley.NormalizeEmail(e.Value)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := tx.EachConversation(func(c *parley.Conversation) error { return exportConversation(tx, files, c) }); err != nil {
		return err
	}
	type chat struct {
		company int64
		id      string
	}
	var chats []chat
	if err := tx.EachChatID(func(company int64, id string) { chats = append(chats, chat{company, id}) }); err != nil {
		return err
	}
	for _, ch := range chats {
		c, err := tx.Chat(ch.company, ch.id)
		if err != nil {
			return err
		}
		if err := exportChat(files["chats"], c); err != nil {
			return err
		}
	}
	return nil
}

// exportConversation writes a conversation, its threads and its custom
// field values; its body is the text of the threads Parley's body field
// holds (published or draft, not line items).
func exportConversation(tx *storage.Tx, files map[string]*csvFile, c *parley.Conversation) error {
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return err
	}
	var bodies []string
	for _, t := range threads {
		if t.Type == parley.ThreadLineItem || t.State != parley.ThreadPublished && t.State != parley.ThreadDraft {
			continue
		}
		bodies = append(bodies, t.Body)
		if err := files["threads"].row(csvID(c.CompanyID), csvID(t.ID), csvID(c.ID), string(t.Type), t.Body,
			csvID(t.CustomerID), csvID(t.CreatedBy.ID), csvTime(t.CreatedAt)); err != nil {
			return err
		}
	}
	assignee, closed := "", ""
	if c.Assignee != nil {
		assignee = csvID(c.Assignee.ID)
	}
	if c.ClosedAt != nil {
		closed = csvTime(*c.ClosedAt)
	}
	tagIDs := make([]string, len(c.TagIDs))
	for i, id := range c.TagIDs {
		tagIDs[i] = strconv.FormatInt(id, 10)
	}
	if err := files["conversation_load"].row(csvID(c.CompanyID), csvID(c.ID), strconv.FormatInt(c.Number, 10), string(c.Type),
		csvID(c.MailboxID), string(c.Status), c.Subject, assignee, csvID(c.CustomerID), csvTime(c.CreatedAt), csvTime(c.ModifiedAt),
		closed, "{"+strings.Join(tagIDs, ",")+"}", strconv.Itoa(c.ThreadCount), c.Preview, strings.Join(bodies, "\n\n")); err != nil {
		return err
	}
	for _, f := range c.CustomFields {
		if err := files["conversation_fields"].row(csvID(c.CompanyID), csvID(c.ID), csvID(f.ID), f.Value); err != nil {
			return err
		}
	}
	return nil
}

// exportChat writes a chat with the figures the chat report counts.
func exportChat(f *csvFile, c *parley.Chat) error {
	seconds := func(d interface{ Seconds() float64 }, ok bool) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	}
	ended := ""
	if c.EndedAt != nil {
		ended = csvTime(*c.EndedAt)
	}
	wait, waitOK := c.WaitTime()
	response, responseOK := c.ResponseTime()
	duration, durationOK := c.Duration()
	return f.row(csvID(c.CompanyID), c.ID, csvID(c.MailboxID), csvID(c.AssigneeID), csvTime(c.CreatedAt), ended,
		seconds(wait, waitOK), seconds(response, responseOK), seconds(duration, durationOK), strconv.Itoa(c.Messages()),
		fmt.Sprint(c.Missed()), fmt.Sprint(c.EndedAt != nil && c.Answered()))
}
