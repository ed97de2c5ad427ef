package api

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
)

// customerFilterParams are the filters of GET /v3/customers; a cursor is
// bound to their values.
var customerFilterParams = []string{"email", "createdSince", "modifiedSince", "firstName", "lastName", "query"}

// cursorVersion is the first byte of every cursor; a cursor of another
// version is refused as stale.
const cursorVersion = 1

// listCustomersV3 handles GET /v3/customers: newest first (id breaks
// ties), 50 a page, paged by an opaque cursor in `_links.next`.
func (s *Server) listCustomersV3(c *gin.Context) error {
	who := caller(c)
	p := readParams(c, append([]string{"cursor"}, customerFilterParams...)...)
	var f parley.CustomerFilter
	if v, ok := p.raw("email"); ok {
		email := parley.NormalizeEmail(v)
		f.Email = &email
	}
	readCustomerFilter(p, &f, "createdSince", "modifiedSince")
	if err := p.err(); err != nil {
		return err
	}
	r := search.Customers{Company: who.Company.ID, Filter: f, SortField: "createdAt", Desc: true, Limit: DefaultPageSize + 1}
	var err error
	if r.Query, err = queryText(c); err != nil {
		return err
	}
	key, err := s.cursorKey(c.Request.Context())
	if err != nil {
		return err
	}
	binding := cursorBinding(who.Company.ID, c.Request.URL.Query())
	if raw, ok := p.raw("cursor"); ok {
		after, ok := readCursor(key, binding, raw)
		if !ok {
			return parley.Invalid("query", "cursor", parley.CodeRejectedRequest,
				"the cursor is not valid for this list: it was altered, is stale, or was made for other filters; start again without cursor", raw)
		}
		r.After = &after
	}
	found, err := search.ListCustomers(c.Request.Context(), s.searchDeps(), r)
	if err != nil {
		return err
	}
	ids := found.IDs
	more := len(ids) > DefaultPageSize
	ids = ids[:min(len(ids), DefaultPageSize)]
	var last *parley.Customer
	items, err := s.customerItems(c, who.Company.ID, ids)
	if err == nil && more && len(ids) > 0 {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			last, err = tx.Customer(who.Company.ID, ids[len(ids)-1])
			return err
		})
	}
	if err != nil {
		return err
	}
	body := newList("customers", s.baseURL(c)+c.Request.URL.RequestURI(), items)
	if last != nil {
		q := c.Request.URL.Query()
		q.Set("cursor", makeCursor(key, binding, search.Position{CreatedAt: last.CreatedAt.UnixMilli(), ID: last.ID}))
		body.Links.Next = linkTo(s.baseURL(c) + c.Request.URL.Path + "?" + q.Encode())
	}
	render(c, http.StatusOK, body)
	return nil
}

// cursorBinding is what a cursor is signed for: the company and the
// filters of the list, so it cannot be replayed elsewhere.
func cursorBinding(companyID int64, q url.Values) []byte {
	var b bytes.Buffer
	b.WriteString(strconv.FormatInt(companyID, 10))
	names := append([]string(nil), customerFilterParams...)
	sort.Strings(names)
	for _, n := range names {
		b.WriteString("\x00" + n + "=" + strings.Join(q[n], "\x01"))
	}
	return b.Bytes()
}

// makeCursor encodes a position: version, creation time, id, and an
// HMAC-SHA256 (truncated to 16 bytes) over them and the binding.
func makeCursor(key, binding []byte, p search.Position) string {
	payload := make([]byte, 17)
	payload[0] = cursorVersion
	binary.BigEndian.PutUint64(payload[1:], uint64(p.CreatedAt))
	binary.BigEndian.PutUint64(payload[9:], uint64(p.ID))
	return base64.RawURLEncoding.EncodeToString(append(payload, cursorMAC(key, binding, payload)...))
}

// readCursor checks and decodes a cursor; ok is false for anything not
// made by makeCursor with the same key and binding.
func readCursor(key, binding []byte, s string) (search.Position, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) != 33 || raw[0] != cursorVersion {
		return search.Position{}, false
	}
	payload, mac := raw[:17], raw[17:]
	if !hmac.Equal(mac, cursorMAC(key, binding, payload)) {
		return search.Position{}, false
	}
	p := search.Position{CreatedAt: int64(binary.BigEndian.Uint64(payload[1:])), ID: int64(binary.BigEndian.Uint64(payload[9:]))}
	if p.ID <= 0 || p.CreatedAt > math.MaxInt64/2 {
		return search.Position{}, false
	}
	return p, true
}

func cursorMAC(key, binding, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(payload)
	m.Write(binding)
	return m.Sum(nil)[:16]
}

// cursorKey loads the key that signs cursors, making it on first use. It
// lives in storage so cursors survive restarts.
func (s *Server) cursorKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := s.store.View(ctx, func(tx parley.Tx) error { key = tx.CursorKey(); return nil })
	if err != nil || key != nil {
		return key, err
	}
	_, err = s.store.Update(ctx, func(tx parley.Tx) (err error) {
		key, err = tx.MakeCursorKey()
		return err
	})
	return key, err
}
