package importer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadRejectsWhatIsNoRecord: a document that is neither a
// conversation, a customer nor a list page of them is rejected with the
// line it starts on and why; the records around it are read.
func TestReadRejectsWhatIsNoRecord(t *testing.T) {
	export := strings.Join([]string{
		`{"firstName":"Ada","_embedded":{"emails":[{"value":"ada@example.com"}]}}`,
		`{"garbage": true}`,
		`"just a string"`,
		`{"subject":"Refund","mailboxId":1,"_embedded":{"threads":[]}}`,
		`{"firstName":5}`,
		`[`,
		`  {"lastName":"Byron"},`,
		`  {"nothing":"here"}`,
		`]`,
		`{"_embedded":{"customers":[{"firstName":"Cy"},{"what":1}]},"page":{"number":1}}`,
		`null`,
	}, "\n")
	e, err := Read(strings.NewReader(export))
	require.NoError(t, err)
	var customers []string
	for _, c := range e.Customers {
		customers = append(customers, c.FirstName+c.LastName)
	}
	assert.Equal(t, []string{"Ada", "Byron", "Cy"}, customers)
	require.Len(t, e.Conversations, 1)
	assert.Equal(t, "Refund", e.Conversations[0].Subject)
	junk := `neither a conversation (subject or _embedded.threads), a customer (firstName, lastName or _embedded entries) nor a list page of them (_embedded.conversations or _embedded.customers): `
	assert.Equal(t, []Rejected{
		{2, junk + `{"garbage": true}`},
		{3, `not a JSON object: "just a string"`},
		{5, "customer: json: cannot unmarshal number into Go struct field Customer.firstName of type string"},
		{8, junk + `{"nothing":"here"}`},
		{10, `customer 2 of the list page: ` + junk + `{"what":1}`},
		{11, "not a JSON object: null"},
	}, e.Rejected)
}

// TestReadStopsAtTextThatIsNotJSON: the decoder cannot resume after text
// that is not JSON, so reading stops there, naming the line.
func TestReadStopsAtTextThatIsNotJSON(t *testing.T) {
	_, err := Read(strings.NewReader("{\"firstName\":\"Ada\"}\n\n{\"firstName\": oops}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "importer: line 3: invalid character 'o'")
}
