package main

import (
	"context"
	"fmt"
	"time"

	parley "github.com/parley/parley"
)

// setupWorld stores the bench's companies, users, mailboxes (each with a
// number custom field and a chat widget), customers and access tokens.
// The customers go in transactions of customersPerWrite: one transaction
// of all of them (600,000 at 1M) builds their search documents for
// longer than a PostgreSQL node lets a transaction idle.
func setupWorld(db parley.Store, companies, customersPer int, now time.Time) (*world, error) {
	w := newWorld()
	for ci := 0; ci < companies; ci++ {
		var company int64
		_, err := db.Update(context.Background(), func(tx parley.Tx) error {
			c := &parley.Company{Name: fmt.Sprint("Bench ", ci+1), Plan: parley.PlanPro, APIEnabled: true, PaymentOK: true, CreatedAt: now}
			if err := tx.PutCompany(c); err != nil {
				return err
			}
			company = c.ID
			w.companies = append(w.companies, c.ID)
			for ui := 0; ui < 6; ui++ {
				u := &parley.User{CompanyID: c.ID, FirstName: fmt.Sprint("Agent", ui), LastName: fmt.Sprint("C", ci), Email: fmt.Sprintf("agent%d@bench%d.test", ui, ci),
					Role: parley.RoleAdmin, Active: true, CanChat: true, CreatedAt: now}
				if ui == 0 {
					u.Role = parley.RoleOwner
				}
				if err := tx.PutUser(u); err != nil {
					return err
				}
				w.addUser(u)
				if u.Role == parley.RoleOwner {
					token := &parley.Token{Hash: parley.HashToken(w.tokens[c.ID]), CompanyID: c.ID, UserID: u.ID, ExpiresAt: now.Add(30 * 24 * time.Hour)}
					if err := tx.PutToken(token); err != nil {
						return err
					}
				}
			}
			for mi := 0; mi < 3; mi++ {
				m := &parley.Mailbox{CompanyID: c.ID, Name: fmt.Sprintf("Box %d-%d", ci+1, mi+1), Widgets: []string{fmt.Sprintf("widget-%d-%d", ci+1, mi+1)},
					Fields: []parley.FieldDef{{Name: "Order value", Type: parley.FieldNumber}}, CreatedAt: now}
				for _, t := range parley.SystemFolders {
					m.Folders = append(m.Folders, parley.Folder{Name: string(t), Type: t})
				}
				if err := tx.PutMailbox(m); err != nil {
					return err
				}
				w.addMailbox(*m)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for first := 0; first < customersPer; first += customersPerWrite {
			_, err := db.Update(context.Background(), func(tx parley.Tx) error {
				for k := first; k < min(first+customersPerWrite, customersPer); k++ {
					email := customerEmail(ci, k)
					cu := &parley.Customer{CompanyID: company, FirstName: fmt.Sprint("Cust", k), LastName: fmt.Sprint("Omer", k%500),
						Emails: []parley.Entry{{Value: email, Type: "work"}}, CreatedAt: now, UpdatedAt: now}
					if err := tx.PutCustomer(cu); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			for k := first; k < min(first+customersPerWrite, customersPer); k++ {
				w.customers[company] = append(w.customers[company], customerEmail(ci, k))
			}
		}
	}
	return w, nil
}

// customersPerWrite is how many customers setupWorld stores per
// transaction.
const customersPerWrite = 2000

func newWorld() *world {
	return &world{mailboxes: map[int64][]parley.Mailbox{}, users: map[int64][]int64{}, owners: map[int64]int64{}, tokens: map[int64]string{},
		customers: map[int64][]string{}, numberFld: map[int64]int64{},
		tags: []string{"vip", "refund", "spam", "shipping", "bug", "billing", "urgent", "feature request", "needs review", "gdpr"}}
}

// benchToken is the access token of a company's owner.
func benchToken(company int64) string { return fmt.Sprintf("bench-token-%d", company) }

// customerEmail is the e-mail of the k-th customer of the ci-th company.
func customerEmail(ci, k int) string {
	return fmt.Sprintf("customer%06d.c%d@example%d.test", k, ci, k%97)
}

// addUser records a user of the world: every user but the first of the
// store among the assignees, the owner with the company's token.
func (w *world) addUser(u *parley.User) {
	if u.ID > 1 {
		w.users[u.CompanyID] = append(w.users[u.CompanyID], u.ID)
	}
	if u.Role == parley.RoleOwner {
		w.owners[u.CompanyID] = u.ID
		w.tokens[u.CompanyID] = benchToken(u.CompanyID)
	}
}

// addMailbox records a mailbox of the world with its number field.
func (w *world) addMailbox(m parley.Mailbox) {
	w.mailboxes[m.CompanyID] = append(w.mailboxes[m.CompanyID], m)
	w.numberFld[m.ID] = m.Fields[0].ID
}
