package api

import (
	"fmt"
	"net/netip"
	"strings"
)

// ParseTrustedProxies reads a comma-separated list of proxy addresses, each
// an IP address or a CIDR block ("10.0.0.0/8, 192.168.1.7"), for
// Config.TrustedProxies. An empty list trusts no proxy.
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(item)
		if err != nil || ip.Zone() != "" {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR block", item)
		}
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}

// trusted reports whether addr (a TCP peer's IP) is a trusted proxy.
func trusted(proxies []netip.Prefix, addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range proxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
