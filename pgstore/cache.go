package pgstore

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// A write reads the same records again and again: a loader its company
// and user for each conversation, the domain each conversation's mailbox
// and tags, the indexer each touched conversation and its threads once
// per kind of document. A transaction keeps what its reads of records by
// key answered (the statements registered with cachedStmt) and answers
// the same read again from it, without a round trip, until one of its
// statements writes the table the read reads (an INSERT, UPDATE or DELETE
// naming it). A transaction sees the data as of its snapshot changed by
// its own statements alone, so the kept answer is the one the database
// would give.

// cachedReads maps each cacheable statement to the one table it reads.
var cachedReads = map[string]string{}

var (
	// readTable finds the tables a statement reads.
	readTable = regexp.MustCompile(`(?i)\b(?:FROM|JOIN|USING)\s+([a-z_][a-z0-9_]*)`)
	// writtenTable finds the tables a statement writes. "DO UPDATE SET"
	// and "FOR UPDATE" name no table, and nothing is cached as SET or
	// SKIP.
	writtenTable = regexp.MustCompile(`(?i)\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)`)
)

// cachedStmt registers (stmt) a read of one table whose answer a
// transaction may keep: a plain SELECT, no locking clause, of rows
// selected by its arguments alone.
func cachedStmt(sql string) string {
	tables := readTable.FindAllStringSubmatch(sql, -1)
	if len(tables) != 1 || writtenTable.MatchString(sql) || strings.Contains(strings.ToUpper(sql), " FOR ") {
		panic(fmt.Sprintf("pgstore: a cached read selects from one table and locks nothing: %s", sql))
	}
	cachedReads[sql] = tables[0][1]
	return stmt(sql)
}

// writes lists the tables each statement writes, found once per text.
var writes = map[string][]string{}

func writtenTables(sql string) []string {
	if tables, ok := writes[sql]; ok {
		return tables
	}
	var tables []string
	for _, m := range writtenTable.FindAllStringSubmatch(sql, -1) {
		tables = append(tables, strings.ToLower(m[1]))
	}
	return tables
}

func init() {
	// Every registered statement's tables, found before any transaction
	// runs, so the map is only read afterwards (transactions run in
	// parallel).
	for _, sql := range statements {
		writes[sql] = writtenTables(sql)
	}
}

// readKey names one read: a cached statement and its arguments.
type readKey struct {
	sql  string
	args [3]any
	all  bool // every row (many), not the first (scan)
}

// answer is what a read returned: its rows' values.
type answer [][]any

// keyOf is the key of a read that may be answered from the cache; ok is
// false for any other.
func keyOf(sql string, args []any) (key readKey, table string, ok bool) {
	table, ok = cachedReads[sql]
	if !ok || len(args) > len(key.args) {
		return key, "", false
	}
	key.sql = sql
	for i, a := range args {
		switch a.(type) {
		case int64, string:
			key.args[i] = a
		default:
			return key, "", false
		}
	}
	return key, table, true
}

// cached returns the kept answer of a read.
func (t *Tx) cached(table string, key readKey) (answer, bool) {
	a, ok := t.reads[table][key]
	return a, ok
}

// keep records a read's answer.
func (t *Tx) keep(table string, key readKey, a answer) {
	if t.reads == nil {
		t.reads = map[string]map[readKey]answer{}
	}
	if t.reads[table] == nil {
		t.reads[table] = map[readKey]answer{}
	}
	t.reads[table][key] = a
}

// wrote forgets the answers of reads of the tables a statement writes.
func (t *Tx) wrote(sql string) {
	if len(t.reads) == 0 {
		return
	}
	tables, ok := writes[sql]
	if !ok {
		tables = writtenTables(sql)
	}
	for _, table := range tables {
		delete(t.reads, table)
	}
}

// rowValues copies a row scanned into dest, for a cached read: only
// int64 and []byte destinations are kept (ok false otherwise).
func rowValues(dest []any) (values []any, ok bool) {
	values = make([]any, len(dest))
	for i, d := range dest {
		switch d := d.(type) {
		case *int64:
			values[i] = *d
		case *[]byte:
			values[i] = bytes.Clone(*d)
		default:
			return nil, false
		}
	}
	return values, true
}

// scanValues sets dest from a kept row (see rowValues).
func scanValues(values []any, dest []any) {
	for i, d := range dest {
		switch d := d.(type) {
		case *int64:
			*d = values[i].(int64)
		case *[]byte:
			*d = bytes.Clone(values[i].([]byte))
		}
	}
}
