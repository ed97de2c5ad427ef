// Package dashboard holds the reports dashboard, the web page Parley serves
// at /reports: static HTML, CSS and JavaScript modules, and Chart.js
// (vendored from npm, see scripts/refresh-chartjs.sh), embedded in the
// binary so the page needs no network but Parley's own API. The page signs
// its user in through Parley's OAuth authorization page and draws the
// answers of the /v2/reports endpoints, called with the user's token; the
// api package serves these files and the sign-in's two steps.
package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"sync"
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
type Asset struct {
	Name        string
	ContentType string
	Content     []byte
	// ETag is a strong validator of the content, so browsers revalidate
	// cheaply: an embedded file has no modification time.
	ETag string
}

// contentTypes are the assets' types by extension, fixed here rather than
// read from the system's MIME table, which differs between machines.
var contentTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".md":  "text/plain; charset=utf-8", // the vendored licence
}

// assets indexes the files under assets/ by name once.
var assets = sync.OnceValue(func() map[string]Asset {
	out := map[string]Asset{}
	err := fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		name := path.Base(p)
		out[name] = Asset{Name: name, ContentType: contentTypes[path.Ext(name)], Content: b, ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	return out
})

// AssetNamed returns the asset of that name, or false when there is none.
func AssetNamed(name string) (Asset, bool) {
	a, ok := assets()[name]
	return a, ok
}
