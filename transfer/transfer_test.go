package transfer

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/storage"
)

var clock = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// notCopied are the writes of records a copy leaves behind on purpose,
// with why.
var notCopied = map[string]string{
	// A pull's map of source ids and its last run belong to the database
	// the pull wrote: a pull into a copied company matches by natural keys.
	"PutPulledID": "the pulls' id map",
	"PutLastPull": "the pulls' last runs",
}

// TestEveryPutIsCopied fails when the store seam gains a Put method no
// kind copies: a new kind of record must be added to kinds (or, left
// behind on purpose, to notCopied).
func TestEveryPutIsCopied(t *testing.T) {
	copied := map[string]bool{}
	for put := range notCopied {
		copied[put] = true
	}
	for _, k := range kinds {
		for _, put := range k.writes() {
			copied[put] = true
		}
	}
	tx := reflect.TypeFor[parley.Tx]()
	for i := range tx.NumMethod() {
		name := tx.Method(i).Name
		if strings.HasPrefix(name, "Put") {
			assert.True(t, copied[name], "parley.Tx.%s stores records that parley copy does not copy: add their kind to transfer's kinds", name)
		}
		delete(copied, name)
	}
	assert.Empty(t, copied, "kinds name writes parley.Tx does not have")
}

// TestCopy copies the demo, with a record of every kind the demo lacks,
// between two embedded stores: every kind is copied (none is empty), the
// copy compares the same as its source, ids drawn later lie past the
// copied ones, and a second copy into the same target is refused.
func TestCopy(t *testing.T) {
	from, to := openStore(t), openStore(t)
	require.NoError(t, fixtures.Load(from.Store(), clock))
	const company = 1
	addEveryKind(t, from.Store(), company)

	require.NoError(t, Copy(from.Store(), to.Store(), []int64{company}))
	counts, err := Compare(from.Store(), to.Store(), company)
	require.NoError(t, err)
	for _, c := range counts {
		assert.True(t, c.Same, "%s differ: %d in the source, %d in the target", c.Kind, c.Source, c.Target)
		assert.NotZero(t, c.Source, "the test copies no %s: add one to addEveryKind", c.Kind)
	}

	var most int64
	require.NoError(t, from.Store().View(context.Background(), func(tx parley.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error { most = max(most, c.ID); return nil })
	}))
	_, err = to.Store().Update(context.Background(), func(tx parley.Tx) error {
		c := &parley.Conversation{CompanyID: company, MailboxID: 1, Subject: "after the copy", CreatedAt: clock}
		if err := tx.PutConversation(c); err != nil {
			return err
		}
		assert.Greater(t, c.ID, most, "a new conversation's id lies past the copied ones")
		return nil
	})
	require.NoError(t, err)
	_, err = to.Store().Update(context.Background(), func(tx parley.Tx) error {
		tag, err := tx.TagByName(company, "vip")
		if err != nil {
			return err
		}
		tag.Color = "#000000"
		return tx.PutTag(tag)
	})
	require.NoError(t, err)
	counts, err = Compare(from.Store(), to.Store(), company)
	require.NoError(t, err)
	differ := map[string]Count{}
	for _, c := range counts {
		if !c.Same {
			differ[c.Kind] = c
		}
	}
	assert.Equal(t, map[string]Count{
		"conversations": {Company: company, Kind: "conversations", Source: 479, Target: 480},
		"tags":          {Company: company, Kind: "tags", Source: 13, Target: 13},
	}, differ, "a record added and one changed after the copy")

	err = Copy(from.Store(), to.Store(), []int64{company})
	assert.True(t, errors.Is(err, ErrTargetNotEmpty), "a second copy: %v", err)
	assert.ErrorContains(t, err, "company 1 (")
}

// TestCopyRefusesTakenIDs: a target holding another company with one of
// the copied conversation ids is refused before anything is written.
func TestCopyRefusesTakenIDs(t *testing.T) {
	from, to := openStore(t), openStore(t)
	require.NoError(t, fixtures.Load(from.Store(), clock))
	_, err := to.Store().Update(context.Background(), func(tx parley.Tx) error {
		if err := tx.PutCompany(&parley.Company{ID: 99, Name: "Other", CreatedAt: clock}); err != nil {
			return err
		}
		return tx.PutConversation(&parley.Conversation{ID: 1, CompanyID: 99, MailboxID: 1, Subject: "theirs", CreatedAt: clock})
	})
	require.NoError(t, err)
	err = Copy(from.Store(), to.Store(), []int64{1})
	assert.True(t, errors.Is(err, ErrTargetNotEmpty), "%v", err)
	assert.ErrorContains(t, err, "conversations copied, 1,")
	require.NoError(t, to.Store().View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.Company(1)
		assert.True(t, parley.IsNotFound(err), "nothing was written")
		return nil
	}))
}

func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// addEveryKind stores, in the company, a record of each kind the demo
// has none of.
func addEveryKind(t *testing.T, s parley.Store, company int64) {
	t.Helper()
	_, err := s.Update(context.Background(), func(tx parley.Tx) error {
		var conv *parley.Conversation
		err := tx.EachConversation(func(c *parley.Conversation) error {
			if c.CompanyID == company {
				conv = c
				return parley.ErrStop
			}
			return nil
		})
		if err != nil {
			return err
		}
		threads, err := tx.Threads(conv.CompanyID, conv.ID)
		if err != nil {
			return err
		}
		th := threads[0]
		file := &parley.Attachment{CompanyID: company, ConversationID: conv.ID, ThreadID: th.ID, FileName: "a.txt", MimeType: "text/plain",
			Size: 3, State: parley.AttachmentOK, CreatedAt: clock}
		hook := &parley.Webhook{CompanyID: company, URL: "https://hooks.example/x", Events: []string{"convo.created"}, Secret: "s",
			State: parley.WebhookEnabled, CreatedAt: clock}
		flows, err := tx.Workflows(company)
		if err != nil || len(flows) == 0 {
			return errors.Join(err, errors.New("the demo has no workflow"))
		}
		var chats []string
		if err := tx.EachChatID(func(_ int64, id string) { chats = append(chats, id) }); err != nil {
			return err
		}
		var chat *parley.Chat
		for _, id := range chats {
			if c, err := tx.Chat(company, id); err == nil {
				chat = c
				break
			}
		}
		if chat == nil {
			return errors.New("the demo has no chat")
		}
		event := parley.Event{Kind: "convo.created", CompanyID: company, ResourceID: "1", At: clock}
		grant := parley.Grant{ID: "grant-1", ClientID: "client-1", CompanyID: company, UserID: 1, CreatedAt: clock}
		for _, put := range []func() error{
			func() error { return tx.PutAttachment(file, []byte("abc")) },
			func() error { th.Attachments = append(th.Attachments, file.ID); return tx.PutThread(&th) },
			func() error { return tx.PutThreadSource(th.CompanyID, th.ID, []byte("From: a@example.com\r\n\r\nhi")) },
			func() error {
				return tx.PutMail(&parley.Mail{CompanyID: company, MailboxID: conv.MailboxID, ConversationID: conv.ID, Kind: "reply",
					MessageID: "m@example.com", Status: "sent", CreatedAt: clock})
			},
			func() error {
				return tx.PutLater(parley.LaterItem{CompanyID: company, Kind: parley.LaterSnooze, ID: conv.ID, ConversationID: conv.ID, At: clock.Add(time.Hour)})
			},
			func() error { return tx.PutWebhook(hook) },
			func() error { return tx.PutDelivery(parley.NewDelivery(hook, event, []byte(`{}`), clock)) },
			func() error {
				return tx.PutWorkflowRun(&parley.WorkflowRun{CompanyID: company, WorkflowID: flows[0].ID, ConversationID: conv.ID, At: clock})
			},
			func() error { return tx.PutEvent(event) },
			func() error {
				return tx.PutTimelineEntry(chat.CompanyID, chat.ID, parley.TimelineEntry{Type: "page-viewed", Timestamp: clock,
					URL: "https://shop.example.com/", Title: "Shop"})
			},
			func() error {
				return tx.PutPropertyDef(&parley.PropertyDef{CompanyID: company, Slug: "plan", Name: "Plan", Type: "dropdown",
					Options: []parley.PropertyOption{{Label: "Gold"}}, CreatedAt: clock})
			},
			func() error { return tx.PutGrant(&grant) },
			func() error {
				return tx.PutToken(&parley.Token{Hash: "token", ClientID: "client-1", CompanyID: company, UserID: 1, ExpiresAt: clock, GrantID: grant.ID})
			},
			func() error {
				return tx.PutAuthCode(&parley.AuthCode{Hash: "code", ClientID: "client-1", CompanyID: company, UserID: 1, ExpiresAt: clock})
			},
			func() error {
				return tx.PutRefreshToken(&parley.RefreshToken{Hash: "refresh", GrantID: grant.ID, ClientID: "client-1", ExpiresAt: clock})
			},
			func() error {
				return tx.PutV1Exchange(&parley.V1Exchange{KeyHash: "key", ClientID: "client-1", Salt: "s", GrantID: grant.ID, ExpiresAt: clock})
			},
			func() error {
				return tx.PutSession(&parley.Session{Hash: "session", CompanyID: company, UserID: 1, ExpiresAt: clock})
			},
		} {
			if err := put(); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
}
