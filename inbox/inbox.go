// Package inbox holds the agents' inbox, the web application Parley serves
// at /inbox and at each conversation's web link (/conversation/{id}/{number},
// the `_links.web` and Web-Location of the API): static HTML, CSS and
// JavaScript modules embedded in the binary, so the page needs no network
// but Parley's own API. The page signs its agent in through Parley's OAuth
// authorization page and does everything through the public API with the
// agent's token; the api package serves these files and the sign-in.
package inbox

import (
	"bytes"
	"embed"
	"sync"

	"github.com/parley/parley/internal/webassets"
)

//go:embed index.html assets
var files embed.FS

// rootMark stands in index.html for the way from the page's address back
// to Parley's root, which differs between /inbox and a conversation's page.
const rootMark = "{{root}}"

// page reads index.html once.
var page = sync.OnceValue(func() []byte {
	b, err := files.ReadFile("index.html")
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return b
})

// Page is the inbox's HTML page as served at an address root levels of
// folders below Parley's root: 0 for /inbox, 2 for /conversation/{id}/{number}.
// Every address in it is relative, so Parley behind a proxy that moves it
// keeps working; the page holds no data of its own.
func Page(depth int) []byte {
	return bytes.ReplaceAll(page(), []byte(rootMark), bytes.Repeat([]byte("../"), depth))
}

// assets indexes the files under assets/ by name once.
var assets = sync.OnceValue(func() map[string]webassets.Asset { return webassets.Index(files, "assets") })

// AssetNamed returns the asset of that name, or false when there is none.
func AssetNamed(name string) (webassets.Asset, bool) {
	a, ok := assets()[name]
	return a, ok
}
