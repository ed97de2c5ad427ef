package transfer

import (
	parley "github.com/parley/parley"
)

// conversation is a conversation with everything stored under it: its
// threads, the raw messages they came in as, their attachments with
// their bytes, and its outgoing e-mail.
type conversation struct {
	Conversation parley.Conversation
	Threads      []parley.Thread
	Sources      []threadSource
	Attachments  []attachment
	Mail         []parley.Mail
}

type threadSource struct {
	ThreadID int64
	Raw      []byte
}

type attachment struct {
	Attachment parley.Attachment
	Data       []byte // nil for a file not kept (found malicious)
}

var conversations = &kind[int64, conversation]{
	name:  "conversations",
	puts:  []string{"PutConversation", "PutThread", "PutThreadSource", "PutAttachment", "PutMail"},
	keys:  conversationIDs,
	load:  loadConversation,
	put:   putConversation,
	mark:  markConversation,
	parts: conversationParts,
	taken: parley.Tx.ConversationIDTaken,
}

// conversationIDs lists the company's conversations, deleted ones too.
func conversationIDs(tx parley.Tx, company int64) ([]int64, error) {
	var ids []int64
	err := tx.EachConversation(func(c *parley.Conversation) error {
		if c.CompanyID == company {
			ids = append(ids, c.ID)
		}
		return nil
	})
	return ids, err
}

func loadConversation(tx parley.Tx, company, id int64) (conversation, error) {
	var out conversation
	c, err := tx.Conversation(company, id)
	if err != nil {
		return out, err
	}
	out.Conversation = *c
	if out.Threads, err = tx.Threads(company, id); err != nil {
		return out, err
	}
	for _, th := range out.Threads {
		raw, err := tx.ThreadSource(company, th.ID)
		switch {
		case err == nil:
			out.Sources = append(out.Sources, threadSource{th.ID, raw})
		case !parley.IsNotFound(err):
			return out, err
		}
		for _, a := range th.Attachments {
			file, err := loadAttachment(tx, company, a)
			if err != nil {
				return out, err
			}
			out.Attachments = append(out.Attachments, file)
		}
	}
	out.Mail, err = tx.ConversationMail(company, id)
	return out, err
}

func loadAttachment(tx parley.Tx, company, id int64) (attachment, error) {
	a, err := tx.Attachment(company, id)
	if err != nil {
		return attachment{}, err
	}
	data, err := tx.AttachmentData(company, id)
	if parley.IsNotFound(err) {
		data, err = nil, nil
	}
	return attachment{*a, data}, err
}

func putConversation(tx parley.Tx, c *conversation) error {
	if err := tx.PutConversation(&c.Conversation); err != nil {
		return err
	}
	for i := range c.Threads {
		if err := tx.PutThread(&c.Threads[i]); err != nil {
			return err
		}
	}
	for _, s := range c.Sources {
		if err := tx.PutThreadSource(c.Conversation.CompanyID, s.ThreadID, s.Raw); err != nil {
			return err
		}
	}
	for i := range c.Attachments {
		if err := tx.PutAttachment(&c.Attachments[i].Attachment, c.Attachments[i].Data); err != nil {
			return err
		}
	}
	for i := range c.Mail {
		if err := tx.PutMail(&c.Mail[i]); err != nil {
			return err
		}
	}
	return nil
}

func markConversation(c *conversation, m marks) {
	m.see(parley.FamilyConversations, c.Conversation.ID)
	for _, th := range c.Threads {
		m.see(parley.FamilyThreads, th.ID)
		if th.Rating != nil {
			m.see(parley.FamilyRatings, th.Rating.ID)
		}
	}
	for _, a := range c.Attachments {
		m.see(parley.FamilyAttachments, a.Attachment.ID)
	}
	for _, mail := range c.Mail {
		m.see(parley.FamilyMail, mail.ID)
	}
}

func conversationParts(c *conversation, add func(name string, part any)) {
	add("conversations", &c.Conversation)
	for i := range c.Threads {
		add("threads", &c.Threads[i])
	}
	for i := range c.Sources {
		add("thread sources", &c.Sources[i])
	}
	for i := range c.Attachments {
		add("attachments", &c.Attachments[i])
	}
	for i := range c.Mail {
		add("outgoing e-mail", &c.Mail[i])
	}
}
