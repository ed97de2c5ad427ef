package index

import (
	"context"
	"errors"
)

// PartialEngine is an engine that answers only some requests, cheaply.
type PartialEngine interface {
	Engine
	Supports(r Request) bool
}

// Router sends each search to the cheapest engine able to answer it: Fast
// when it supports the request, Full otherwise. Both receive every batch
// of a kind with text, so both hold the same such documents; Full's
// durability is what the syncer waits for.
//
// Documents of a textless kind (Kind.Textless: messages, calls, chats) go
// to Fast alone, which holds them whole as report rows and answers every
// request on them, waiting while it fills its rows after a start. Full
// never holds them: in a bulk load, indexing them was a fifth of the full
// engine's work and a seventh of its bytes, for requests Fast answered
// anyway. Fast rebuilds its rows from storage at each start, so a batch
// of them is durable once stored.
type Router struct {
	Full Engine
	Fast PartialEngine
}

var _ Faceter = Router{}

// Apply hands the batch to Fast, then to Full unless its kind is
// textless.
func (r Router) Apply(ctx context.Context, b Batch, durable func(error)) error {
	if err := r.Fast.Apply(ctx, b, nil); err != nil {
		return err
	}
	return Texts{r.Full}.Apply(ctx, b, durable)
}

// Search runs the request on the cheapest engine that can answer it.
func (r Router) Search(ctx context.Context, req Request) (Result, error) {
	if req.Kind.Textless() || r.Fast.Supports(req) {
		return r.Fast.Search(ctx, req)
	}
	return r.Full.Search(ctx, req)
}

// Texts is a full engine given only the batches of kinds with text, as a
// Router gives it.
type Texts struct{ Engine }

// Apply applies a batch of a kind with text; a textless one is durable
// already (see Router).
func (t Texts) Apply(ctx context.Context, b Batch, durable func(error)) error {
	if b.Kind.Textless() {
		if durable != nil {
			durable(nil)
		}
		return nil
	}
	return t.Engine.Apply(ctx, b, durable)
}

// PartialFaceter is a partial engine that counts some facets cheaply.
type PartialFaceter interface {
	Faceter
	FacetsSupported(r FacetRequest) bool
}

// Facets are Fast's when it can count them (always, for a textless
// kind), else Full's.
func (r Router) Facets(ctx context.Context, req FacetRequest) (FacetResult, error) {
	if fast, ok := r.Fast.(PartialFaceter); ok && (req.Kind.Textless() || fast.FacetsSupported(req)) {
		return fast.Facets(ctx, req)
	}
	f, ok := r.Full.(Faceter)
	if !ok {
		return FacetResult{}, errors.New("index: the full engine cannot count facets")
	}
	return f.Facets(ctx, req)
}

var _ Aggregator = Router{}

// PartialAggregator is a partial engine that answers some aggregates
// cheaply.
type PartialAggregator interface {
	Aggregator
	AggregateSupported(r AggregateRequest) bool
}

// Aggregate is Fast's when it holds the rows and fields asked for (always,
// for a textless kind), else Full's.
func (r Router) Aggregate(ctx context.Context, req AggregateRequest) (AggregateResult, error) {
	if fast, ok := r.Fast.(PartialAggregator); ok && (req.Kind.Textless() || fast.AggregateSupported(req)) {
		return fast.Aggregate(ctx, req)
	}
	a, ok := r.Full.(Aggregator)
	if !ok {
		return AggregateResult{}, errors.New("index: the full engine cannot aggregate")
	}
	return a.Aggregate(ctx, req)
}

var _ Suggester = Router{}

// Words are Full's: Fast holds no text.
func (r Router) Words(ctx context.Context, kind Kind, company int64, word string, maxEdits int) ([]string, error) {
	s, ok := r.Full.(Suggester)
	if !ok {
		return nil, nil
	}
	return s.Words(ctx, kind, company, word, maxEdits)
}

// Close closes both engines.
func (r Router) Close() error {
	return errors.Join(r.Fast.Close(), r.Full.Close())
}
