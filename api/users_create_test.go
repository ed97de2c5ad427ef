package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestCreateUser(t *testing.T) {
	w := newWorld(t)
	post := func(token, body string) request {
		return request{method: http.MethodPost, path: "/v2/users", token: token, body: body}
	}
	rec := w.do(post(adminToken(w), `{"firstName":"Nina","lastName":"New","email":"Nina@Acme.test","role":"user","mailboxIds":[1],"timezone":"Europe/Paris"}`))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Equal(t, "7", rec.Header().Get("Resource-ID"), "after the seeded users and team")
	assert.Equal(t, "https://api.parley.test/v2/users/7", rec.Header().Get("Location"))
	got := decode(t, w.get("/v2/users/7"))
	assert.Equal(t, "Nina@Acme.test", got["email"])
	assert.Equal(t, "user", got["role"])
	var created *parley.User
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) (err error) { created, err = tx.User(acmeID, 7); return err }))
	assert.True(t, created.Invited(), "a created user is invited until they sign in")
	assert.Equal(t, []int64{supportID}, created.MailboxIDs)

	w.company(acmeID, func(c *parley.Company) { c.UserSeats, c.LightUserSeats = 4, 1 }) // 4 users, 1 light user held
	cases := []struct {
		name   string
		req    request
		status int
		code   string
	}{
		{"agent may not create users", post(userToken, `{"firstName":"A","lastName":"B","email":"a@acme.test"}`), 403, parley.CodeMayNotCreateUsers},
		{"duplicate e-mail, any case", post(ownerToken, `{"firstName":"A","lastName":"B","email":"UMA@acme.test","role":"light user"}`), 409, parley.CodeUserEmailNotUnique},
		{"e-mail of another company's user", post(ownerToken, `{"firstName":"A","lastName":"B","email":"gary@globex.test","role":"light user"}`), 409, parley.CodeUserEmailNotUnique},
		{"mailbox of another company", post(ownerToken, fmt.Sprintf(`{"firstName":"A","lastName":"B","email":"a@acme.test","role":"light user","mailboxIds":[%d]}`, globexMailboxID)), 403, parley.CodeCannotGrantMailbox},
		{"unknown mailbox", post(ownerToken, `{"firstName":"A","lastName":"B","email":"a@acme.test","role":"light user","mailboxIds":[999]}`), 403, parley.CodeCannotGrantMailbox},
		{"no user seat left", post(ownerToken, `{"firstName":"A","lastName":"B","email":"a@acme.test","role":"admin"}`), 403, parley.CodePlanUserLimit},
		{"no light-user seat left", post(ownerToken, `{"firstName":"A","lastName":"B","email":"a@acme.test","role":"light user"}`), 403, parley.CodeLightUserLimit},
		{"owner role", post(ownerToken, `{"firstName":"A","lastName":"B","email":"a@acme.test","role":"owner"}`), 400, parley.CodeEnumValue},
		{"bad e-mail", post(ownerToken, `{"firstName":"A","lastName":"B","email":"nope"}`), 400, parley.CodeEmail},
		{"missing names", post(ownerToken, `{"email":"a@acme.test"}`), 400, parley.CodeNullValue},
		{"bad time zone", post(ownerToken, `{"firstName":"A","lastName":"B","email":"a@acme.test","timezone":"Mars/Olympus"}`), 400, parley.CodeValueNotSupported},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(tc.req)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			assert.Equal(t, tc.code, errorCode(t, decode(t, rec)))
		})
	}
	rec = w.do(post(ownerToken, `{"firstName":"A","lastName":"B","email":"a@acme.test","role":"light user"}`))
	goldenError(t, "auth/light_user_limit", rec)
}

// adminToken issues a token for Adam, the administrator.
func adminToken(w *world) string {
	w.t.Helper()
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		return tx.PutToken(&parley.Token{Hash: parley.HashToken("acme-admin-token"), CompanyID: acmeID, UserID: adminID,
			ExpiresAt: w.clock.Now().Add(time.Hour)})
	})
	require.NoError(w.t, err)
	return "acme-admin-token"
}
