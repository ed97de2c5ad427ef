package api

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBodyDeadlineIsCleared: once its body is read, a handler may take
// longer than the body timeout (here it waits on its context for 200 ms,
// four body timeouts): net/http clears the deadline at the end of the
// body, so its watch of the connection does not end the request (as
// http.Server.ReadTimeout would).
func TestBodyDeadlineIsCleared(t *testing.T) {
	s := New(Config{BodyTimeout: 50 * time.Millisecond})
	s.router.POST("/slow", func(c *gin.Context) {
		body, err := io.ReadAll(c.Request.Body)
		require.NoError(t, err)
		select {
		case <-c.Request.Context().Done():
			c.String(http.StatusServiceUnavailable, "cancelled")
		case <-time.After(200 * time.Millisecond):
			c.String(http.StatusOK, string(body))
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := s.HTTPServer(nil)
	go srv.Serve(s.Listener(ln))
	defer srv.Close()
	res, err := http.Post("http://"+ln.Addr().String()+"/slow", "text/plain", strings.NewReader("read in time"))
	require.NoError(t, err)
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "read in time", string(got))
}

// TestAddressCapRelease: closing a connection (twice, even) gives its one
// place back, and the next connection from the address is accepted.
func TestAddressCapRelease(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer inner.Close()
	refusals := make(chan struct{}, 4)
	ln := &addressCap{Listener: inner, max: 1, open: map[netip.Addr]int{}, refused: func() { refusals <- struct{}{} }}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", inner.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial()
	first, err := ln.Accept()
	require.NoError(t, err)
	require.NoError(t, first.Close())
	first.Close()
	dial()
	second, err := ln.Accept()
	require.NoError(t, err, "the first connection's place was given back")

	dial() // over the cap while the second is open
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	select {
	case <-refusals:
	case <-time.After(safety):
		t.Fatal("the connection over the cap was not refused")
	}
	second.Close()
	last := dial()
	select {
	case c := <-accepted:
		assert.Equal(t, last.LocalAddr().String(), c.RemoteAddr().String())
		c.Close()
	case <-time.After(safety):
		t.Fatal("the connection after a release was not accepted")
	}
}

// safety bounds a wait that should end at once; hitting it fails a test.
const safety = 10 * time.Second
