package email

import (
	"fmt"
	"net"
	"time"

	"golang.org/x/net/netutil"

	"github.com/parley/parley/internal/conncap"
)

// capped wraps ln with the listener's connection bounds: MaxConns in all
// (past it Accept waits, and new connections with it), MaxConnsPerAddress
// from one client address (one over it is answered 421 and closed), and
// IdleTimeout and SessionTimeout for each connection.
func (l *Listener) capped(ln net.Listener) net.Listener {
	ln = netutil.LimitListener(ln, l.MaxConns)
	ln = conncap.PerAddress(ln, l.MaxConnsPerAddress, nil, l.refuse)
	return &timedListener{Listener: ln, idle: l.IdleTimeout, session: l.SessionTimeout}
}

// refuse tells a client over its address's cap to come back later.
func (l *Listener) refuse(c net.Conn) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "421 4.7.0 %s too many connections from your address; try again later\r\n", l.Domain)
}

// timedListener gives each connection it accepts its timeouts.
type timedListener struct {
	net.Listener
	idle, session time.Duration
}

func (l *timedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &timedConn{Conn: c, idle: l.idle, end: time.AfterFunc(l.session, func() { c.Close() })}, nil
}

// timedConn is a connection that waits at most idle for the next bytes,
// and is closed when its session time is over, whatever it is doing: the
// idle timeout alone would let a client that sends a byte now and then
// hold its connection for ever.
type timedConn struct {
	net.Conn
	idle time.Duration
	end  *time.Timer
}

// Read waits at most the idle timeout for the next bytes, between commands
// and between the chunks of a message alike. (go-smtp's ReadTimeout is set
// once per command line: for DATA it would bound the whole message.) A
// read past it fails as a timeout, which go-smtp answers with 421.
func (c *timedConn) Read(p []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(p)
}

func (c *timedConn) Close() error {
	c.end.Stop()
	return c.Conn.Close()
}
