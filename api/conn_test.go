package api_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
)

// safety bounds how long a connection test may block on a read; hitting
// it fails the test (a timeout that should have fired did not).
const safety = 10 * time.Second

// serve runs the world's server on a loopback listener, built as `parley
// serve` builds it, and returns its address.
func (w *world) serve() string {
	w.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(w.t, err)
	srv := w.server.HTTPServer(nil)
	done := make(chan struct{})
	go func() { srv.Serve(w.server.Listener(ln)); close(done) }()
	w.t.Cleanup(func() { srv.Close(); <-done })
	return ln.Addr().String()
}

// dial opens a raw connection from a loopback address (from "" lets the
// system choose) with the safety deadline.
func dial(t *testing.T, addr, from string) net.Conn {
	t.Helper()
	d := net.Dialer{}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	conn, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, conn.SetDeadline(time.Now().Add(safety)))
	t.Cleanup(func() { conn.Close() })
	return conn
}

// roundTrip writes a raw request and reads its answer.
func roundTrip(t *testing.T, conn net.Conn, r *bufio.Reader, raw string) *http.Response {
	t.Helper()
	_, err := io.WriteString(conn, raw)
	require.NoError(t, err)
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	res.Body = io.NopCloser(strings.NewReader(string(body)))
	return res
}

// closedByServer asserts the server closes conn: a read ends with EOF or
// a reset, not at the safety deadline.
func closedByServer(t *testing.T, r io.Reader) {
	t.Helper()
	_, err := r.Read(make([]byte, 1))
	var ne net.Error
	require.Error(t, err)
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server kept the connection open: %v", err)
}

const healthz = "GET /healthz HTTP/1.1\r\nHost: parley.test\r\n\r\n"

// TestSlowBody: a body trickling in (one byte every 10 ms, far too slow)
// is cut at the body timeout with 408 `Request timeout` in the API's error
// body, and the connection is closed.
func TestSlowBody(t *testing.T) {
	w := newWorld(t, func(c *api.Config) { c.BodyTimeout = 200 * time.Millisecond })
	conn := dial(t, w.serve(), "")
	_, err := io.WriteString(conn, "POST /v2/conversations HTTP/1.1\r\nHost: parley.test\r\nAuthorization: Bearer "+ownerToken+
		"\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the client drips its body
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	var body struct {
		Embedded struct {
			Errors []map[string]any `json:"errors"`
		} `json:"_embedded"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	require.Len(t, body.Embedded.Errors, 1)
	assert.Equal(t, "Request timeout", body.Embedded.Errors[0]["code"])
	io.Copy(io.Discard, res.Body)
	closedByServer(t, r)
}

// TestIdleConnection: a keep-alive connection that sends nothing after an
// answer is closed at the idle timeout; one that sends no complete header
// is closed at the header timeout.
func TestIdleConnection(t *testing.T) {
	w := newWorld(t, func(c *api.Config) {
		c.IdleTimeout = 100 * time.Millisecond
		c.HeaderTimeout = 100 * time.Millisecond
	})
	addr := w.serve()
	t.Run("idle keep-alive", func(t *testing.T) {
		conn := dial(t, addr, "")
		r := bufio.NewReader(conn)
		require.Equal(t, http.StatusOK, roundTrip(t, conn, r, healthz).StatusCode)
		closedByServer(t, r)
	})
	t.Run("slow headers", func(t *testing.T) {
		conn := dial(t, addr, "")
		_, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: parley.test\r\n")
		require.NoError(t, err)
		closedByServer(t, conn)
	})
}

// TestConnectionsPerAddress: past MaxConnsPerAddress open connections from
// one address, the next is closed at once (nothing is read or answered);
// another address is not affected.
func TestConnectionsPerAddress(t *testing.T) {
	w := newWorld(t, func(c *api.Config) { c.MaxConnsPerAddress = 2; c.AdminToken = "op-secret" })
	addr := w.serve()
	for range 2 {
		conn := dial(t, addr, "127.0.0.1")
		require.Equal(t, http.StatusOK, roundTrip(t, conn, bufio.NewReader(conn), healthz).StatusCode)
	}
	over := dial(t, addr, "127.0.0.1")
	io.WriteString(over, healthz) // may fail: the server may have closed it already
	closedByServer(t, over)
	other := dial(t, addr, "127.0.0.2")
	require.Equal(t, http.StatusOK, roundTrip(t, other, bufio.NewReader(other), healthz).StatusCode, "another address has its own cap")
	metrics := w.do(request{method: http.MethodGet, path: "/metrics", token: "op-secret"}).Body.String()
	assert.Contains(t, metrics, "parley_connections_refused_total 1")
}
