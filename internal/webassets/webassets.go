// Package webassets indexes the static files of Parley's web pages (the
// reports dashboard, the agents' inbox), embedded in the binary, by name,
// with the content type and a strong ETag each is served with.
package webassets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
)

// Asset is one file a page loads from its assets/ folder.
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
	".md":  "text/plain; charset=utf-8", // vendored licences
}

// Index reads every file under dir of files, by base name. It panics on a
// failure: the files are embedded at build time, so none can occur.
func Index(files embed.FS, dir string) map[string]Asset {
	out := map[string]Asset{}
	err := fs.WalkDir(files, dir, func(p string, d fs.DirEntry, err error) error {
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
		panic(err)
	}
	return out
}
