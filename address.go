package parley

import (
	"net/netip"
	"strings"
)

// specialBlocks are address blocks no webhook may reach besides those the
// netip predicates name: "this network", shared address space (carrier-
// grade NAT), IETF protocol assignments, benchmarking, the reserved block
// (with the broadcast address), and IPv6 site-local.
var specialBlocks = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("fec0::/10"),
}

// PrivateAddr reports whether ip is an address of this machine or of a
// private network, which outgoing calls made for a tenant (webhook
// deliveries) must not reach unless the operator allows it: private
// (RFC 1918, fc00::/7), loopback, link-local, unspecified, multicast, and
// the special-use blocks above. IPv4-mapped IPv6 addresses count as their
// IPv4 address. It is the one rule of which addresses are private: webhook
// validation and the delivery dialer both use it.
func PrivateAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() ||
		ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range specialBlocks {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// PrivateHost reports whether a URL's host is known to be private without
// resolving it: an IP literal PrivateAddr refuses, or a name under
// "localhost" (RFC 6761: always the loopback). Other names are checked
// when they are resolved (at delivery).
func PrivateHost(host string) bool {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && PrivateAddr(ip)
}
