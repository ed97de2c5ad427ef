package main

import (
	"bufio"
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeSaysWhereTheSMTPListenerListens: the "parley serving" line,
// which says everything listens, names the SMTP listener's address (the
// port it got for port 0), and the listener answers there.
func TestServeSaysWhereTheSMTPListenerListens(t *testing.T) {
	srv := serveInProcess(t, servingAddr, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--smtp-listen", "127.0.0.1:0")
	m := regexp.MustCompile(`"parley serving",.*"smtp":"([^"]+)"`).FindStringSubmatch(srv.logs.String())
	require.NotNil(t, m, srv.logs.String())
	conn, err := net.DialTimeout("tcp", m[1], 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	banner, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	assert.Regexp(t, `^220 `, banner)
}
