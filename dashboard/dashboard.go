// Package dashboard holds the reports dashboard, the web page Parley serves
// at /reports: static HTML, CSS and JavaScript modules, and Chart.js
// (vendored from npm, see scripts/refresh-chartjs.sh), embedded in the
// binary so the page needs no network but Parley's own API. The page signs
// its user in through Parley's OAuth authorization page and draws the
// answers of the /v2/reports endpoints, called with the user's token; the
// api package serves these files and the sign-in's two steps.
package dashboard

import (
	"embed"
	"sync"

	"github.com/parley/parley/internal/webassets"
)

//go:embed index.html assets
var files embed.FS

// Page is the dashboard's HTML page.
func Page() []byte {
	b, err := files.ReadFile("index.html")
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return b
}

// Asset is one file the page loads from /reports/assets/.
type Asset = webassets.Asset

// assets indexes the files under assets/ by name once.
var assets = sync.OnceValue(func() map[string]Asset { return webassets.Index(files, "assets") })

// AssetNamed returns the asset of that name, or false when there is none.
func AssetNamed(name string) (Asset, bool) {
	a, ok := assets()[name]
	return a, ok
}
