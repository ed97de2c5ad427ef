package parley_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

func TestPrivateAddr(t *testing.T) {
	for addr, private := range map[string]bool{
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "10.0.0.1": true, "172.16.5.4": true, "172.31.255.255": true,
		"192.168.0.1": true, "fd12::1": true, "169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "::": true,
		"224.0.0.251": true, "239.1.1.1": true, "ff02::1": true, "ff05::2": true, "100.64.0.1": true, "198.18.0.1": true,
		"192.0.0.8": true, "240.0.0.1": true, "255.255.255.255": true, "0.1.2.3": true, "fec0::1": true,
		"::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true,
		"93.184.215.14": false, "8.8.8.8": false, "172.32.0.1": false, "100.128.0.1": false, "2606:4700::1111": false,
		"::ffff:93.184.215.14": false, "192.0.2.1": false,
	} {
		assert.Equal(t, private, parley.PrivateAddr(netip.MustParseAddr(addr)), addr)
	}
	assert.True(t, parley.PrivateAddr(netip.Addr{}), "the zero address is refused")

	for host, private := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "api.localhost": true, "127.0.0.1": true, "[::1]": true, "::1": true,
		"hooks.example.com": false, "localhost.example.com": false, "8.8.8.8": false, "[2606:4700::1111]": false,
	} {
		assert.Equal(t, private, parley.PrivateHost(host), host)
	}
}
