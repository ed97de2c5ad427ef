package pgstore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestCachedReadsFollowTheTransactionsWrites: a read of a record by key
// repeated in a transaction is answered without a statement, and a write
// of its table in between is seen by the next read, for each cached
// read.
func TestCachedReadsFollowTheTransactionsWrites(t *testing.T) {
	ctx := context.Background()
	url := migrated(t)
	statements := &pgtest.Recorder{}
	db, err := Open(ctx, url, Options{Tracer: statements})
	require.NoError(t, err)
	defer db.Close()

	company := &parley.Company{Name: "Acme"}
	user := &parley.User{FirstName: "Ann", Email: "ann@acme.test"}
	team := &parley.Team{Name: "Support"}
	mailbox := &parley.Mailbox{Name: "Help"}
	tag := &parley.Tag{Name: "vip"}
	customer := &parley.Customer{FirstName: "Bo", Emails: []parley.Entry{{Value: "bo@example.test", Type: "work"}}}
	org := &parley.Organization{Name: "Example"}
	conv := &parley.Conversation{Subject: "Hello", State: parley.StatePublished}
	_, err = db.Update(ctx, func(tx *Tx) error {
		if err := tx.PutCompany(company); err != nil {
			return err
		}
		user.CompanyID, team.CompanyID, mailbox.CompanyID, tag.CompanyID = company.ID, company.ID, company.ID, company.ID
		customer.CompanyID, org.CompanyID, conv.CompanyID = company.ID, company.ID, company.ID
		return allOf(tx.PutUser(user), tx.PutTeam(team), tx.PutMailbox(mailbox), tx.PutTag(tag), tx.PutCustomer(customer),
			tx.PutOrganization(org), tx.PutConversation(conv),
			tx.PutThread(&parley.Thread{CompanyID: company.ID, ConversationID: conv.ID, Body: "first"}))
	})
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		read  func(tx *Tx) (string, error)
		write func(tx *Tx) error
		after string
	}{
		{"company", func(tx *Tx) (string, error) {
			c, err := tx.Company(company.ID)
			return field(c, err, func(c *parley.Company) string { return c.Name })
		},
			func(tx *Tx) error { company.Name = "Acme 2"; return tx.PutCompany(company) }, "Acme 2"},
		{"user", func(tx *Tx) (string, error) {
			u, err := tx.User(company.ID, user.ID)
			return field(u, err, func(u *parley.User) string { return u.FirstName })
		},
			func(tx *Tx) error { user.FirstName = "Anna"; return tx.PutUser(user) }, "Anna"},
		{"team", func(tx *Tx) (string, error) {
			m, err := tx.Team(company.ID, team.ID)
			return field(m, err, func(m *parley.Team) string { return m.Name })
		},
			func(tx *Tx) error { team.Name = "Sales"; return tx.PutTeam(team) }, "Sales"},
		{"mailbox", func(tx *Tx) (string, error) {
			m, err := tx.Mailbox(company.ID, mailbox.ID)
			return field(m, err, func(m *parley.Mailbox) string { return m.Name })
		},
			func(tx *Tx) error { mailbox.Name = "Help 2"; return tx.PutMailbox(mailbox) }, "Help 2"},
		{"tag by name", func(tx *Tx) (string, error) {
			g, err := tx.TagByName(company.ID, "vip")
			return field(g, err, func(g *parley.Tag) string { return g.Name })
		},
			func(tx *Tx) error { tag.Name = "gold"; return tx.PutTag(tag) }, "not found"},
		{"customer by e-mail", func(tx *Tx) (string, error) {
			c, err := tx.CustomerByEmail(company.ID, "bo@example.test")
			return field(c, err, func(c *parley.Customer) string { return c.FirstName })
		}, func(tx *Tx) error {
			customer.FirstName = "Bob"
			return tx.PutCustomer(customer)
		}, "Bob"},
		{"organization", func(tx *Tx) (string, error) {
			o, err := tx.Organization(company.ID, org.ID)
			return field(o, err, func(o *parley.Organization) string { return o.Name })
		}, func(tx *Tx) error { org.Name = "Example 2"; return tx.PutOrganization(org) }, "Example 2"},
		{"conversation", func(tx *Tx) (string, error) {
			c, err := tx.Conversation(company.ID, conv.ID)
			return field(c, err, func(c *parley.Conversation) string { return c.Subject })
		}, func(tx *Tx) error { conv.Subject = "Hello again"; return tx.PutConversation(conv) }, "Hello again"},
		{"threads", func(tx *Tx) (string, error) {
			threads, err := tx.Threads(conv.CompanyID, conv.ID)
			var bodies []string
			for _, th := range threads {
				bodies = append(bodies, th.Body)
			}
			return strings.Join(bodies, ","), err
		}, func(tx *Tx) error {
			return tx.PutThread(&parley.Thread{CompanyID: company.ID, ConversationID: conv.ID, Body: "second"})
		}, "first,second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Update(ctx, func(tx *Tx) error {
				first, err := tc.read(tx)
				require.NoError(t, err)
				before := statements.Runs()
				again, err := tc.read(tx)
				require.NoError(t, err)
				assert.Equal(t, first, again)
				assert.Equal(t, before, statements.Runs(), "the repeated read runs no statement")
				require.NoError(t, tc.write(tx))
				after, err := tc.read(tx)
				if parley.IsNotFound(err) {
					after, err = "not found", nil
				}
				require.NoError(t, err)
				assert.Equal(t, tc.after, after, "the read after the write sees it")
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// TestEveryWriteNamesItsTable: the cache forgets a table's reads on the
// statements that name it written; every registered statement that writes
// names the tables it writes where writtenTable finds them.
func TestEveryWriteNamesItsTable(t *testing.T) {
	for _, sql := range Statements() {
		verb := strings.ToUpper(strings.Fields(sql)[0])
		if slices.Contains([]string{"INSERT", "UPDATE", "DELETE", "WITH"}, verb) {
			assert.NotEmpty(t, writtenTables(sql), sql)
		}
		if table, cached := cachedReads[sql]; cached {
			assert.True(t, slices.Contains(CompanyTables, table) || slices.Contains(ReferenceTables, table), sql)
		}
	}
}

func field[T any](rec *T, err error, f func(*T) string) (string, error) {
	if err != nil {
		return "", err
	}
	return f(rec), nil
}

func allOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
