package main

import (
	"runtime/debug"
)

// version is the release Parley was built as, set when building:
//
//	go build -ldflags "-X main.version=1.4.0" ./cmd/parley
//
// A build without it is a development build.
var version = "dev"

// versionLine says which Parley this is: the version, and the commit the
// Go toolchain stamped into the binary (vcs.revision, with "+changes" when
// the work tree had uncommitted changes), or "unknown" when it stamped
// none (go run, go test, a build outside a checkout or with -buildvcs=false).
func versionLine(info *debug.BuildInfo, ok bool) string {
	commit, modified := "unknown", false
	if ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified && commit != "unknown" {
		commit += "+changes"
	}
	return "parley " + version + " (commit " + commit + ")\n"
}
