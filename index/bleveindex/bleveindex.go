// Package bleveindex is Parley's Bleve engine: one Bleve index per document
// kind with an explicit mapping built from the index catalog, the
// translation of query nodes into Bleve queries, and batching.
package bleveindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/index/scorch"
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
	words := w.analyse(string(input))
	out := make(analysis.TokenStream, len(words))
	for i, t := range words {
		out[i] = &analysis.Token{Term: []byte(t), Position: i + 1, Type: analysis.AlphaNumeric}
	}
	return out
}

// Engine is the Bleve implementation of index.Engine.
type Engine struct {
	indexes  map[index.Kind]bleve.Index
	builders map[index.Kind]*builder
	fresh    bool
}

var _ index.Engine = (*Engine)(nil)

// Open opens the indexes under dir, creating them when missing. An index
// built with another mapping version is removed and created empty; Fresh
// then reports true and the caller must rebuild it from storage.
func Open(dir string) (*Engine, error) {
	e := &Engine{indexes: map[index.Kind]bleve.Index{}, builders: map[index.Kind]*builder{}}
	for _, kind := range index.Kinds {
		path := filepath.Join(dir, string(kind)+".bleve")
		idx, fresh, err := openKind(path, kind)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.indexes[kind] = idx
		e.builders[kind] = newBuilder(kind, idx.Mapping())
		e.fresh = e.fresh || fresh
	}
	return e, nil
}

func openKind(path string, kind index.Kind) (bleve.Index, bool, error) {
	idx, err := bleve.OpenUsing(path, scorchConfig())
	if err == nil {
		v, verr := idx.GetInternal([]byte(versionKey))
		if verr == nil && string(v) == index.MappingVersion {
			return idx, false, nil
		}
		idx.Close()
	}
	// Missing, outdated, never completed, or unreadable (a crash before its
	// first persistence): the index is derived data, so start it afresh
	// and let the caller rebuild it from storage.
	if err := os.RemoveAll(path); err != nil {
		return nil, false, fmt.Errorf("bleveindex: remove index %s: %w", path, err)
	}
	idx, err = bleve.NewUsing(path, buildMapping(kind), scorch.Name, scorch.Name, scorchConfig())
	if err != nil {
		return nil, false, fmt.Errorf("bleveindex: create %s: %w", path, err)
	}
	return idx, true, nil
}

// MarkBuilt records the mapping version in every index. Open rebuilds an
// index without it, so call it only once a rebuild is complete and
// durable: a crash mid-rebuild then leads to another rebuild, never to an
// index silently missing documents.
func (e *Engine) MarkBuilt() error {
	for kind, idx := range e.indexes {
		if err := setInternalDurably(idx, versionKey, index.MappingVersion); err != nil {
			return fmt.Errorf("bleveindex: mark %s built: %w", kind, err)
		}
	}
	e.fresh = false
	return nil
}

// setInternalDurably writes an internal key and waits until it is
// persisted: with unsafe_batch a plain SetInternal may not survive a close
// that follows at once.
func setInternalDurably(idx bleve.Index, key, value string) error {
	b := idx.NewBatch()
	b.SetInternal([]byte(key), []byte(value))
	persisted := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { persisted <- err })
	if err := idx.Batch(b); err != nil {
		return err
	}
	return <-persisted
}

// scorchConfig makes batches return once searchable rather than once
// persisted: durability comes from the storage outbox, acknowledged from
// the persisted callback (see Apply).
func scorchConfig() map[string]interface{} {
	return map[string]interface{}{"unsafe_batch": true}
}

// Fresh reports whether Open created an empty index that needs a rebuild.
func (e *Engine) Fresh() bool { return e.fresh }

// buildMapping derives the explicit mapping of a kind from the catalog. The
// default mapping is disabled: only catalog fields are indexed.
func buildMapping(kind index.Kind) mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	for name, tokenizer := range map[string]string{textAnalyzer: stemmedTokenizer, exactAnalyzer: exactTokenizer} {
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
		{Name: index.CompanyField, Type: index.KeywordField},
		{Name: index.PresentField, Type: index.KeywordField},
		{Name: index.WordsField, Type: index.KeywordField},
	}, index.Catalog[kind]...)
	for _, f := range fields {
		doc.AddFieldMappingsAt(f.Name, fieldMapping(f))
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
	switch f.Type {
	case index.TextField:
		// Stemmed forms answer unquoted words only: no positions needed.
		fm = bleve.NewTextFieldMapping()
		fm.Analyzer = textAnalyzer
		fm.IncludeTermVectors = false
	case index.KeywordField:
		fm = bleve.NewKeywordFieldMapping()
		fm.IncludeTermVectors = false
	case index.NumberField:
		fm = bleve.NewNumericFieldMapping()
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

// Apply indexes one batch of a kind. The index runs scorch with
// unsafe_batch: a batch is searchable once introduced, and persisted in the
// background; durable hears of the persistence, so the caller keeps its
// own record (the storage outbox) until then.
func (e *Engine) Apply(ctx context.Context, kind index.Kind, upserts []index.Document, deletes []string, durable func(error)) error {
	idx, ok := e.indexes[kind]
	if !ok {
		return fmt.Errorf("bleveindex: unknown kind %q", kind)
	}
	b := idx.NewBatch()
	build := e.builders[kind]
	for _, d := range upserts {
		if err := b.IndexAdvanced(build.document(d)); err != nil {
			return fmt.Errorf("bleveindex: %w", err)
		}
	}
	for _, id := range deletes {
		b.Delete(id)
	}
	if durable != nil {
		b.SetPersistedCallback(durable)
	}
	return idx.Batch(b)
}

// Close closes every index.
func (e *Engine) Close() error {
	var first error
	for _, idx := range e.indexes {
		if err := idx.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
