package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"

	parley "github.com/parley/parley"
)

// chunk is how many records one write of the target holds: big enough to
// share commits, small enough to bound memory and a retried transaction.
const chunk = 200

// mover copies one kind of record of a company, and digests it on either
// side so the copy can be compared with its source.
type mover interface {
	// what names the kind in messages and the summary.
	what() string
	// writes names the Tx methods that store the kind (see TestEveryPutIsCopied).
	writes() []string
	// check refuses a copy into a target that already holds one of the
	// company's records of this kind.
	check(from, to parley.Store, company int64) error
	// copy stores the company's records of the kind in the target,
	// noting the ids it kept.
	copy(from, to parley.Store, company int64, m marks) error
	// digest counts the company's records of the kind in a store and
	// hashes them, whole and in order, by the names they are counted under.
	digest(s parley.Store, company int64) (map[string]digest, error)
}

// digest is the count and the hash of the records of a kind.
type digest struct {
	count int
	sum   hash.Hash
}

// kind is a mover: the company's keys are listed in one read of the
// source, then the records are loaded and stored a chunk at a time.
type kind[K, T any] struct {
	name string
	puts []string
	keys func(tx parley.Tx, company int64) ([]K, error)
	load func(tx parley.Tx, company int64, key K) (T, error)
	put  func(tx parley.Tx, rec *T) error
	// mark notes the ids a record keeps (nil: none drawn from a sequence).
	mark func(rec *T, m marks)
	// parts calls add with each record the loaded one holds, by the name
	// it is counted under (nil: the record itself, under name).
	parts func(rec *T, add func(name string, part any))
	// taken says whether the target already holds the key (nil: the
	// company's absence from the target is check enough).
	taken func(tx parley.Tx, key K) bool
}

// listed is a kind whose keys are its records.
func listed[T any](name string, puts []string, list func(tx parley.Tx, company int64) ([]T, error), put func(tx parley.Tx, rec *T) error) *kind[T, T] {
	return &kind[T, T]{name: name, puts: puts, keys: list, put: put,
		load: func(_ parley.Tx, _ int64, rec T) (T, error) { return rec, nil }}
}

// marked sets the kind's mark and returns it, for the table of kinds.
func (k *kind[K, T]) marked(mark func(rec *T, m marks)) *kind[K, T] {
	k.mark = mark
	return k
}

func (k *kind[K, T]) what() string     { return k.name }
func (k *kind[K, T]) writes() []string { return k.puts }

func (k *kind[K, T]) list(s parley.Store, company int64) ([]K, error) {
	var keys []K
	err := s.View(context.Background(), func(tx parley.Tx) error {
		var err error
		keys, err = k.keys(tx, company)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list the %s: %w", k.name, err)
	}
	return keys, nil
}

func (k *kind[K, T]) check(from, to parley.Store, company int64) error {
	if k.taken == nil {
		return nil
	}
	keys, err := k.list(from, company)
	if err != nil {
		return err
	}
	return to.View(context.Background(), func(tx parley.Tx) error {
		for _, key := range keys {
			if k.taken(tx, key) {
				return fmt.Errorf("%w: one of the %s copied, %v, is in the target already", ErrTargetNotEmpty, k.name, key)
			}
		}
		return nil
	})
}

// each loads the company's records a chunk at a time and calls fn with
// each chunk.
func (k *kind[K, T]) each(s parley.Store, company int64, fn func([]T) error) error {
	keys, err := k.list(s, company)
	if err != nil {
		return err
	}
	for start := 0; start < len(keys); start += chunk {
		recs := make([]T, 0, chunk)
		err := s.View(context.Background(), func(tx parley.Tx) error {
			recs = recs[:0]
			for _, key := range keys[start:min(start+chunk, len(keys))] {
				rec, err := k.load(tx, company, key)
				if err != nil {
					return fmt.Errorf("load %v: %w", key, err)
				}
				recs = append(recs, rec)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read the %s: %w", k.name, err)
		}
		if err := fn(recs); err != nil {
			return err
		}
	}
	return nil
}

func (k *kind[K, T]) copy(from, to parley.Store, company int64, m marks) error {
	return k.each(from, company, func(recs []T) error {
		_, err := to.Update(context.Background(), func(tx parley.Tx) error {
			for i := range recs {
				if err := k.put(tx, &recs[i]); err != nil {
					return fmt.Errorf("store %s: %w", k.name, err)
				}
			}
			return nil
		})
		for i := range recs {
			if k.mark != nil {
				k.mark(&recs[i], m)
			}
		}
		return err
	})
}

func (k *kind[K, T]) digest(s parley.Store, company int64) (map[string]digest, error) {
	out := map[string]digest{k.name: {sum: sha256.New()}}
	var failed error
	add := func(name string, part any) {
		d, ok := out[name]
		if !ok {
			d.sum = sha256.New()
		}
		d.count++
		failed = errors.Join(failed, hashJSON(d.sum, part))
		out[name] = d
	}
	err := k.each(s, company, func(recs []T) error {
		for i := range recs {
			if k.parts == nil {
				add(k.name, &recs[i])
			} else {
				k.parts(&recs[i], add)
			}
		}
		return failed
	})
	return out, err
}

// hashJSON adds a record's JSON encoding, the form both backends keep, to
// the hash.
func hashJSON(h hash.Hash, rec any) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	h.Write(data)
	h.Write([]byte{'\n'})
	return nil
}

// marks are the highest ids a copy kept, by family.
type marks map[parley.IDFamily]int64

// see notes a kept id.
func (m marks) see(family parley.IDFamily, id int64) { m[family] = max(m[family], id) }
