package api

import (
	"io"
	"net"
	"net/http"
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
