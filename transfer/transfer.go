// Package transfer copies companies from one store to another through the
// store seam alone, whatever the backends (bbolt to PostgreSQL, back, or
// alike): every kind of record, with its ids, numbers and dates kept, and
// the target's id sequences moved past the copied ids. It then compares
// the copy with its source, kind by kind (counts, and every record whole)
// and by the answers of a fixed set of searches.
package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	parley "github.com/parley/parley"
)

// ErrTargetNotEmpty refuses a copy into a store that already holds a
// company copied, or a record with one of the ids the copy keeps.
var ErrTargetNotEmpty = errors.New("the target is not empty")

// Count is the number of records of one kind of a company, in the source
// and in the target.
type Count struct {
	Company        int64
	Kind           string
	Source, Target int
	// Same is false when the records differ, though their counts may not.
	Same bool
}

// Companies lists the companies a copy moves: ids when given (each must be
// in the source), else every company of the source.
func Companies(from parley.Store, ids []int64) ([]int64, error) {
	err := from.View(context.Background(), func(tx parley.Tx) error {
		if len(ids) > 0 {
			for _, id := range ids {
				if _, err := tx.Company(id); err != nil {
					return fmt.Errorf("company %d in the source: %w", id, err)
				}
			}
			return nil
		}
		all, err := tx.Companies()
		for _, c := range all {
			ids = append(ids, c.ID)
		}
		return err
	})
	return ids, err
}

// Copy copies the companies from one store to the other, once sure the
// target holds none of them nor any of their conversation or customer ids.
// The source must not change meanwhile (a stopped server's).
func Copy(from, to parley.Store, companies []int64) error {
	for _, company := range companies {
		err := to.View(context.Background(), func(tx parley.Tx) error {
			c, err := tx.Company(company)
			if err == nil {
				return fmt.Errorf("%w: company %d (%s) is there already", ErrTargetNotEmpty, company, c.Name)
			}
			if parley.IsNotFound(err) {
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, k := range kinds {
			if err := k.check(from, to, company); err != nil {
				return err
			}
		}
	}
	kept := marks{}
	for _, company := range companies {
		for _, k := range kinds {
			if err := k.copy(from, to, company, kept); err != nil {
				return fmt.Errorf("company %d: %w", company, err)
			}
		}
	}
	_, err := to.Update(context.Background(), func(tx parley.Tx) error {
		for _, family := range slices.Sorted(maps.Keys(kept)) {
			if err := tx.KeepIDsPast(family, kept[family]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("move the target's id sequences past the copied ids: %w", err)
	}
	return nil
}

// Compare counts and digests every kind of the company's records on both
// sides, in the order they are copied.
func Compare(from, to parley.Store, company int64) ([]Count, error) {
	var out []Count
	for _, k := range kinds {
		source, err := k.digest(from, company)
		if err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
		target, err := k.digest(to, company)
		if err != nil {
			return nil, fmt.Errorf("target: %w", err)
		}
		names := slices.Sorted(maps.Keys(source))
		for name := range target {
			if _, ok := source[name]; !ok {
				names = append(names, name)
			}
		}
		for _, name := range names {
			s, t := source[name], target[name]
			out = append(out, Count{Company: company, Kind: name, Source: s.count, Target: t.count,
				Same: s.count == t.count && s.count == 0 || s.sum != nil && t.sum != nil && bytes.Equal(s.sum.Sum(nil), t.sum.Sum(nil))})
		}
	}
	return out, nil
}
