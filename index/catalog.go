package index

import (
	"slices"
	"sort"
	"strings"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
)

// FieldType is how an index field is stored.
type FieldType int

// Index field types.
const (
	TextField FieldType = iota
	KeywordField
	NumberField // dates too, as Unix milliseconds
)

// Field is one index field of a document kind.
type Field struct {
	Name string
	Type FieldType
	// Sortable keeps doc values for sorting. A sortable number holds one
	// value (a sort reads one), so engines may check a range on it by
	// reading that value.
	Sortable bool
	// Valued number fields can be faceted by distinct value (sums,
	// averages, distinct counts, per-value rows).
	Valued bool
	// Phrases keeps term positions in a text field, for phrase queries;
	// fields searched only by words skip that cost.
	Phrases bool
	// Substrings marks a keyword searched by fragment (query.Contains):
	// engines may index its suffixes to answer without scanning values.
	Substrings bool
	// Key marks a number that refers to another record (a mailbox, a
	// user, a customer): searched for equality, never range-faceted.
	// Engines may index it as one exact term instead of a number built
	// for range searches (Bleve's has sixteen); a range on it still
	// answers correctly, by walking its terms.
	Key bool
	// Whole marks a number whose values are integers of at most 53 bits
	// (ids, counts, dates in milliseconds). Engines may index it by its
	// integer instead of its float's bits: a float's low bits are zeros
	// for such values, so a trie over them repeats one unique term at
	// several precisions, where one over the integer does not.
	Whole bool
	// Millis marks a Whole number that is a time in milliseconds. Such
	// values are sparse at fine precision (the API's times are whole
	// seconds, and few fall in the same minute), so engines may skip the
	// finest levels of a range structure: neighbours within a minute are
	// few enough to read one by one.
	Millis bool
	// Weight multiplies the relevance of a text field's matches (0 is 1):
	// a word in the subject says more about a conversation than one in
	// its threads.
	Weight float64
}

// WeightOf is the relevance weight of a field of a kind (1 by default).
func WeightOf(kind Kind, name string) float64 {
	if f, ok := FieldOf(kind, name); ok && f.Weight > 0 {
		return f.Weight
	}
	return 1
}

// Dynamic field prefixes for custom field values: cfk.<id> keyword,
// cft.<id> text, cfn.<id> number or date.
const (
	CustomKeywordPrefix = "cfk."
	CustomTextPrefix    = "cft."
	CustomNumberPrefix  = "cfn."
)

// Catalog lists the index fields of each kind. Engines build their mapping
// from it; changing it means bumping MappingVersion.
var Catalog = map[Kind][]Field{
	Conversations: {
		{Name: "id", Type: NumberField, Whole: true, Sortable: true},
		{Name: "number", Type: NumberField, Whole: true, Sortable: true},
		{Name: "mailboxId", Type: NumberField, Key: true, Sortable: true},
		{Name: "mailboxName", Type: KeywordField},
		{Name: "folderId", Type: NumberField, Key: true},
		{Name: "status", Type: KeywordField, Sortable: true},
		{Name: "state", Type: KeywordField},
		{Name: "type", Type: KeywordField},
		{Name: "tag", Type: KeywordField},
		{Name: "assigneeId", Type: NumberField, Key: true},
		{Name: "assigned", Type: KeywordField},
		{Name: "customerId", Type: NumberField, Key: true},
		{Name: "customerName", Type: TextField, Phrases: true},
		{Name: "customerNameSort", Type: KeywordField, Sortable: true},
		{Name: "customerEmail", Type: KeywordField, Sortable: true},
		{Name: "email", Type: KeywordField},
		{Name: "subject", Type: TextField, Weight: 2},
		{Name: "subjectSort", Type: KeywordField, Sortable: true},
		{Name: "body", Type: TextField, Phrases: true},
		{Name: "createdAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "modifiedAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "waitingSince", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "hasAttachments", Type: KeywordField},
		{Name: "replyUserId", Type: NumberField, Key: true},
		{Name: "createdByUserId", Type: NumberField, Key: true, Valued: true},
		// Report figures (parley.Figures); times in seconds.
		{Name: "replies", Type: NumberField, Whole: true, Valued: true},
		{Name: "firstResponseAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "firstResponseSeconds", Type: NumberField, Valued: true},
		{Name: "firstResponseOfficeSeconds", Type: NumberField, Valued: true},
		{Name: "resolvedAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "resolutionSeconds", Type: NumberField, Valued: true},
		{Name: "resolutionOfficeSeconds", Type: NumberField, Valued: true},
		{Name: "resolvedByUserId", Type: NumberField, Key: true, Valued: true},
		{Name: "closedByUserId", Type: NumberField, Key: true, Valued: true},
		{Name: "primaryCustomerId", Type: NumberField, Key: true, Valued: true},
		{Name: "activityAt", Type: NumberField, Whole: true, Millis: true},
		{Name: "createdBy", Type: KeywordField},
		{Name: "createdWeekHour", Type: KeywordField},
		{Name: "closedAt", Type: NumberField, Whole: true, Millis: true},
		{Name: "replyAt", Type: NumberField, Whole: true, Millis: true},
		{Name: "responseSeconds", Type: NumberField},
		{Name: "responseOfficeSeconds", Type: NumberField},
		{Name: "handleSeconds", Type: NumberField}, // the average of its replies'
		// What the fields drill-down selects by and the conversations
		// report's replies and workflows tops count: the saved replies its
		// threads were written from, the workflows that ran on it.
		{Name: "savedReplyId", Type: NumberField, Key: true, Valued: true},
		{Name: "workflowId", Type: NumberField, Key: true, Valued: true},
	},
	// Messages are published user replies (with their rating) and customer
	// messages: what replies sent, customers helped, received messages and
	// the happiness reports count. `from` is user or customer.
	Messages: {
		{Name: "from", Type: KeywordField},
		{Name: "id", Type: NumberField, Key: true, Sortable: true},
		{Name: "createdAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "userId", Type: NumberField, Key: true, Valued: true},
		{Name: "customerId", Type: NumberField, Key: true, Valued: true},
		{Name: "conversationId", Type: NumberField, Key: true, Valued: true},
		{Name: "number", Type: NumberField, Key: true, Sortable: true},
		{Name: "mailboxId", Type: NumberField, Key: true},
		{Name: "folderId", Type: NumberField, Key: true},
		{Name: "type", Type: KeywordField},
		{Name: "tag", Type: KeywordField},
		{Name: "rating", Type: KeywordField},
		{Name: "ratedAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "ratingRank", Type: NumberField, Whole: true, Sortable: true},
		{Name: "ratingCustomerId", Type: NumberField, Key: true, Valued: true},
		{Name: "responseSeconds", Type: NumberField, Valued: true},
		{Name: "responseOfficeSeconds", Type: NumberField, Valued: true},
		{Name: "handleSeconds", Type: NumberField, Valued: true},
		// What the user reports read of a reply: its conversation's status
		// and, as index.ConversationValues, the conversation's figures
		// (createdAt, number, first response and resolution seconds with
		// their office twins) and the reply's response seconds (with its
		// office twin); and the hour of the week it was sent in.
		{Name: "status", Type: KeywordField},
		{Name: "conversationFigures", Type: KeywordField},
		{Name: "responseFigures", Type: KeywordField},
		{Name: "createdWeekHour", Type: KeywordField},
	},
	// Calls are phone threads: who logged them, for which customer, when.
	Calls: {
		{Name: "id", Type: NumberField, Key: true, Sortable: true},
		{Name: "createdAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "userId", Type: NumberField, Key: true, Valued: true},
		{Name: "customerId", Type: NumberField, Key: true, Valued: true},
		{Name: "conversationId", Type: NumberField, Key: true},
		{Name: "mailboxId", Type: NumberField, Key: true},
		{Name: "folderId", Type: NumberField, Key: true},
		{Name: "tag", Type: KeywordField},
	},
	// Chats carry what the chat report counts; durations in seconds.
	Chats: {
		{Name: "createdAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "endedAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "mailboxId", Type: NumberField, Key: true},
		{Name: "folderId", Type: NumberField, Key: true},
		{Name: "assigneeId", Type: NumberField, Key: true},
		{Name: "conversationId", Type: NumberField, Key: true},
		{Name: "tag", Type: KeywordField},
		{Name: "ended", Type: KeywordField},
		{Name: "missed", Type: KeywordField},
		{Name: "completed", Type: KeywordField},
		{Name: "integration", Type: KeywordField},
		{Name: "waitSeconds", Type: NumberField, Valued: true},
		{Name: "responseSeconds", Type: NumberField, Valued: true},
		{Name: "durationSeconds", Type: NumberField, Valued: true},
		{Name: "messages", Type: NumberField, Whole: true, Valued: true},
		{Name: "waitOfficeSeconds", Type: NumberField, Valued: true},
		{Name: "responseOfficeSeconds", Type: NumberField, Valued: true},
		{Name: "durationOfficeSeconds", Type: NumberField, Valued: true},
	},
	Customers: {
		{Name: "id", Type: NumberField, Whole: true, Sortable: true},
		{Name: "firstName", Type: TextField},
		{Name: "lastName", Type: TextField},
		{Name: "firstNameSort", Type: KeywordField, Sortable: true},
		{Name: "lastNameSort", Type: KeywordField, Sortable: true},
		{Name: "email", Type: KeywordField, Substrings: true},
		{Name: "emailDomain", Type: KeywordField},
		// Valued: customer lists count per mailbox and organization.
		{Name: "mailboxId", Type: NumberField, Key: true, Valued: true},
		{Name: "organizationId", Type: NumberField, Key: true, Valued: true},
		{Name: "createdAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
		{Name: "modifiedAt", Type: NumberField, Whole: true, Millis: true, Sortable: true},
	},
}

// catalogFields is Catalog by kind and name: document builders look a
// field up for every value they index.
var catalogFields = func() map[Kind]map[string]Field {
	out := map[Kind]map[string]Field{}
	for kind, fields := range Catalog {
		out[kind] = map[string]Field{}
		for _, f := range fields {
			out[kind][f.Name] = f
		}
	}
	return out
}()

// textless are the kinds whose catalog has no text field (messages, calls
// and chats): reports count them, nobody searches their words.
var textless = func() map[Kind]bool {
	out := map[Kind]bool{}
	for kind, fields := range Catalog {
		out[kind] = !slices.ContainsFunc(fields, func(f Field) bool { return f.Type == TextField })
	}
	return out
}()

// Textless reports whether documents of the kind carry no text. The list
// engine holds such documents whole, as report rows, and answers every
// request on them; a Router does not give them to its full engine, which
// would only index what it is never asked (see Router).
func (k Kind) Textless() bool { return textless[k] }

// TextlessKinds lists the textless kinds, in the order of Kinds.
func TextlessKinds() []Kind {
	var out []Kind
	for _, kind := range Kinds {
		if kind.Textless() {
			out = append(out, kind)
		}
	}
	return out
}

// MappingVersion changes whenever the catalog or the documents change, so
// an engine built with another version is rebuilt from storage.
const MappingVersion = "20"

// PresentField is a field every document has: the names of its non-empty
// fields, for `field:*` queries.
const PresentField = "_fields"

// SortFields maps the list endpoints' sortField values to index fields.
var SortFields = map[Kind]map[string]string{
	Conversations: {
		"createdAt": "createdAt", "customerEmail": "customerEmail", "customerName": "customerNameSort",
		"mailboxid": "mailboxId", "modifiedAt": "modifiedAt", "number": "number", "score": ScoreField,
		"status": "status", "subject": "subjectSort", "waitingSince": "waitingSince",
	},
	Customers: {
		"createdAt": "createdAt", "firstName": "firstNameSort", "lastName": "lastNameSort", "modifiedAt": "modifiedAt",
	},
}

// FieldOf finds an index field of a kind, including dynamic custom fields.
func FieldOf(kind Kind, name string) (Field, bool) {
	if f, ok := catalogFields[kind][name]; ok {
		return f, true
	}
	switch {
	case strings.HasPrefix(name, CustomKeywordPrefix):
		return Field{Name: name, Type: KeywordField}, true
	case strings.HasPrefix(name, CustomTextPrefix):
		// Multi-line custom text is searched by phrase too.
		return Field{Name: name, Type: TextField, Phrases: true}, true
	case strings.HasPrefix(name, CustomNumberPrefix):
		return Field{Name: name, Type: NumberField}, true
	}
	return Field{}, false
}

// schema is a query.Schema over a fixed list of names.
type schema struct {
	fields   []query.FieldSpec
	defaults []query.FieldSpec
}

func (s *schema) Lookup(name string) (query.FieldSpec, bool) {
	for _, f := range s.fields {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return query.FieldSpec{}, false
}

func (s *schema) Names() []string {
	out := make([]string, 0, len(s.fields))
	for _, f := range s.fields {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

func (s *schema) DefaultFields() []query.FieldSpec { return s.defaults }

func spec(name string, t query.Type, targets ...string) query.FieldSpec {
	return query.FieldSpec{Name: name, Type: t, Targets: targets}
}

// ConversationSchema is what `query=` may name on the conversation list.
var ConversationSchema query.Schema = &schema{
	fields: []query.FieldSpec{
		spec("subject", query.Text, "subject"),
		{Name: "body", Type: query.Text, Targets: []string{"body"}, QuotedPhrase: true},
		spec("tag", query.KeywordType, "tag"),
		spec("mailbox", query.KeywordType, "mailboxName"),
		spec("mailboxName", query.KeywordType, "mailboxName"),
		spec("mailboxid", query.Number, "mailboxId"),
		spec("createdAt", query.Date, "createdAt"),
		spec("modifiedAt", query.Date, "modifiedAt"),
		spec("email", query.KeywordType, "email"),
		spec("customerIds", query.Number, "customerId"),
		spec("number", query.Number, "number"),
		spec("id", query.Number, "id"),
		spec("assigned", query.KeywordType, "assigned"),
		spec("attachments", query.Bool, "hasAttachments"),
		spec("attachment", query.Bool, "hasAttachments"),
		spec("replyUserIds", query.Number, "replyUserId"),
		{Name: "status", Type: query.KeywordType, Targets: []string{"status"}, Values: statusValues()},
		{Name: "type", Type: query.KeywordType, Targets: []string{"type"}, Values: closedSet(parley.ConversationTypes...)},
		// Deleted conversations are not indexed: a search sees the others.
		{Name: "state", Type: query.KeywordType, Targets: []string{"state"},
			Values: closedSet(string(parley.StatePublished), string(parley.StateDraft))},
		spec("folder", query.Number, "folderId"),
	},
	defaults: []query.FieldSpec{
		spec("subject", query.Text, "subject"),
		{Name: "body", Type: query.Text, Targets: []string{"body"}, QuotedPhrase: true},
		{Name: "customerName", Type: query.Text, Targets: []string{"customerName"}, QuotedPhrase: true},
		spec("email", query.KeywordType, "email"),
	},
}

// closedSet is the Values of a closed keyword field whose values are
// stored as written.
func closedSet(values ...string) map[string][]string {
	out := make(map[string][]string, len(values))
	for _, v := range values {
		out[v] = []string{v}
	}
	return out
}

// statusValues is the Values of status: the list parameter's values, each
// standing for the stored statuses it selects.
func statusValues() map[string][]string {
	out := map[string][]string{}
	for v, statuses := range parley.StatusSelections() {
		for _, s := range statuses {
			out[v] = append(out[v], string(s))
		}
	}
	return out
}

// CustomerSchema is what `query=` may name on the customer lists.
var CustomerSchema query.Schema = &schema{
	fields: []query.FieldSpec{
		spec("firstName", query.Text, "firstName"),
		spec("lastName", query.Text, "lastName"),
		{Name: "email", Type: query.KeywordType, Targets: []string{"email"}, Contains: true},
		spec("emailDomain", query.KeywordType, "emailDomain"),
		spec("modifiedAt", query.Date, "modifiedAt"),
		spec("createdAt", query.Date, "createdAt"),
		spec("id", query.Number, "id"),
	},
	defaults: []query.FieldSpec{
		spec("firstName", query.Text, "firstName"),
		spec("lastName", query.Text, "lastName"),
		{Name: "email", Type: query.KeywordType, Targets: []string{"email"}, Contains: true},
	},
}
