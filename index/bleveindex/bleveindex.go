// Package bleveindex is Parley's Bleve engine: one Bleve index per document
// kind with an explicit mapping built from the index catalog, the
// translation of query nodes into Bleve queries, and batching.
package bleveindex

import (
	"cmp"
	"container/list"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	bi "github.com/blevesearch/bleve_index_api"

	"github.com/parley/parley/index"
)

const (
	exactTokenizer   = "parley_exact"
	stemmedTokenizer = "parley_stemmed"
	exactAnalyzer    = "parley_exact"
	textAnalyzer     = "parley_text" // stemmed forms, under the text field's own name
	versionKey       = "parley_mapping_version"
)

func init() {
	registry.RegisterTokenizer(exactTokenizer, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return wordTokenizer{analyse: index.Tokens}, nil
	})
	registry.RegisterTokenizer(stemmedTokenizer, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return wordTokenizer{analyse: index.Stems}, nil
	})
}

// wordTokenizer hands Bleve the tokens of index's analysis (index.Tokens
// for exact forms, index.Stems for stemmed ones), so Bleve and the scan
// oracle agree on words. Folding and stemming happen there too, which is
// why the analyzers have no token filter. Offsets are not kept: Parley
// never highlights, and positions are all phrases need.
type wordTokenizer struct{ analyse func(string) []string }

func (w wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	return wordTokens(w.analyse(string(input)), nil)
}

// wordTokens are the Bleve tokens of words, the i-th at position
// positions[i] (i+1 when positions is nil). The tokens, and their terms,
// are made in one allocation each rather than two per word: allocating
// them one by one was a tenth of the analysis of a bulk load. Parley's
// analyzers have no token filter, so nothing rewrites a term in place.
func wordTokens(words []string, positions []int) analysis.TokenStream {
	size := 0
	for _, w := range words {
		size += len(w)
	}
	terms, block, out := make([]byte, 0, size), make([]analysis.Token, len(words)), make(analysis.TokenStream, len(words))
	for i, w := range words {
		at := len(terms)
		terms = append(terms, w...)
		position := i + 1
		if positions != nil {
			position = positions[i]
		}
		block[i] = analysis.Token{Term: terms[at:len(terms):len(terms)], Position: position, Type: analysis.AlphaNumeric}
		out[i] = &block[i]
	}
	return out
}

// Engine is the Bleve implementation of index.Engine: a partition (one
// Bleve index) per document kind and company, under dir/<kind>/<company>.bleve
// (see partition.go), and dir/VERSION, the mapping version the partitions
// were built with.
type Engine struct {
	dir      string
	maxOpen  int
	fresh    bool
	mappings map[index.Kind]mapping.IndexMapping
	builders map[index.Kind]*builder

	mu       sync.Mutex
	open     map[partitionKey]*partition
	recent   *list.List // open partitions, most recently used first
	closeErr error      // from partitions closed by eviction
}

var _ index.Engine = (*Engine)(nil)

// Options tune an engine.
type Options struct {
	// MaxOpen bounds the partitions open at once (DefaultMaxOpen when 0).
	MaxOpen int
}

// Open opens the engine under dir with default options.
func Open(dir string) (*Engine, error) { return OpenWith(dir, Options{}) }

// OpenWith opens the engine under dir, creating it when missing. An engine
// built with another mapping version (or another layout, or never marked
// built) is removed and started empty; Fresh then reports true and the
// caller must rebuild it from storage. Partitions open lazily.
func OpenWith(dir string, o Options) (*Engine, error) {
	e := &Engine{dir: dir, maxOpen: cmp.Or(o.MaxOpen, DefaultMaxOpen), mappings: map[index.Kind]mapping.IndexMapping{},
		builders: map[index.Kind]*builder{}, open: map[partitionKey]*partition{}, recent: list.New()}
	for _, kind := range index.Kinds {
		e.mappings[kind] = buildMapping(kind)
		e.builders[kind] = newBuilder(kind, e.mappings[kind])
	}
	v, err := os.ReadFile(e.versionPath())
	if err == nil && string(v) == index.MappingVersion {
		return e, nil
	}
	// Missing, outdated, never completed or of an older layout: the index
	// is derived data, so start it afresh and let the caller rebuild it.
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("bleveindex: remove index %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("bleveindex: create %s: %w", dir, err)
	}
	e.fresh = true
	return e, nil
}

func (e *Engine) versionPath() string { return filepath.Join(e.dir, "VERSION") }

// MarkBuilt records the mapping version. Open rebuilds an engine without
// it, so call it only once a rebuild is complete and durable: a crash
// mid-rebuild then leads to another rebuild, never to an index silently
// missing documents.
func (e *Engine) MarkBuilt() error {
	tmp := e.versionPath() + ".new"
	if err := writeSynced(tmp, []byte(index.MappingVersion)); err != nil {
		return fmt.Errorf("bleveindex: mark built: %w", err)
	}
	if err := os.Rename(tmp, e.versionPath()); err != nil {
		return fmt.Errorf("bleveindex: mark built: %w", err)
	}
	if err := syncDir(e.dir); err != nil {
		return fmt.Errorf("bleveindex: mark built: %w", err)
	}
	e.fresh = false
	return nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// scorchConfig makes batches return once searchable rather than once
// persisted: durability comes from the storage outbox, acknowledged from
// the persisted callback (see Apply). Scorch's events go to the
// partitions' warmers (warmer.go). Merges follow scorch's tiered plan
// with a lower floor (floorSegmentSize).
func scorchConfig() map[string]interface{} {
	return map[string]interface{}{"unsafe_batch": true, "eventCallbackName": warmEvents,
		"scorchMergePlanOptions": map[string]interface{}{"FloorSegmentSize": floorSegmentSize}}
}

// floorSegmentSize is the size, in documents, below which scorch's merge
// plan counts a segment as that size: the first tier's size. Scorch's own
// floor is 2,000. A write through the API reaches the index in a batch of
// one to a few dozen documents, so at that floor every small segment sat in
// the first tier with the segment its predecessors had been merged into;
// each new batch took the tier over its budget, and the merge rewrote that
// growing segment again, until it passed 2,000 documents. Loading 10,000
// conversations through the API with 32 clients, the merger took two
// thirds of the CPU and the load ran at 190 conversations a second; at a
// floor of 100, at 1,175 (10, 1,210; 500, 949). The price is more
// segments between merges: the tiers start ten times lower, so a partition
// is allowed one tier more (ten segments) before merging (at 333,000
// documents, 33 instead of 21). A bulk load's batches (DrainBatch outbox
// entries: about 1,700 documents per partition at the bench's three
// companies) start near the old floor, so its merges barely change (100k:
// 829 then 776 conversations a second, within noise); Compact still leaves
// one segment.
const floorSegmentSize = 100

// Fresh reports whether Open created an empty index that needs a rebuild.
func (e *Engine) Fresh() bool { return e.fresh }

// buildMapping derives the explicit mapping of a kind from the catalog. The
// default mapping is disabled: only catalog fields are indexed.
func buildMapping(kind index.Kind) mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	analyzers := map[string]string{textAnalyzer: stemmedTokenizer, exactAnalyzer: exactTokenizer}
	for _, t := range tries {
		analyzers[t.name] = t.name
	}
	for name, tokenizer := range analyzers {
		if err := m.AddCustomAnalyzer(name, map[string]interface{}{
			"type": custom.Name, "tokenizer": tokenizer, "token_filters": []string{},
		}); err != nil {
			panic(err) // a static configuration error, caught by every test
		}
	}
	m.ScoringModel = bi.BM25Scoring
	m.DefaultMapping.Enabled = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	m.DefaultAnalyzer = keyword.Name
	doc := bleve.NewDocumentStaticMapping()
	fields := append([]index.Field{
		{Name: index.PresentField, Type: index.KeywordField},
	}, index.Catalog[kind]...)
	for _, f := range fields {
		fm := fieldMapping(f)
		if f.Name == index.PresentField { // as the builder writes it
			fm.SkipFreqNorm = presentOptions&bi.SkipFreqNorm != 0
		}
		doc.AddFieldMappingsAt(f.Name, fm)
		if f.Type == index.TextField {
			doc.AddFieldMappingsAt(index.ExactField(f.Name), exactMapping(f))
		}
		if f.Substrings {
			doc.AddFieldMappingsAt(suffixPrefix+f.Name, fieldMapping(index.Field{Type: index.KeywordField}))
		}
		if f.Sortable && f.Type == index.NumberField {
			doc.AddFieldMappingsAt(sortPrefix+f.Name, fieldMapping(index.Field{Type: index.KeywordField, Sortable: true}))
		}
		if f.Valued {
			// A keyword twin whose terms are the values, for Values facets.
			doc.AddFieldMappingsAt(index.ValuedPrefix+f.Name, fieldMapping(index.Field{Type: index.KeywordField}))
		}
	}
	// Custom field values live under dynamic sub-documents.
	doc.AddSubDocumentMapping("cfk", dynamicMapping(keyword.Name))
	doc.AddSubDocumentMapping("cft", dynamicMapping(textAnalyzer))
	doc.AddSubDocumentMapping("cfn", dynamicMapping(keyword.Name))
	m.AddDocumentMapping(string(kind), doc)
	m.DefaultType = string(kind)
	m.TypeField = "_kind"
	return m
}

func fieldMapping(f index.Field) *mapping.FieldMapping {
	var fm *mapping.FieldMapping
	switch {
	case f.Type == index.NumberField && f.Key:
		// One exact term per value (see sortKey), not a number's sixteen.
		fm = bleve.NewKeywordFieldMapping()
		fm.IncludeTermVectors = false
	case f.Type == index.TextField:
		// Stemmed forms answer unquoted words only: no positions needed.
		// The builder indexes only the stems that differ from their words
		// (stem.go); the analyzer names the forms the field holds.
		fm = bleve.NewTextFieldMapping()
		fm.Analyzer = textAnalyzer
		fm.IncludeTermVectors = false
	case f.Type == index.KeywordField:
		fm = bleve.NewKeywordFieldMapping()
		fm.IncludeTermVectors = false
	case f.Type == index.NumberField:
		// The trie of terms of number.go, not Bleve's numeric field.
		fm = bleve.NewTextFieldMapping()
		fm.Analyzer = trieOf(f).name
		fm.IncludeTermVectors = false
	}
	fm.Store = false
	fm.IncludeInAll = false
	fm.DocValues = f.Sortable && f.Type != index.NumberField // numbers sort on their twin
	return fm
}

// exactMapping is the mapping of a text field's exact-form twin, which
// keeps positions when the field is searched by phrase.
func exactMapping(f index.Field) *mapping.FieldMapping {
	fm := fieldMapping(f)
	fm.Analyzer = exactAnalyzer
	fm.IncludeTermVectors = f.Phrases
	return fm
}

func dynamicMapping(analyzer string) *mapping.DocumentMapping {
	d := bleve.NewDocumentMapping()
	d.Dynamic = true
	d.DefaultAnalyzer = analyzer
	return d
}

// Apply indexes one batch in its company's partition (created on its
// first document). A batch of unknown company (index.Batch) deletes from
// every partition of its kind. The partitions run scorch with
// unsafe_batch: a batch is searchable once introduced, and persisted in
// the background; durable hears of the persistence, so the caller keeps
// its own record (the storage outbox) until then.
func (e *Engine) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	if _, ok := e.mappings[b.Kind]; !ok {
		return fmt.Errorf("bleveindex: unknown kind %q", b.Kind)
	}
	for _, d := range b.Upserts {
		if d.Company != b.Company {
			return fmt.Errorf("bleveindex: document %s of company %d in a batch of company %d", d.ID, d.Company, b.Company)
		}
	}
	companies := []int64{b.Company}
	if b.Company == 0 {
		var err error
		if companies, err = e.companies(b.Kind); err != nil {
			return fmt.Errorf("bleveindex: %w", err)
		}
	}
	var parts []*partition
	defer func() {
		for _, p := range parts {
			e.release(p)
		}
	}()
	for _, company := range companies {
		p, err := e.acquire(partitionKey{b.Kind, company}, len(b.Upserts) > 0)
		if err != nil {
			return err
		}
		if p != nil {
			parts = append(parts, p)
		}
	}
	done := allDone(len(parts), durable)
	for i, p := range parts {
		if err := e.applyTo(p, b, done); err != nil {
			for range parts[i:] {
				done(err)
			}
			return err
		}
	}
	return nil
}

// applyTo writes b to one partition.
func (e *Engine) applyTo(p *partition, b index.Batch, durable func(error)) error {
	batch := p.idx.NewBatch()
	for _, d := range b.Upserts {
		doc, err := p.build.document(d)
		if err == nil {
			err = batch.IndexAdvanced(doc)
		}
		if err != nil {
			return fmt.Errorf("bleveindex: %w", err)
		}
	}
	for _, id := range b.Deletes {
		batch.Delete(id)
	}
	e.mu.Lock()
	p.dirty++
	e.mu.Unlock()
	// Scorch calls back from the partition's own persister: evicting (so
	// closing) the partition from here would wait on itself, so eviction
	// is left to the next acquire or release.
	batch.SetPersistedCallback(func(err error) {
		e.mu.Lock()
		p.dirty--
		e.mu.Unlock()
		durable(err)
	})
	if err := p.idx.Batch(batch); err != nil {
		e.mu.Lock()
		p.dirty--
		e.mu.Unlock()
		return fmt.Errorf("bleveindex: %w", err)
	}
	return nil
}

// allDone returns a callback to be called n times that calls durable
// once, after the last call, with the first error; durable may be nil.
// With n 0 it calls durable at once.
func allDone(n int, durable func(error)) func(error) {
	var mu sync.Mutex
	var first error
	left := n
	done := func(err error) {
		mu.Lock()
		first = cmp.Or(first, err)
		left--
		last := left == 0
		mu.Unlock()
		if last && durable != nil {
			durable(first)
		}
	}
	if n == 0 && durable != nil {
		durable(nil)
	}
	return done
}

// Close closes every open partition.
func (e *Engine) Close() error {
	e.mu.Lock()
	var parts []*partition
	for _, p := range e.open {
		parts = append(parts, p)
	}
	e.open = nil
	e.mu.Unlock()
	for _, p := range parts {
		<-p.ready // an open under way finishes first, so its index is closed too
	}
	e.closeAll(parts)
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closeErr
}
