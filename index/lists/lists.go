// Package lists is the in-memory engine of lists and reports: the cheap
// path for conversation lists, an engine that answers searches with no text query whose filters and sort
// touch only a conversation's own small fields (status, mailbox, folder,
// assignee, tags, number, dates).
//
// Those are most list calls an integrator or an inbox view makes, and on
// them a full-text engine spends its time decoding sort values hit by hit.
// Here each company's conversations are rows of numbers, partitioned by
// status, scanned with a compiled predicate and ranked with a bounded heap,
// so a list costs one pass over the company's rows of the wanted statuses;
// an inbox list (statuses and mailboxes only) or a list with a selective
// date range reads only its part of the rows kept sorted (order.go).
//
// It is the cheap path for reports too: beside the list rows it keeps
// report rows (table.go), the non-text fields of conversations, messages,
// calls and chats, over which it answers the aggregates and facets
// reports ask for (aggregate.go) in one pass over memory.
//
// The engine holds no data of its own on disk: when the process starts,
// Load fills it from storage through the document builders (indexer's,
// passed in as a Projection: lists imports no indexer), or Open restores
// the snapshot a clean shutdown saved; the syncer keeps it current
// through Apply like any engine. index.Router sends it the requests it
// Supports, and the facets and aggregates it can answer.
package lists

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
)

// Numeric fields a row holds, by position in row.nums.
const (
	fID = iota
	fNumber
	fMailbox
	fFolder
	fAssignee
	fCreated
	fModified
	fWaiting
	numFields
)

var numberFields = map[string]int{
	"id": fID, "number": fNumber, "mailboxId": fMailbox, "folderId": fFolder, "assigneeId": fAssignee,
	"createdAt": fCreated, "modifiedAt": fModified, "waitingSince": fWaiting,
}

// Single-valued keyword fields, by position in row.words. The mailbox's
// and the assignee's names are there for facets (see facets.go).
const (
	kStatus = iota
	kState
	kType
	kMailboxName
	kAssigned
	wordFields
)

var keywordFields = map[string]int{"status": kStatus, "state": kState, "type": kType,
	"mailboxName": kMailboxName, "assigned": kAssigned}

// tagField is the one multi-valued keyword a row holds.
const tagField = "tag"

// row is one conversation as lists see it. Values are the document's: dates
// in Unix milliseconds, absent numbers marked in has; keywords by their
// number in the engine's vocabulary, noWord for none (as strings, the
// keywords were 80 of a row's 176 bytes, and five pointers each for the
// garbage collector to follow).
type row struct {
	nums  [numFields]float64
	has   uint16 // bit i set when nums[i] holds a value
	words [wordFields]uint32
	tags  []uint32
}

func (r *row) value(f int) (float64, bool) { return r.nums[f], r.has&(1<<f) != 0 }

// part is the rows of one company and status.
type part struct {
	rows []row
	pos  map[int64]int // conversation id -> index in rows
	// mailboxes counts the rows of each mailbox id, so a list of
	// mailboxes is counted without a scan (order.go).
	mailboxes map[float64]int
	// orders are the rows sorted for lists (order.go), built by searches
	// under mu (they hold the engine's read lock only) and kept current
	// by writes.
	orders map[orderKey]*rowOrder
	mu     sync.Mutex
}

// count adds n to the count of r's mailbox.
func (p *part) count(r *row, n int) {
	if m, ok := r.value(fMailbox); ok {
		if p.mailboxes[m] += n; p.mailboxes[m] == 0 {
			delete(p.mailboxes, m)
		}
	}
}

// Engine is the in-memory list engine. It is safe for concurrent use.
type Engine struct {
	mu    sync.RWMutex
	parts map[int64]map[string]*part // company -> status -> rows
	where map[int64]*part            // conversation id -> its part
	// Report rows (see table.go), and the keywords list and report rows
	// hold by number.
	tables map[tableKey]*table
	vocab  *vocabulary
	// fill is the filling of the rows while it runs (see rowFill); nil when
	// they hold every document.
	fill *rowFill
}

// tableKey names the report rows of one company and kind.
type tableKey struct {
	company int64
	kind    index.Kind
}

var _ index.Engine = (*Engine)(nil)

// New returns an empty engine.
func New() *Engine {
	return &Engine{parts: map[int64]map[string]*part{}, where: map[int64]*part{},
		tables: map[tableKey]*table{}, vocab: newVocabulary()}
}

// replace takes fresh's rows; callers own fresh.
func (e *Engine) replace(fresh *Engine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.parts, e.where = fresh.parts, fresh.where
	e.tables, e.vocab = fresh.tables, fresh.vocab
	if e.fill != nil {
		e.fill.stopped = true // a fill of the rows replaced: its work is moot
	}
	e.fill = fresh.fill
}

// Projection builds the documents of stored records the way the syncer
// does (package indexer's builders, passed in), so that Load fills the
// engine with the rows the syncer's documents make.
type Projection struct {
	// List yields a stored conversation's list fields alone (no threads
	// read), ok false when it is not searchable: what Load fills the list
	// rows from before the report rows (see Load).
	List func(tx parley.Tx, c *parley.Conversation) (doc index.Document, ok bool)
	// Conversation yields the documents of a stored conversation: its own
	// (none when it is not searchable) and those of its messages and calls.
	// It reads the names of tags, mailboxes and assignees through tx,
	// which remembers them.
	Conversation func(tx parley.Tx, c *parley.Conversation, yield func(index.Kind, index.Document)) error
	// Chat builds the document of a company's chat, ok false when it has
	// none.
	Chat func(tx parley.Tx, companyID int64, id string) (doc index.Document, ok bool, err error)
}

// Source is the storage the engine fills itself from: its transactions, to
// walk every conversation, and its last outbox sequence, which marks a
// snapshot. storage.DB is one.
type Source interface {
	Store() parley.Store
	LastOutboxSeq() (uint64, error)
}

// Load replaces the engine's rows with those of every searchable
// conversation and chat of store, filled by a goroutine after it returns
// (see rowFill): first the list rows, from each conversation's list
// fields alone, then the report rows, which need every conversation's
// threads, five times the work. Until the list rows are in, list requests
// go to the full engine; until the report rows are in, requests on
// conversations' report rows go to the full engine too (the router asks
// it when the rows do not answer), and those on textless kinds wait (see
// readRows). Call Load before the syncer runs, so that it undoes no newer
// Apply; what Apply puts after it is kept over the fill's older reading
// of the store.
func (e *Engine) Load(store parley.Store, project Projection) {
	fresh := New()
	fill := newFill()
	fill.listRows = true
	fresh.fill = fill
	e.replace(fresh)
	go e.fillFromStore(store, project, fill)
}

// Refill drops the rows a failed fill left incomplete and fills them
// again from store in the background, as Load does, while the syncer goes
// on applying: after a snapshot's rows turned out damaged, so that the
// requests on textless kinds, which only report rows answer, and the
// lists come back without a restart. Every document applied before the
// call is in store, and those applied after it are left alone by the fill
// (rowFill).
func (e *Engine) Refill(store parley.Store, project Projection) {
	e.mu.Lock()
	fill := newFill()
	if e.fill != nil {
		e.fill.stopped = true
		fill.listRows = e.fill.listRows
	}
	if fill.listRows {
		e.parts, e.where = map[int64]map[string]*part{}, map[int64]*part{}
	}
	e.tables, e.fill = map[tableKey]*table{}, fill
	e.mu.Unlock()
	go e.fillFromStore(store, project, fill)
}

// fillFromStore fills the list rows, when fill asks for them, then the
// report rows, from store.
func (e *Engine) fillFromStore(store parley.Store, project Projection, fill *rowFill) {
	defer close(fill.done)
	var err error
	if fill.listRows {
		err = e.fillLists(store, project, fill)
	}
	if err == nil {
		err = e.fillReports(store, project, fill)
	}
	e.endFill(fill, err)
}

// fillLists puts the list row of every searchable conversation of store,
// a chunk of conversations at a time under the write lock, then marks
// the list rows in.
func (e *Engine) fillLists(store parley.Store, project Projection, fill *rowFill) error {
	var docs []index.Document
	putDocs := func() error {
		err := e.locked(fill, func() {
			for _, d := range docs {
				if _, touched := fill.touched[fillKey{index.Conversations, d.ID}]; !touched {
					e.put(d.Company, e.documentRow(d))
				}
			}
		})
		docs = docs[:0]
		return err
	}
	err := store.View(context.Background(), func(tx parley.Tx) error {
		names := newNameCache(tx)
		return tx.EachConversation(func(c *parley.Conversation) error {
			if d, ok := project.List(names, c); ok {
				if docs = append(docs, d); len(docs) == restoreChunk {
					return putDocs()
				}
			}
			return nil
		})
	})
	if err == nil {
		err = putDocs()
	}
	if err != nil {
		return err
	}
	return e.locked(fill, func() { fill.listRows = false })
}

// rowFill is Load's, Restore's or Refill's filling of the rows in the
// background: the list rows, then the report rows. It reads the
// store (or snapshot) as it was when it began; Apply goes on meanwhile
// with newer documents, so the fill leaves alone every document Apply
// touched (put or deleted) since it began: Apply's is as new, or a later
// outbox entry will bring it up to date. Fields are guarded by the
// engine's lock.
type rowFill struct {
	touched map[fillKey]struct{}
	done    chan struct{} // closed when the fill ends
	stopped bool          // the engine closed, or a newer Load replaced the rows
	err     error         // why the fill failed; the rows it fills then stay unused
	// listRows is set while the fill still puts the list rows: until
	// they are in, list requests go to the full engine (listPlan).
	listRows bool
}

func newFill() *rowFill {
	return &rowFill{touched: map[fillKey]struct{}{}, done: make(chan struct{})}
}

type fillKey struct {
	kind index.Kind
	id   string
}

var errFillStopped = errors.New("lists: rows fill stopped")

// fillReports fills the report rows of every conversation and chat of
// store, one conversation's documents at a time under the write lock.
func (e *Engine) fillReports(store parley.Store, project Projection, fill *rowFill) error {
	type kindDoc struct {
		kind index.Kind
		doc  index.Document
	}
	var docs []kindDoc
	putDocs := func() error {
		e.mu.Lock()
		defer e.mu.Unlock()
		if fill.stopped {
			return errFillStopped
		}
		for _, d := range docs {
			if _, touched := fill.touched[fillKey{d.kind, d.doc.ID}]; !touched {
				e.putReport(d.kind, d.doc)
			}
		}
		docs = docs[:0]
		return nil
	}
	return store.View(context.Background(), func(tx parley.Tx) error {
		names := newNameCache(tx)
		yield := func(kind index.Kind, d index.Document) { docs = append(docs, kindDoc{kind, d}) }
		err := tx.EachConversation(func(c *parley.Conversation) error {
			if err := project.Conversation(names, c, yield); err != nil {
				return err
			}
			return putDocs()
		})
		if err != nil {
			return err
		}
		type chat struct {
			company int64
			id      string
		}
		var chats []chat
		if err := tx.EachChatID(func(company int64, id string) { chats = append(chats, chat{company, id}) }); err != nil {
			return err
		}
		for _, c := range chats {
			d, ok, err := project.Chat(names, c.company, c.id)
			if err != nil {
				return err
			}
			if ok {
				yield(index.Chats, d)
				if err := putDocs(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// endFill records the end of a fill of the rows, which err says
// failed (the rows then stay unused).
func (e *Engine) endFill(fill *rowFill, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case fill.stopped:
	case err != nil:
		fill.err = err
	case e.fill == fill:
		e.fill = nil // the rows are complete
	}
}

// reportsReady reports whether the report rows hold every document;
// callers hold the lock.
func (e *Engine) reportsReady() bool { return e.fill == nil }

// WaitReports waits until Load's, Restore's or Refill's filling of the
// rows (the list rows, then the report rows) ends, and returns why it
// failed, if it did.
func (e *Engine) WaitReports() error {
	e.mu.RLock()
	fill := e.fill
	e.mu.RUnlock()
	if fill == nil {
		return nil
	}
	<-fill.done
	e.mu.RLock()
	defer e.mu.RUnlock()
	if fill.err != nil {
		return fmt.Errorf("lists: fill the report rows: %w", fill.err)
	}
	return nil
}

// nameCache is a transaction that remembers the tags, mailboxes, users and
// teams it has read: a million conversations refer to a few hundred of
// them, and each read decodes a record.
type nameCache struct {
	parley.Tx
	tags      map[[2]int64]cached[parley.Tag]
	mailboxes map[[2]int64]cached[parley.Mailbox]
	users     map[[2]int64]cached[parley.User]
	teams     map[[2]int64]cached[parley.Team]
	companies map[[2]int64]cached[parley.Company]
}

type cached[T any] struct {
	v   *T
	err error
}

func newNameCache(tx parley.Tx) *nameCache {
	return &nameCache{Tx: tx, tags: map[[2]int64]cached[parley.Tag]{}, mailboxes: map[[2]int64]cached[parley.Mailbox]{},
		users: map[[2]int64]cached[parley.User]{}, teams: map[[2]int64]cached[parley.Team]{},
		companies: map[[2]int64]cached[parley.Company]{}}
}

// remember answers from seen, or reads through read and keeps the answer.
func remember[T any](seen map[[2]int64]cached[T], company, id int64, read func(int64, int64) (*T, error)) (*T, error) {
	k := [2]int64{company, id}
	c, ok := seen[k]
	if !ok {
		c.v, c.err = read(company, id)
		seen[k] = c
	}
	return c.v, c.err
}

func (n *nameCache) Tag(company, id int64) (*parley.Tag, error) {
	return remember(n.tags, company, id, n.Tx.Tag)
}

func (n *nameCache) Mailbox(company, id int64) (*parley.Mailbox, error) {
	return remember(n.mailboxes, company, id, n.Tx.Mailbox)
}

func (n *nameCache) User(company, id int64) (*parley.User, error) {
	return remember(n.users, company, id, n.Tx.User)
}

func (n *nameCache) Team(company, id int64) (*parley.Team, error) {
	return remember(n.teams, company, id, n.Tx.Team)
}

// Company is read for every conversation's messages (its report zone and
// office hours).
func (n *nameCache) Company(id int64) (*parley.Company, error) {
	return remember(n.companies, 0, id, func(_, id int64) (*parley.Company, error) { return n.Tx.Company(id) })
}

// documentRow is the row of a conversation document.
func (e *Engine) documentRow(d index.Document) row {
	var r row
	for name, f := range numberFields {
		if vs := d.Numbers[name]; len(vs) > 0 {
			r.nums[f], r.has = vs[0], r.has|1<<f
		}
	}
	for name, f := range keywordFields {
		if vs := d.Keywords[name]; len(vs) > 0 {
			r.words[f] = e.vocab.intern(vs[0])
		}
	}
	for _, t := range d.Keywords[tagField] {
		r.tags = append(r.tags, e.vocab.intern(t))
	}
	return r
}

// add keeps a document's rows: a conversation's list row, and the report
// row of the kinds that have them; callers hold the write lock or own the
// engine.
func (e *Engine) add(kind index.Kind, d index.Document) {
	if kind == index.Conversations {
		e.put(d.Company, e.documentRow(d))
	}
	if e.fill != nil {
		e.fill.touched[fillKey{kind, d.ID}] = struct{}{}
	}
	e.putReport(kind, d)
}

// putReport puts a document's report row, for kinds that have them.
func (e *Engine) putReport(kind index.Kind, d index.Document) {
	if s := schemas[kind]; s != nil {
		k := tableKey{d.Company, kind}
		t := e.tables[k]
		if t == nil {
			t = newTable(s)
			e.tables[k] = t
		}
		t.put(d, e.vocab.intern)
	}
}

// drop removes a document's rows; company 0 means any company.
func (e *Engine) drop(kind index.Kind, company int64, id string) {
	if kind == index.Conversations {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			e.remove(n)
		}
	}
	if schemas[kind] == nil {
		return
	}
	if e.fill != nil {
		e.fill.touched[fillKey{kind, id}] = struct{}{}
	}
	if company != 0 {
		if t := e.tables[tableKey{company, kind}]; t != nil {
			t.remove(id)
		}
		return
	}
	for k, t := range e.tables {
		if k.kind == kind {
			t.remove(id)
		}
	}
}

// Apply keeps the rows of every kind the engine holds.
func (e *Engine) Apply(_ context.Context, b index.Batch, durable func(error)) error {
	e.mu.Lock()
	for _, d := range b.Upserts {
		e.add(b.Kind, d)
	}
	for _, id := range b.Deletes {
		e.drop(b.Kind, b.Company, id)
	}
	e.mu.Unlock()
	if durable != nil {
		durable(nil) // nothing to persist: Load rebuilds from storage
	}
	return nil
}

// put inserts or replaces a row; callers hold the write lock.
func (e *Engine) put(company int64, r row) {
	id := int64(r.nums[fID])
	status := e.vocab.word(r.words[kStatus])
	if at, ok := e.where[id]; ok {
		if p := e.parts[company][status]; p == at {
			i := p.pos[id]
			p.count(&p.rows[i], -1)
			p.count(&r, 1)
			p.rows[i] = r
			p.touch(i, id)
			return
		}
		e.remove(id)
	}
	p := e.part(company, status)
	p.pos[id] = len(p.rows)
	p.rows = append(p.rows, r)
	p.count(&r, 1)
	p.touch(len(p.rows)-1, id)
	e.where[id] = p
}

// part is the part of company and status, made when it has none;
// callers hold the write lock.
func (e *Engine) part(company int64, status string) *part {
	byStatus := e.parts[company]
	if byStatus == nil {
		byStatus = map[string]*part{}
		e.parts[company] = byStatus
	}
	p := byStatus[status]
	if p == nil {
		p = &part{pos: map[int64]int{}, mailboxes: map[float64]int{}}
		byStatus[strings.Clone(status)] = p // status may view the vocabulary (vocabulary.word)
	}
	return p
}

// reserve makes room in the part of company and status for n more rows,
// so that a restore puts a part's rows without growing its slice and map
// (grown by doubling, a million rows were copied over and over: half the
// restore's time at 1M).
func (e *Engine) reserve(company int64, status string, n int) {
	p := e.part(company, status)
	p.rows = slices.Grow(p.rows, n)
	if len(p.pos) == 0 {
		p.pos = make(map[int64]int, n)
	}
}

// remove deletes a row by moving the last row of its part into its slot.
func (e *Engine) remove(id int64) {
	p, ok := e.where[id]
	if !ok {
		return
	}
	delete(e.where, id)
	i, last := p.pos[id], len(p.rows)-1
	p.count(&p.rows[i], -1)
	p.touch(i, id)
	if i != last {
		p.rows[i] = p.rows[last]
		moved := int64(p.rows[i].nums[fID])
		p.pos[moved] = i
		p.touch(last, moved)
	}
	p.rows[last] = row{}
	p.rows = p.rows[:last]
	delete(p.pos, id)
}

// Close stops a fill of the rows; the engine is memory only.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fill != nil {
		e.fill.stopped = true // the fill's store is closing too
	}
	return nil
}
