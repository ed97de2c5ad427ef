// Package conncap bounds the connections a server holds from one peer
// address, so that one client cannot take every connection the server
// has room for. The HTTP API and the SMTP listener share it.
package conncap

import (
	"net"
	"net/netip"
	"sync"
)

// PerAddress wraps ln so that it holds at most max open connections from
// one peer address. A connection over the cap is handed to refused (which
// may write a last word to it, or only count it) and closed before
// anything is read from it. Addresses for which exempt reports true (a
// trusted proxy speaking for many clients) are not capped; exempt may be
// nil.
func PerAddress(ln net.Listener, max int, exempt func(netip.Addr) bool, refused func(net.Conn)) net.Listener {
	return &addressCap{Listener: ln, max: max, exempt: exempt, refused: refused, open: map[netip.Addr]int{}}
}

// addressCap is a listener that counts open connections per peer address.
type addressCap struct {
	net.Listener
	max     int
	exempt  func(netip.Addr) bool
	refused func(net.Conn)
	mu      sync.Mutex
	open    map[netip.Addr]int
}

// Accept returns the next connection within its address's cap, closing
// those over it.
func (l *addressCap) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(conn.RemoteAddr().String())
		addr := ap.Addr().Unmap()
		if err != nil || (l.exempt != nil && l.exempt(addr)) {
			return conn, nil
		}
		l.mu.Lock()
		if l.open[addr] >= l.max {
			l.mu.Unlock()
			l.refused(conn)
			conn.Close()
			continue
		}
		l.open[addr]++
		l.mu.Unlock()
		return &countedConn{Conn: conn, release: sync.OnceFunc(func() { l.release(addr) })}, nil
	}
}

func (l *addressCap) release(addr netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[addr]--; l.open[addr] <= 0 {
		delete(l.open, addr)
	}
}

// countedConn gives its place back to the cap when closed.
type countedConn struct {
	net.Conn
	release func()
}

func (c *countedConn) Close() error {
	c.release()
	return c.Conn.Close()
}
