package main

import (
	"context"
	"fmt"
	"time"

	parley "github.com/parley/parley"
)

// openWorld reads back the world setupWorld stored in a data directory an
// earlier run loaded (-reuse), with that run's clock: the companies' time
// of creation, which setupWorld set to the run's now. The generator is
// replayed up to the first recent conversation of the first company, the
// only thing of the world the load itself chose (query 8's customer).
// A 1M load takes hours; reusing one lets a run measure the queries, the
// restart and the PostgreSQL peer on the same data again.
func openWorld(db parley.Store, n int) (*world, time.Time, error) {
	w := newWorld()
	var now time.Time
	err := db.View(context.Background(), func(tx parley.Tx) error {
		companies, err := tx.Companies()
		if err != nil {
			return err
		}
		if len(companies) == 0 {
			return fmt.Errorf("-reuse: the data directory holds no companies: it was not loaded by parley-bench")
		}
		now = companies[0].CreatedAt.UTC()
		customersPer := max(n/5, 50)
		for ci, c := range companies {
			if c.Name != fmt.Sprint("Bench ", ci+1) {
				return fmt.Errorf("-reuse: company %d is %q, not one parley-bench made", c.ID, c.Name)
			}
			w.companies = append(w.companies, c.ID)
			users, err := tx.Users(c.ID)
			if err != nil {
				return err
			}
			for i := range users {
				w.addUser(&users[i])
			}
			boxes, err := tx.Mailboxes(c.ID)
			if err != nil {
				return err
			}
			for _, m := range boxes {
				w.addMailbox(m)
			}
			for k := 0; k < customersPer; k++ {
				w.customers[c.ID] = append(w.customers[c.ID], customerEmail(ci, k))
			}
		}
		return nil
	})
	if err != nil {
		return nil, now, err
	}
	c := newCorpus(corpusSeed, corpusWords)
	for i := 0; i < n && w.recent == ""; i++ {
		c.conversation(w, i, now, benchSpan)
	}
	return w, now, nil
}
