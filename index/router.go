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
// when it supports the request, Full otherwise. Both receive every batch,
// so both always hold the same documents; Full's durability is what the
// syncer waits for.
type Router struct {
	Full Engine
	Fast PartialEngine
}

var _ Faceter = Router{}

// Apply hands the batch to Fast, then to Full.
func (r Router) Apply(ctx context.Context, b Batch, durable func(error)) error {
	if err := r.Fast.Apply(ctx, b, nil); err != nil {
		return err
	}
	return r.Full.Apply(ctx, b, durable)
}

// Search runs the request on the cheapest engine that can answer it.
func (r Router) Search(ctx context.Context, req Request) (Result, error) {
	if r.Fast.Supports(req) {
		return r.Fast.Search(ctx, req)
	}
	return r.Full.Search(ctx, req)
}

// PartialFaceter is a partial engine that counts some facets cheaply.
type PartialFaceter interface {
	Faceter
	FacetsSupported(r FacetRequest) bool
}

// Facets are Fast's when it can count them, else Full's.
func (r Router) Facets(ctx context.Context, req FacetRequest) (FacetResult, error) {
	if fast, ok := r.Fast.(PartialFaceter); ok && fast.FacetsSupported(req) {
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

// Aggregate is Fast's when it holds the rows and fields asked for, else
// Full's.
func (r Router) Aggregate(ctx context.Context, req AggregateRequest) (AggregateResult, error) {
	if fast, ok := r.Fast.(PartialAggregator); ok && fast.AggregateSupported(req) {
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
