// Package importer loads a Help Scout-shaped export (conversations with
// their `_embedded.threads`, customers with their entries, as the list and
// get endpoints of this API family render them) into a Parley company.
//
// Records go through the domain rules (parley.CreateCustomer and
// parley.CreateConversation with imported: true), so an import sends no
// e-mail, fires no webhook or auto-reply and reopens nothing; dates, tags
// and custom fields are kept. A re-run skips what is already there:
// customers by e-mail, conversations by mailbox, creation time, subject
// and customer.
package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Export is a decoded export file.
type Export struct {
	Customers     []Customer
	Conversations []Conversation
}

// Person is a user, team or customer reference as rendered.
type Person struct {
	ID    int64  `json:"id"`
	Type  string `json:"type"`
	First string `json:"first"`
	Last  string `json:"last"`
	Email string `json:"email"`
}

// Thread is a rendered thread.
type Thread struct {
	ID        int64    `json:"id"`
	Type      string   `json:"type"`
	State     string   `json:"state"`
	Body      string   `json:"body"`
	CreatedBy Person   `json:"createdBy"`
	Customer  *Person  `json:"customer"`
	CreatedAt string   `json:"createdAt"`
	To        []string `json:"to"`
	CC        []string `json:"cc"`
	BCC       []string `json:"bcc"`
}

// Conversation is a rendered conversation with its threads.
type Conversation struct {
	ID              int64   `json:"id"`
	Number          int64   `json:"number"`
	Type            string  `json:"type"`
	Status          string  `json:"status"`
	State           string  `json:"state"`
	Subject         string  `json:"subject"`
	MailboxID       int64   `json:"mailboxId"`
	CreatedAt       string  `json:"createdAt"`
	ClosedAt        string  `json:"closedAt"`
	Assignee        *Person `json:"assignee"`
	CreatedBy       Person  `json:"createdBy"`
	PrimaryCustomer Person  `json:"primaryCustomer"`
	Tags            []struct {
		Tag string `json:"tag"`
	} `json:"tags"`
	CustomFields []struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Value string `json:"value"`
		Text  string `json:"text"`
	} `json:"customFields"`
	Embedded struct {
		Threads []Thread `json:"threads"`
	} `json:"_embedded"`
}

// Entry is a customer's e-mail, phone, chat handle, social profile or website.
type Entry struct {
	Type  string `json:"type,omitempty"`
	Value string `json:"value"`
}

// Customer is a rendered customer with its entries.
type Customer struct {
	ID           int64  `json:"id"`
	FirstName    string `json:"firstName"`
	LastName     string `json:"lastName"`
	PhotoURL     string `json:"photoUrl"`
	PhotoType    string `json:"photoType"`
	JobTitle     string `json:"jobTitle"`
	Background   string `json:"background"`
	Location     string `json:"location"`
	Organization string `json:"organization"`
	Gender       string `json:"gender"`
	Age          string `json:"age"`
	CreatedAt    string `json:"createdAt"`
	Embedded     struct {
		Emails         []Entry `json:"emails"`
		Phones         []Entry `json:"phones"`
		Chats          []Entry `json:"chats"`
		SocialProfiles []Entry `json:"social_profiles"`
		Websites       []Entry `json:"websites"`
		Address        *struct {
			City       string   `json:"city"`
			State      string   `json:"state"`
			PostalCode string   `json:"postalCode"`
			Country    string   `json:"country"`
			Lines      []string `json:"lines"`
		} `json:"address"`
		Properties []struct {
			Slug  string  `json:"slug"`
			Value *string `json:"value"`
		} `json:"properties"`
	} `json:"_embedded"`
}

// Read decodes an export: JSON lines or one JSON array (or a mix of
// documents one after another). Each document is a conversation, a
// customer, or a HAL list page whose `_embedded.conversations` and
// `_embedded.customers` are taken item by item.
func Read(r io.Reader) (*Export, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	dec.UseNumber()
	e := &Export{}
	for n := 1; ; n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return e, nil
		} else if err != nil {
			return nil, fmt.Errorf("importer: document %d: %w", n, err)
		}
		if err := e.add(raw); err != nil {
			return nil, fmt.Errorf("importer: document %d: %w", n, err)
		}
	}
}

func (e *Export) add(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return err
		}
		for _, it := range items {
			if err := e.add(it); err != nil {
				return err
			}
		}
		return nil
	}
	var probe struct {
		Subject  *string `json:"subject"`
		Embedded struct {
			Conversations []json.RawMessage `json:"conversations"`
			Customers     []json.RawMessage `json:"customers"`
			Threads       json.RawMessage   `json:"threads"`
		} `json:"_embedded"`
		Page json.RawMessage `json:"page"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return err
	}
	switch {
	case probe.Embedded.Conversations != nil || probe.Embedded.Customers != nil:
		for _, it := range append(probe.Embedded.Conversations, probe.Embedded.Customers...) {
			if err := e.add(it); err != nil {
				return err
			}
		}
	case probe.Subject != nil || probe.Embedded.Threads != nil:
		var c Conversation
		if err := json.Unmarshal(raw, &c); err != nil {
			return fmt.Errorf("conversation: %w", err)
		}
		e.Conversations = append(e.Conversations, c)
	default:
		var c Customer
		if err := json.Unmarshal(raw, &c); err != nil {
			return fmt.Errorf("customer: %w", err)
		}
		e.Customers = append(e.Customers, c)
	}
	return nil
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
