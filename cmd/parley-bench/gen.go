package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	parley "github.com/parley/parley"
)

// corpus is the bench's text: a vocabulary of tens of thousands of
// generated words drawn with a Zipf law (as real mail is), plus the words
// and phrases of support mail at realistic rates.
type corpus struct {
	r     *rand.Rand
	words []string
	zipf  *rand.Zipf
}

var syllables = strings.Fields("ka lo mi ne ra su te vi po da fe gu hi jo ba ce do ki lu ma no pe ri sa to ve wi xa yo za an el in on un ar er ir or ur")

// supportPhrases appear in bodies at fixed rates, so queries on them have
// known selectivity.
var supportPhrases = []struct {
	text string
	rate float64
}{
	{"please refund my order", 0.08}, {"the tracking number does not work", 0.05}, {"I filed a chargeback with my bank", 0.01},
	{"my password reset email never arrived", 0.04}, {"the invoice shows the wrong amount", 0.04}, {"cancel my subscription", 0.03},
}

func newCorpus(seed uint64, size int) *corpus {
	r := rand.New(rand.NewPCG(seed, 7))
	seen := map[string]bool{}
	c := &corpus{r: r}
	for len(c.words) < size {
		n := 2 + r.IntN(3)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			c.words = append(c.words, w)
		}
	}
	c.zipf = rand.NewZipf(r, 1.07, 2, uint64(size-1))
	return c
}

func (c *corpus) word() string { return c.words[c.zipf.Uint64()] }

func (c *corpus) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.word()
	}
	return strings.Join(ws, " ")
}

func (c *corpus) body() string {
	var parts []string
	for _, p := range supportPhrases {
		if c.r.Float64() < p.rate {
			parts = append(parts, p.text)
		}
	}
	parts = append(parts, c.sentence(20+c.r.IntN(100)))
	c.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return strings.Join(parts, ". ") + "."
}

var subjects = []string{"Refund request", "Where is my order", "Password reset", "Invoice question", "Cancel subscription",
	"Login problem", "Damaged item", "Shipping delay", "Feature request", "Billing error", "API error", "Refunded twice"}

// world is the bench's accounts: ids the generator refers to.
type world struct {
	companies []int64
	mailboxes map[int64][]parley.Mailbox
	users     map[int64][]int64
	owners    map[int64]int64
	tokens    map[int64]string
	customers map[int64][]string // e-mails
	numberFld map[int64]int64    // a number custom field per mailbox
	tags      []string
	recent    string // a customer of the first company with a conversation in the last 30 days, for query 8
}

// conversation builds the request of conversation i and returns the time
// of its last thread: the moment a store that lived through its history
// last wrote it.
func (c *corpus) conversation(w *world, i int, now time.Time, span time.Duration) (int64, *parley.NewConversation, time.Time) {
	company := w.companies[i%len(w.companies)]
	boxes := w.mailboxes[company]
	m := boxes[c.r.IntN(len(boxes))]
	created := now.Add(-time.Duration(c.r.Int64N(int64(span))))
	email := w.customers[company][c.r.IntN(len(w.customers[company]))]
	if w.recent == "" && company == w.companies[0] && now.Sub(created) < 30*24*time.Hour {
		w.recent = email
	}
	statuses := []string{"active", "active", "pending", "closed", "closed", "closed"}
	types := []string{"email", "email", "email", "email", "phone", "chat"}
	n := &parley.NewConversation{
		Subject:   parley.Ptr(fmt.Sprintf("%s %s", subjects[c.r.IntN(len(subjects))], c.sentence(3))),
		Type:      parley.Ptr(types[c.r.IntN(len(types))]),
		MailboxID: &m.ID,
		Status:    parley.Ptr(statuses[c.r.IntN(len(statuses))]),
		Customer:  &parley.CustomerInput{Email: &email},
		Imported:  true,
		CreatedAt: parley.Ptr(parley.FormatTime(created)),
	}
	var closed time.Time
	if *n.Status == "closed" {
		closed = created.Add(time.Duration(1+c.r.IntN(72)) * time.Hour)
		n.ClosedAt = parley.Ptr(parley.FormatTime(closed))
	}
	if users := w.users[company]; c.r.IntN(3) > 0 {
		n.AssignTo = parley.Nullable[int64]{Set: true, Value: users[c.r.IntN(len(users))]}
	} else {
		n.AssignTo = parley.Nullable[int64]{Set: true, Null: true}
	}
	for k := 0; k < c.r.IntN(3); k++ {
		n.Tags = append(n.Tags, w.tags[c.zipfTag()])
	}
	if fid, ok := w.numberFld[m.ID]; ok && c.r.IntN(2) == 0 {
		n.Fields = []parley.FieldValueInput{{ID: &fid, Value: parley.Ptr(fmt.Sprint(c.r.IntN(20) * 50))}}
	}
	threads := 1 + c.r.IntN(6)
	at, last := created, created
	for t := 0; t < threads; t++ {
		kind := "customer"
		if t%2 == 1 {
			kind = "reply"
		}
		if t == 0 && *n.Type == "phone" {
			kind = "phone"
		}
		n.Threads = append(n.Threads, parley.NewThread{Type: parley.Ptr(kind), Text: parley.Ptr(c.body()),
			CreatedAt: parley.Ptr(parley.FormatTime(at))})
		last = at
		at = at.Add(time.Duration(5+c.r.IntN(600)) * time.Minute)
	}
	if closed.After(last) {
		last = closed
	}
	if last.After(now) {
		last = now
	}
	return company, n, last
}

func (c *corpus) zipfTag() int {
	v := int(c.r.ExpFloat64() * 2)
	return min(v, 9)
}
