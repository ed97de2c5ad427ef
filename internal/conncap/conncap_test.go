package conncap

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// safety bounds a wait that should end at once; hitting it fails a test.
const safety = 10 * time.Second

// TestAddressCapRelease: closing a connection (twice, even) gives its one
// place back, and the next connection from the address is accepted.
func TestAddressCapRelease(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer inner.Close()
	refusals := make(chan struct{}, 4)
	ln := PerAddress(inner, 1, nil, func(net.Conn) { refusals <- struct{}{} })
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
