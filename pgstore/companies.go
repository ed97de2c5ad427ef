package pgstore

import (
	"errors"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

var (
	sqlCompany    = cachedStmt(`SELECT c.body FROM companies c WHERE c.id = $1`)
	sqlCompanies  = stmt(`SELECT c.body FROM companies c ORDER BY c.id`)
	sqlCompanyIDs = stmt(`SELECT c.id FROM companies c ORDER BY c.id`)
	sqlPutCompany = stmt(`INSERT INTO companies (id, body) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body`)
)

// Company loads a company.
func (t *Tx) Company(id int64) (*parley.Company, error) {
	return one[parley.Company](t, "company", sqlCompany, id)
}

// Companies lists every company in id order.
func (t *Tx) Companies() ([]parley.Company, error) { return many[parley.Company](t, sqlCompanies) }

// PutCompany stores a company, assigning an id when ID is 0.
func (t *Tx) PutCompany(c *parley.Company) error {
	if err := t.assignID(seqCompanies, &c.ID); err != nil {
		return err
	}
	return t.put(sqlPutCompany, c, c.ID)
}

// put stores a record: its statement takes the given columns, then the
// body as the last parameter.
func (t *Tx) put(sql string, rec any, columns ...any) error {
	body, err := encodeBody(rec)
	if err != nil {
		return t.check(err)
	}
	return t.exec(sql, append(columns, body)...)
}

// eachCompany calls fn with the id of every company, in id order: the
// walks over every record go company by company, so that each statement
// keeps to one.
func (t *Tx) eachCompany(fn func(companyID int64) error) error {
	ids, err := t.ids(sqlCompanyIDs)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

// walkPage is how many rows a walk over every record reads at a time.
const walkPage = 500

// walk calls fn with every row of a paged statement, company by company,
// until fn returns parley.ErrStop or an error. The statement takes the
// company, the key of the last row read (from key) and a page size; each
// page is read whole before fn runs, so fn may use the transaction.
func walk[T any](t *Tx, sql string, scan func(pgx.CollectableRow) (T, error), key func(T) int64, fn func(T) error) error {
	return walkCompanies(t, sql, scan, key, func(_ int64, rec T) error { return fn(rec) })
}

// walkIDs calls fn with every id of a paged statement of ids (see walk),
// and its company.
func walkIDs(t *Tx, sql string, fn func(companyID, id int64)) error {
	return walkCompanies(t, sql, idRow, func(id int64) int64 { return id }, func(company, id int64) error { fn(company, id); return nil })
}

// walkCompanies is walk handing fn each row's company too.
func walkCompanies[T any](t *Tx, sql string, scan func(pgx.CollectableRow) (T, error), key func(T) int64, fn func(int64, T) error) error {
	err := t.eachCompany(func(company int64) error {
		var after int64
		for {
			page, err := collect(t, scan, sql, company, after, walkPage)
			if err != nil {
				return err
			}
			for _, rec := range page {
				if err := fn(company, rec); err != nil {
					return err
				}
			}
			if len(page) < walkPage {
				return nil
			}
			after = key(page[len(page)-1])
		}
	})
	if errors.Is(err, parley.ErrStop) {
		return nil
	}
	return err
}

// bodyRow scans a row of one body column into its record.
func bodyRow[T any](row pgx.CollectableRow) (T, error) {
	var rec T
	var body []byte
	if err := row.Scan(&body); err != nil {
		return rec, err
	}
	return rec, decodeBody(body, &rec)
}

// idRow scans a row of one bigint column.
func idRow(row pgx.CollectableRow) (int64, error) { return pgx.RowTo[int64](row) }

// textRow scans a row of one text column.
func textRow(row pgx.CollectableRow) (string, error) { return pgx.RowTo[string](row) }
