package webhooks

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	parley "github.com/parley/parley"
)

// ErrPrivateAddress is the delivery error of a webhook whose host resolved
// to an address parley.PrivateAddr refuses.
var ErrPrivateAddress = fmt.Errorf("webhooks: the receiver's address is private")

// refusePrivate is a net.Dialer Control function: it runs after DNS
// resolution, on the address actually dialled, so a name that resolves
// (or is rebound) to a private address cannot reach it.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhooks: dial %q: %w", address, err)
	}
	if parley.PrivateAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrPrivateAddress, ap.Addr())
	}
	return nil
}

// newClient is the default delivery client: parley.DeliveryTimeout, no
// redirects (a redirect could point anywhere), no proxy from the
// environment (the check must see the receiver's address), and unless
// allowPrivate a dialer that refuses private addresses.
func newClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: parley.DeliveryTimeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	transport := &http.Transport{DialContext: dialer.DialContext, ForceAttemptHTTP2: true, MaxIdleConns: 100,
		IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
	return &http.Client{Timeout: parley.DeliveryTimeout, Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
