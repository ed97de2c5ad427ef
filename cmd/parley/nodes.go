package main

import (
	"context"
	"log/slog"

	parley "github.com/parley/parley"
	"github.com/parley/parley/pgstore"
)

// rateCounter is where the API counts rate limits: in the database on
// PostgreSQL, so every node spends from one budget; nil (in memory)
// embedded.
func (in *instance) rateCounter() parley.RateCounter {
	if pg, ok := in.db.(*pgstore.DB); ok {
		return pg
	}
	return nil
}

// listen, on PostgreSQL, hears what other nodes on the database commit
// until ctx ends: work for the workers, and chat changes, passed to chatChanged (the visitors'
// long-polls). It returns at once embedded, where one process is all.
func (in *instance) listen(ctx context.Context, log *slog.Logger, chatChanged func(chatID string)) (done <-chan struct{}) {
	finished := make(chan struct{})
	pg, ok := in.db.(*pgstore.DB)
	if !ok {
		close(finished)
		return finished
	}
	pg.OnChat(chatChanged)
	go func() { pg.Listen(ctx, log); close(finished) }()
	return finished
}
