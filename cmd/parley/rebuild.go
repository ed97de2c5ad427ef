package main

import (
	"io"
	"log/slog"

	"github.com/parley/parley/index"
)

// rebuildProgress reports a rebuild of the search index at start (an
// upgrade that changed index.MappingVersion, or a lost index): a progress
// bar on a terminal, otherwise a log line every tenth of the way, so a
// service manager's journal shows that the server is busy, not stuck.
func rebuildProgress(stderr io.Writer, log *slog.Logger) func(done, total int) {
	if bar := progressBar(stderr, "rebuilding the search index"); bar != nil {
		return bar
	}
	next := 1 // the next tenth to report
	return func(done, total int) {
		if total == 0 || done*10 < next*total {
			return
		}
		log.Info("rebuilding the search index", "done", done, "total", total, "mappingVersion", index.MappingVersion)
		next = done*10/total + 1
	}
}
