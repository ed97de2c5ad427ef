package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/importer"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/storage"
)

// conversationKeys maps a list answer to its conversations' natural keys
// (ids and numbers differ after an import), in the answer's order.
func conversationKeys(t *testing.T, body []byte) []string {
	t.Helper()
	var page struct {
		Embedded struct {
			Conversations []struct {
				ID, Number                 int64
				Subject, CreatedAt, Status string
			} `json:"conversations"`
			Customers []struct {
				ID                             int64
				FirstName, LastName, CreatedAt string
				Embedded                       struct {
					Emails []struct{ Value string } `json:"emails"`
				} `json:"_embedded"`
			} `json:"customers"`
		} `json:"_embedded"`
		Page struct{ TotalElements int } `json:"page"`
	}
	require.NoError(t, json.Unmarshal(body, &page))
	var out []string
	for _, c := range page.Embedded.Conversations {
		out = append(out, fmt.Sprintf("#%d n%d %s %s %s", c.ID, c.Number, c.CreatedAt, c.Subject, c.Status))
	}
	for _, c := range page.Embedded.Customers {
		key := fmt.Sprintf("#%d %s %s %s", c.ID, c.CreatedAt, c.FirstName, c.LastName)
		for _, e := range c.Embedded.Emails {
			key += " " + e.Value
		}
		out = append(out, key)
	}
	return out
}

// TestImportExportedDemo exports Acme's demo data through the API's own
// list pages, imports it into a directory holding only the account
// (company, users, teams, mailboxes), and finds the same records and
// search results; a second run imports nothing.
func TestImportExportedDemo(t *testing.T) {
	t.Parallel()
	src, dst := t.TempDir(), t.TempDir()
	a := serveDir(t, src, true, "")
	var export bytes.Buffer
	for _, list := range []string{"/v2/customers", "/v2/conversations?status=all&embed=threads"} {
		for _, body := range a.pages(t, list) {
			export.Write(body)
			export.WriteByte('\n')
		}
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	require.NoError(t, os.WriteFile(file, export.Bytes(), 0o600))
	wantLists := map[string][]string{}
	for _, q := range searches {
		var keys []string
		for _, body := range a.pages(t, q) {
			keys = append(keys, conversationKeys(t, body)...)
		}
		wantLists[q] = keys
	}

	// The account: an export holds no company, users or mailboxes.
	target, err := storage.Open(dbPath(dst), storage.Options{})
	require.NoError(t, err)
	require.NoError(t, a.in.bolt.View(func(tx *storage.Tx) error {
		c, err := tx.Company(1)
		if err != nil {
			return err
		}
		users, err := tx.Users(c.ID)
		if err != nil {
			return err
		}
		teams, err := tx.Teams(c.ID)
		if err != nil {
			return err
		}
		boxes, err := tx.Mailboxes(c.ID)
		if err != nil {
			return err
		}
		apps, err := tx.Apps()
		if err != nil {
			return err
		}
		_, err = target.Update(func(w *storage.Tx) error {
			if err := w.PutCompany(c); err != nil {
				return err
			}
			for i := range users {
				if err := w.PutUser(&users[i]); err != nil {
					return err
				}
			}
			for i := range teams {
				if err := w.PutTeam(&teams[i]); err != nil {
					return err
				}
			}
			for i := range boxes {
				if err := w.PutMailbox(&boxes[i]); err != nil {
					return err
				}
			}
			for i := range apps {
				if apps[i].CompanyID == c.ID {
					if err := w.PutApp(&apps[i]); err != nil {
						return err
					}
				}
			}
			return nil
		})
		return err
	}))
	require.NoError(t, target.Close())
	a.stop()

	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"import", "--data", dst, file}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "failed: 0", out.String())
	assert.NotContains(t, out.String(), "conversations: 0 created")
	assert.Contains(t, out.String(), "storage file compacted: ")
	// The import compacted the storage file (a new file) and then saved
	// the list rows marked with it: the next start restores them.
	stored, err := storage.Open(dbPath(dst), storage.Options{})
	require.NoError(t, err)
	_, restored, damaged, err := lists.Open(stored, dbPath(dst), listsPath(dst), listProjection)
	require.NoError(t, errors.Join(err, damaged))
	assert.True(t, restored, "the snapshot names the compacted file")
	require.NoError(t, stored.Close())
	out.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"import", "--data", dst, "--company", "1", file}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "customers: 0 created")
	assert.Contains(t, out.String(), "conversations: 0 created (0 threads)")

	b := serveDir(t, dst, false, "")
	for _, q := range searches {
		var keys []string
		for _, body := range b.pages(t, q) {
			keys = append(keys, conversationKeys(t, body)...)
		}
		// Ids, numbers and creation times are kept: the same lists, in the
		// same order.
		assert.Equal(t, wantLists[q], keys, q)
	}
}

// TestImportCountsJunkAsFailed: a line that is no record is counted as
// failed with its line number and why, creates nothing, and the command
// exits 1 after importing the rest.
func TestImportCountsJunkAsFailed(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"init", "--data", dir, "--company", "Initech", "--owner", "bill@initech.test"}, &out, &errs), errs.String())
	file := filepath.Join(t.TempDir(), "export.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(`{"firstName":"Ada","_embedded":{"emails":[{"value":"ada@example.com"}]}}
{"garbage": true}
{"firstName":"Cy","_embedded":{"emails":[{"value":"cy@example.com"}]}}
`), 0o600))
	out.Reset()
	errs.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"import", "--data", dir, file}, &out, &errs))
	assert.Contains(t, out.String(), "customers: 2 created, 0 already there\n")
	assert.Contains(t, out.String(), "failed: 1\n  line 2: neither a conversation (subject or _embedded.threads), a customer "+
		"(firstName, lastName or _embedded entries) nor a list page of them (_embedded.conversations or _embedded.customers): {\"garbage\": true}\n")
	assert.Contains(t, errs.String(), "1 of the export's records failed (listed above)")
}

// TestImportRefusedRecordCostsOnlyItself: records are written many to a
// transaction, and a record the domain refuses fails alone. Among five
// conversations: one in no mailbox and one with no threads are refused;
// the one with no threads has a twin with threads after it, which is
// written (the refused one is no earlier copy of it); the last repeats the
// first and is skipped. Exactly the two good ones are stored.
func TestImportRefusedRecordCostsOnlyItself(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"init", "--data", dir, "--company", "Initech", "--owner", "bill@initech.test"}, &out, &errs), errs.String())
	conversation := func(id, mailbox int, subject string, threads int) string {
		list := make([]string, threads)
		for i := range list {
			list[i] = fmt.Sprintf(`{"id":%d,"type":"customer","body":"Hello %d","createdAt":"2025-01-0%dT10:00:00Z","customer":{"email":"ada@example.com"}}`, id*10+i, i, i+1)
		}
		return fmt.Sprintf(`{"id":%d,"number":%d,"subject":%q,"type":"email","status":"active","mailboxId":%d,"createdAt":"2025-01-01T10:00:00Z",`+
			`"primaryCustomer":{"email":"ada@example.com"},"_embedded":{"threads":[%s]}}`, id, id, subject, mailbox, strings.Join(list, ","))
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join([]string{
		conversation(1, 1, "Refund", 2),
		conversation(2, 9, "Lost", 1),
		conversation(3, 1, "Twin", 0),
		conversation(4, 1, "Twin", 1),
		conversation(5, 1, "Refund", 2),
	}, "\n")), 0o600))
	out.Reset()
	errs.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"import", "--data", dir, file}, &out, &errs))
	assert.Contains(t, out.String(), "conversations: 2 created (3 threads), 1 already there\nfailed: 2\n"+
		"  conversation 2: Bad request; mailboxId: no mailbox with this id\n"+
		"  conversation 3: no threads to import\n")

	stored, err := storage.Open(dbPath(dir), storage.Options{})
	require.NoError(t, err)
	defer stored.Close()
	var subjects []string
	require.NoError(t, stored.Store().View(context.Background(), func(tx parley.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			subjects = append(subjects, fmt.Sprintf("%d %s %d", c.ID, c.Subject, c.ThreadCount))
			return nil
		})
	}))
	assert.Equal(t, []string{"1 Refund 2", "4 Twin 1"}, subjects)
}

// TestImportKilledHalfway: a load killed halfway leaves a directory that
// serves what it holds, never an index that answers other than storage.
// Half of an export's conversations are committed as parley import commits
// them, then the process "dies" (storage is closed as a kill leaves it:
// committed, the index not told); the next start must find exactly those
// conversations, in agreement with the scan oracle rebuilt from storage,
// and an empty outbox. The second case dies later, while the index was
// being built from storage: its partitions are there but it was never
// marked built.
func TestImportKilledHalfway(t *testing.T) {
	for _, tc := range []struct {
		name string
		kill func(t *testing.T, dir string)
	}{
		{"after the storage writes", func(*testing.T, string) {}},
		{"while building the index", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(indexPath(dir), "VERSION")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var out, errs bytes.Buffer
			require.Equal(t, 0, run(context.Background(), []string{"init", "--data", dir, "--company", "Initech", "--owner", "bill@initech.test"}, &out, &errs), errs.String())
			started, err := open(context.Background(), location{dir: dir}, false, fixedClock{}, quietLog(), nil)
			require.NoError(t, err) // a first start builds the index and marks it
			require.NoError(t, started.close())
			var lines []string
			for i := 1; i <= 40; i++ {
				lines = append(lines, fmt.Sprintf(`{"id":%d,"number":%d,"subject":"crash import %d","type":"email","status":"active","mailboxId":1,`+
					`"createdAt":"2025-01-01T10:00:00Z","primaryCustomer":{"email":"c%d@example.com"},"_embedded":{"threads":[`+
					`{"id":%d,"type":"customer","body":"Order %d lost","createdAt":"2025-01-01T10:00:00Z","customer":{"email":"c%d@example.com"}}]}}`,
					i, i, i, i, i*10, i, i))
			}
			export, err := importer.Read(strings.NewReader(strings.Join(lines, "\n")))
			require.NoError(t, err)
			export.Conversations = export.Conversations[:20] // killed halfway

			db, err := storage.Open(dbPath(dir), storage.Options{})
			require.NoError(t, err)
			sum, err := importer.Run(db.Store(), export, importer.Options{CompanyID: 1, Now: fixedClock{}.Now})
			require.NoError(t, err)
			require.Equal(t, 20, sum.ConversationsCreated)
			require.NoError(t, db.Close())
			tc.kill(t, dir)

			compareIndexWithStorage(t, dir)
			in, err := open(context.Background(), location{dir: dir}, false, fixedClock{}, quietLog(), nil)
			require.NoError(t, err)
			defer in.close()
			depth, err := in.bolt.OutboxDepth()
			require.NoError(t, err)
			assert.Equal(t, 0, depth, "the index holds everything storage does")
		})
	}
}
