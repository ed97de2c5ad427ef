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
	"errors"
	"fmt"
	"io"
	"strings"
)

// Export is a decoded export file.
type Export struct {
	Customers     []Customer
	Conversations []Conversation
	// Rejected are the documents that are none of the records an export
	// holds, or do not decode as one; an import counts them as failed.
	Rejected []Rejected
}

// Rejected is a document of the export that is not imported, with the line
// it starts on and why.
type Rejected struct {
	Line   int
	Reason string
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
	// Rating is the customer's satisfaction rating of a reply.
	Rating   *Rating `json:"rating"`
	Embedded struct {
		Attachments []Attachment `json:"attachments"`
	} `json:"_embedded"`
}

// Attachment is a thread's attachment as rendered, with its file in Data
// (Base64), as the attachment data endpoint answers it; one without Data
// is not imported.
type Attachment struct {
	ID       int64  `json:"id"`
	FileName string `json:"filename"`
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

// Rating is a reply's rating as rendered.
type Rating struct {
	Rating    string `json:"rating"`
	Comments  string `json:"comments"`
	CreatedAt string `json:"createdAt"`
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
// `_embedded.customers` are taken item by item; anything else is Rejected
// with its line. Only text that is not JSON at all stops the reading (the
// decoder cannot resume after it), with the line where it is.
func Read(r io.Reader) (*Export, error) {
	lines := &lineCounter{r: r}
	dec := json.NewDecoder(bufio.NewReader(lines))
	dec.UseNumber()
	e := &Export{}
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return e, nil
		}
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			return nil, fmt.Errorf("importer: line %d: %w", lines.line(syntax.Offset-1), err)
		case err != nil:
			return nil, fmt.Errorf("importer: line %d: %w", lines.line(dec.InputOffset()), err)
		}
		e.add(raw, lines.line(dec.InputOffset()-int64(len(raw))), "")
	}
}

// A document is a conversation when it has one of conversationKeys, a
// customer when it has one of customerKeys (as the API renders them).
const (
	conversationKeys = "subject or _embedded.threads"
	customerKeys     = "firstName, lastName or _embedded entries"
)

// add sorts one document, which starts on line, into the export; item
// names its place in the list page it came from ("" for a document of its
// own).
func (e *Export) add(raw json.RawMessage, line int, item string) {
	reject := func(reason string) { e.Rejected = append(e.Rejected, Rejected{Line: line, Reason: item + reason}) }
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		e.addArray(raw, line, item)
		return
	}
	if len(raw) == 0 || raw[0] != '{' {
		reject("not a JSON object: " + abbreviate(raw))
		return
	}
	var probe struct {
		Subject   json.RawMessage `json:"subject"`
		FirstName json.RawMessage `json:"firstName"`
		LastName  json.RawMessage `json:"lastName"`
		Embedded  struct {
			Conversations  []json.RawMessage `json:"conversations"`
			Customers      []json.RawMessage `json:"customers"`
			Threads        json.RawMessage   `json:"threads"`
			Emails         json.RawMessage   `json:"emails"`
			Phones         json.RawMessage   `json:"phones"`
			Chats          json.RawMessage   `json:"chats"`
			SocialProfiles json.RawMessage   `json:"social_profiles"`
			Websites       json.RawMessage   `json:"websites"`
		} `json:"_embedded"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		reject(err.Error())
		return
	}
	em := probe.Embedded
	switch {
	case em.Conversations != nil || em.Customers != nil:
		for i, it := range em.Conversations {
			e.add(it, line, fmt.Sprintf("conversation %d of the list page: ", i+1))
		}
		for i, it := range em.Customers {
			e.add(it, line, fmt.Sprintf("customer %d of the list page: ", i+1))
		}
	case probe.Subject != nil || em.Threads != nil:
		var c Conversation
		if err := json.Unmarshal(raw, &c); err != nil {
			reject("conversation: " + err.Error())
			return
		}
		e.Conversations = append(e.Conversations, c)
	case probe.FirstName != nil || probe.LastName != nil || em.Emails != nil || em.Phones != nil || em.Chats != nil ||
		em.SocialProfiles != nil || em.Websites != nil:
		var c Customer
		if err := json.Unmarshal(raw, &c); err != nil {
			reject("customer: " + err.Error())
			return
		}
		e.Customers = append(e.Customers, c)
	default:
		reject("neither a conversation (" + conversationKeys + "), a customer (" + customerKeys +
			") nor a list page of them (_embedded.conversations or _embedded.customers): " + abbreviate(raw))
	}
}

// addArray adds the items of a JSON array, each with the line it starts on.
func (e *Export) addArray(raw json.RawMessage, line int, item string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // [
		e.Rejected = append(e.Rejected, Rejected{Line: line, Reason: item + err.Error()})
		return
	}
	for dec.More() {
		var it json.RawMessage
		if err := dec.Decode(&it); err != nil {
			e.Rejected = append(e.Rejected, Rejected{Line: line, Reason: item + err.Error()})
			return
		}
		start := int(dec.InputOffset()) - len(it)
		e.add(it, line+bytes.Count(raw[:start], []byte("\n")), item)
	}
}

// abbreviate quotes the start of a document for a message.
func abbreviate(raw []byte) string {
	const most = 60
	if len(raw) > most {
		return string(raw[:most]) + "..."
	}
	return string(raw)
}

// lineCounter passes an export through and notes where its lines end, so
// that the decoder's offsets become line numbers.
type lineCounter struct {
	r     io.Reader
	read  int64   // bytes passed through
	ends  []int64 // offsets of the newlines not yet counted by line
	lines int     // newlines counted
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.ends = append(l.ends, l.read+int64(i))
		}
	}
	l.read += int64(n)
	return n, err
}

// line returns the 1-based line of a byte offset; offsets asked for must
// not decrease.
func (l *lineCounter) line(offset int64) int {
	for len(l.ends) > 0 && l.ends[0] < offset {
		l.ends = l.ends[1:]
		l.lines++
	}
	return l.lines + 1
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
