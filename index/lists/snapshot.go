package lists

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"strconv"
	"syscall"

	"github.com/parley/parley/index"
)

// A snapshot is the engine's rows saved in a file at a clean shutdown, so
// that the next start reads them instead of decoding every stored
// conversation (seconds at a million conversations, against minutes).
//
// It is valid only for the storage state it was taken from, named by a
// Mark: the identity of the storage file and its last outbox sequence.
// Every conversation write queues an outbox entry, so an equal sequence
// means no conversation changed since. Rows hold every batch the syncer
// applied before it stopped; the entries it had not applied are still in
// the outbox (an entry leaves it only once applied), so the start's drain
// brings the rows up to date, as it does every other engine.
//
// The format is binary, little-endian: the magic, the mapping version
// (report rows are laid out by the catalog), the mark, a table of the
// keyword strings, the list rows by part (the count of all rows and of
// parts, then each part's company, status and row count, then its rows:
// numbers, presence bits, keyword indexes, tag indexes); then the report
// rows' keywords and their tables (company, kind, the counts of rows,
// numbers and keywords that size the table before its first row, then
// each row's id, offsets, numbers and keyword indexes); and last a footer
// with each of these two sections' end offset and CRC-32.
//
// The two sections have a checksum each because the list rows are read
// before the start is ready, and the report rows, nine tenths of the file
// at 1M, after it: a start checks only what it reads before it is ready.
// (Checking the whole file first read and summed 952 MB at 1M before the
// start was ready: about 0.4 s of a restart here, more when the file's
// pages are not in memory.)

// Mark identifies the storage state a snapshot belongs to.
type Mark struct {
	Store uint64 // the storage file's identity (its inode)
	Seq   uint64 // its last outbox sequence
}

// snapshotMagic names the format; it changes with the row layout (02: the
// mailbox's and assignee's names joined the keywords; 03: report rows;
// 04: each table's sizes ahead of its rows; 05: the list rows grouped by
// part, each part's size ahead of its rows; 06: a checksum per section).
var snapshotMagic = [8]byte{'P', 'L', 'I', 'S', 'T', 'S', '0', '6'}

// Save writes the engine's rows to path (through a temporary file renamed
// into place). Call it only once the syncer has stopped, with the mark of
// the storage as it is then.
//
// Save first waits for a filling of the rows, if one runs, so
// the snapshot is whole; when the fill failed it saves nothing and the
// next start loads from storage.
func (e *Engine) Save(path string, m Mark) error {
	if err := e.WaitReports(); err != nil {
		return fmt.Errorf("lists: save: %w", err)
	}
	tmp := path + ".new"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("lists: save: %w", err)
	}
	sum := crc32.NewIEEE()
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<20)
	// seal ends a section: its footer entry is its end and the checksum
	// of what was written since the last one.
	var footer []byte
	seal := func() error {
		if err := w.Flush(); err != nil {
			return err
		}
		end, err := f.Seek(0, io.SeekCurrent)
		footer = binary.LittleEndian.AppendUint64(footer, uint64(end))
		footer = binary.LittleEndian.AppendUint32(footer, sum.Sum32())
		sum.Reset()
		return err
	}
	err = e.write(w, m, seal)
	if err == nil {
		_, err = f.Write(footer)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("lists: save: %w", err)
	}
	return nil
}

func (e *Engine) write(w *bufio.Writer, m Mark, seal func() error) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	strings := map[string]uint32{}
	var table []string
	wordIndex := func(s string) uint32 {
		i, ok := strings[s]
		if !ok {
			i = uint32(len(table))
			strings[s] = i
			table = append(table, s)
		}
		return i
	}
	wordIndex("")
	rows, parts := 0, 0
	for _, byStatus := range e.parts {
		for status, p := range byStatus {
			wordIndex(status)
			rows += len(p.rows)
			parts++
			for i := range p.rows {
				for _, w := range p.rows[i].words {
					wordIndex(e.vocab.word(w))
				}
				for _, w := range p.rows[i].tags {
					wordIndex(e.vocab.word(w))
				}
			}
		}
	}
	le := binary.LittleEndian
	put := func(v any) error { return binary.Write(w, le, v) }
	putString := func(s string) error {
		if err := put(uint32(len(s))); err != nil {
			return err
		}
		_, err := w.WriteString(s)
		return err
	}
	if err := errors.Join(put(snapshotMagic), putString(index.MappingVersion), put(m.Store), put(m.Seq), put(uint32(len(table)))); err != nil {
		return err
	}
	for _, s := range table {
		if err := putString(s); err != nil {
			return err
		}
	}
	if err := errors.Join(put(uint64(rows)), put(uint32(parts))); err != nil {
		return err
	}
	var buf []byte
	for company, byStatus := range e.parts {
		for status, p := range byStatus {
			if err := errors.Join(put(uint64(company)), put(strings[status]), put(uint64(len(p.rows)))); err != nil {
				return err
			}
			for i := range p.rows {
				r := &p.rows[i]
				buf = buf[:0]
				for _, v := range r.nums {
					buf = le.AppendUint64(buf, math.Float64bits(v))
				}
				buf = le.AppendUint16(buf, r.has)
				for _, w := range r.words {
					buf = le.AppendUint32(buf, strings[e.vocab.word(w)])
				}
				buf = le.AppendUint32(buf, uint32(len(r.tags)))
				for _, w := range r.tags {
					buf = le.AppendUint32(buf, strings[e.vocab.word(w)])
				}
				if _, err := w.Write(buf); err != nil {
					return err
				}
			}
		}
	}
	if err := seal(); err != nil {
		return err
	}
	if err := e.writeTables(w, putString); err != nil {
		return err
	}
	return seal()
}

// writeTables writes the report rows: their keywords, then each table's
// live rows.
func (e *Engine) writeTables(w *bufio.Writer, putString func(string) error) error {
	le := binary.LittleEndian
	put := func(v any) error { return binary.Write(w, le, v) }
	if err := put(uint32(e.vocab.len())); err != nil {
		return err
	}
	for id := range e.vocab.len() {
		if err := putString(e.vocab.word(uint32(id))); err != nil {
			return err
		}
	}
	if err := put(uint32(len(e.tables))); err != nil {
		return err
	}
	var buf []byte
	for k, t := range e.tables {
		var nums, words uint64
		for i := range t.size() {
			if t.live(i) {
				nums += uint64(t.numOffsets(int32(i))[t.s.nNums])
				words += uint64(t.wordOffsets(int32(i))[t.s.nWords])
			}
		}
		if err := errors.Join(put(uint64(k.company)), putString(string(k.kind)), put(t.overflow),
			put(uint64(t.rows())), put(nums), put(words)); err != nil {
			return err
		}
		for i := range t.size() {
			if !t.live(i) {
				continue
			}
			id := t.ids.at(i)
			buf = le.AppendUint32(buf[:0], uint32(len(id)))
			buf = append(buf, id...)
			nOff, wOff := t.numOffsets(int32(i)), t.wordOffsets(int32(i))
			for _, o := range nOff {
				buf = le.AppendUint16(buf, o)
			}
			for _, o := range wOff {
				buf = le.AppendUint16(buf, o)
			}
			for f := range t.s.nNums {
				for _, c := range t.codesOf(int32(i), f) {
					buf = le.AppendUint64(buf, math.Float64bits(t.value(f, c)))
				}
			}
			for _, v := range t.words[t.wordAt[i]:][:wOff[t.s.nWords]] {
				buf = le.AppendUint32(buf, v)
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// restoreRows fills the list rows, then the report rows, from a
// snapshot's sections (what write wrote), in the background like Load's
// fill: until the list rows are in, list requests go to the full engine,
// and until the report rows are in, they answer nothing; rows of
// documents Apply touched meanwhile are left out, since Apply's are as new
// (see rowFill). It takes the lock a chunk of rows at a time, so
// requests and Apply go on. release unmaps the snapshot; nothing kept
// refers to its bytes.
func (e *Engine) restoreRows(list *listSection, reports section, release func(), fill *rowFill) {
	defer close(fill.done)
	defer release()
	if restoreHook != nil {
		restoreHook()
	}
	err := e.readListRows(list, fill)
	r := &snapshotReader{data: reports.data}
	if err == nil {
		err = reports.check()
	}
	if err == nil {
		err = e.readTables(r, fill)
	}
	if err == nil && len(r.data) != 0 {
		err = errors.New("trailing bytes")
	}
	if err != nil && !errors.Is(err, errFillStopped) {
		err = fmt.Errorf("the snapshot is damaged: %w", err)
	}
	e.endFill(fill, err)
}

// restoreHook, when set (by tests), runs as restoreReports begins.
var restoreHook func()

// restoreChunk is how many keywords or rows restoreReports reads per
// holding of the lock.
const restoreChunk = 4096

// locked runs f under the write lock unless fill was stopped.
func (e *Engine) locked(fill *rowFill, f func()) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if fill.stopped {
		return errFillStopped
	}
	f()
	return nil
}

// readTables reads the report rows' keywords and tables into the engine.
func (e *Engine) readTables(r *snapshotReader, fill *rowFill) error {
	locked := func(f func()) error { return e.locked(fill, f) }
	count := int(r.u32())
	if count > len(r.data)/4 {
		return errors.New("report keyword table out of range")
	}
	// The keywords' sizes first, so the vocabulary grows once.
	size := 0
	for peek, i := *r, 0; i < count && peek.err == nil; i++ {
		n := int(peek.u32())
		size += n
		peek.bytes(n)
	}
	if err := locked(func() { e.vocab.reserve(count, min(size, len(r.data))) }); err != nil {
		return err
	}
	// The snapshot numbers its keywords; Apply may have interned others
	// since the start, so each gets its number in the engine's list.
	words := make([]uint32, count)
	for i := 0; i < count && r.err == nil; {
		err := locked(func() {
			for end := min(i+restoreChunk, count); i < end && r.err == nil; i++ {
				words[i] = e.vocab.intern(string(r.bytes(int(r.u32()))))
			}
		})
		if err != nil {
			return err
		}
	}
	for tables := r.u32(); tables > 0 && r.err == nil; tables-- {
		k := tableKey{int64(r.u64()), index.Kind(r.bytes(int(r.u32())))}
		s := schemas[k.kind]
		if s == nil {
			return fmt.Errorf("no report rows of kind %q", k.kind)
		}
		overflow := r.bytes(1)[0] != 0
		rows, nums, nWords := r.u64(), r.u64(), r.u64()
		// A row takes at least its id's length and its offsets, a number
		// 8 bytes, a keyword 4.
		left := uint64(len(r.data))
		if rows > left/uint64(4+2*(s.nNums+s.nWords+2)) || nums > left/8 || nWords > left/4 {
			return errors.New("report row counts out of range")
		}
		var t *table
		err := locked(func() {
			if t = e.tables[k]; t == nil {
				t = sizedTable(s, int(rows), int(nums), int(nWords))
				e.tables[k] = t
			}
			t.overflow = t.overflow || overflow
		})
		if err != nil {
			return err
		}
		for left := int(rows); left > 0 && r.err == nil; {
			err := locked(func() {
				for end := max(left-restoreChunk, 0); left > end && r.err == nil; left-- {
					r.readRow(t, k.kind, words, fill)
				}
			})
			if err != nil {
				return err
			}
		}
	}
	return r.err
}

// readRow reads one row into t, its keywords numbered by words, unless
// Apply touched its document since the fill began; callers hold the lock.
func (r *snapshotReader) readRow(t *table, kind index.Kind, words []uint32, fill *rowFill) {
	s := t.s
	id := string(r.bytes(int(r.u32())))
	shape := r.appendOffsets(r.shape[:0], s.nNums+1)
	shape = r.appendOffsets(shape, s.nWords+1)
	r.shape = shape
	nNums, nWords := int(shape[s.nNums]), int(shape[len(shape)-1])
	b := r.bytes(8*nNums + 4*nWords)
	for i := 0; i < nWords && r.err == nil; i++ {
		if int(binary.LittleEndian.Uint32(b[8*nNums+4*i:])) >= len(words) {
			r.err = errors.New("report keyword index out of range")
		}
	}
	_, touched := fill.touched[fillKey{kind, id}]
	if _, dup := t.ids.find(id); touched || dup || r.err != nil {
		return
	}
	if len(t.wide)+nNums >= wideBit {
		t.overflow = true
		return
	}
	t.startRow(id, shape)
	for f := range s.nNums {
		for j := shape[f]; j < shape[f+1]; j++ {
			t.nums = append(t.nums, t.encode(f, math.Float64frombits(binary.LittleEndian.Uint64(b[8*int(j):]))))
		}
	}
	for i := range nWords {
		t.words = append(t.words, words[binary.LittleEndian.Uint32(b[8*nNums+4*i:])])
	}
}

// appendOffsets appends a row's n offsets to out; they must start at 0
// and not decrease.
func (r *snapshotReader) appendOffsets(out []uint16, n int) []uint16 {
	b := r.bytes(2 * n)
	if r.err != nil {
		return append(out, make([]uint16, n)...)
	}
	prev := uint16(0)
	for i := range n {
		o := binary.LittleEndian.Uint16(b[2*i:])
		if o < prev || i == 0 && o != 0 {
			r.err = errors.New("row offsets out of order")
		}
		out = append(out, o)
		prev = o
	}
	return out
}

// Restore replaces the engine's rows with the snapshot at path when it
// belongs to the storage state m, and reports whether it did. A missing
// snapshot, or one of another state, is not an error: the caller loads
// from storage instead. A damaged one is an error (and is not used) when
// its header or the list rows' checksum shows it; damage found as the rows
// fill fails the fill instead (WaitReports says why; Refill reads storage).
//
// Restore reads the snapshot's header and keywords and checks the list
// rows' checksum; the rows fill in the background (see restoreRows),
// so that a start does not wait for them: list requests go to the full
// engine until the list rows are in, and the report rows answer nothing
// until they are in, as after Load. The snapshot is mapped, not read, so
// its bytes are file pages the kernel can drop, not heap.
func (e *Engine) Restore(path string, m Mark) (bool, error) {
	data, release, err := mapFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lists: restore: %w", err)
	}
	fresh, list, reports, err := readListHeader(data, m)
	if err != nil || fresh == nil {
		release()
		return false, err
	}
	fill := newFill()
	fill.listRows = true
	fresh.fill = fill
	e.replace(fresh)
	go e.restoreRows(list, reports, release, fill)
	return true, nil
}

// mapFile maps the file at path read-only; release unmaps it.
func mapFile(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if info.Size() == 0 {
		return nil, func() {}, nil
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}

// section is one checksummed part of a snapshot.
type section struct {
	data []byte
	sum  uint32 // its CRC-32, from the footer
}

func (s section) check() error {
	if crc32.ChecksumIEEE(s.data) != s.sum {
		return errors.New("checksum")
	}
	return nil
}

// The footer is an entry per section, list rows first: the section's end
// offset (uint64) and its CRC-32 (uint32).
const (
	footerEntry = 8 + 4
	footerSize  = 2 * footerEntry
)

// sectionsOf splits a snapshot into its list rows and report rows by its
// footer.
func sectionsOf(data []byte) (list, reports section, err error) {
	if len(data) < footerSize {
		return list, reports, errors.New("no footer")
	}
	body, footer := data[:len(data)-footerSize], data[len(data)-footerSize:]
	entry := func(i int) (end uint64, sum uint32) {
		e := footer[i*footerEntry:]
		return binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint32(e[8:])
	}
	listEnd, listSum := entry(0)
	reportsEnd, reportsSum := entry(1)
	if listEnd > reportsEnd || reportsEnd != uint64(len(body)) {
		return list, reports, errors.New("section ends out of range")
	}
	return section{body[:listEnd], listSum}, section{body[listEnd:], reportsSum}, nil
}

// listSection is a snapshot's list rows, read up to the rows themselves.
type listSection struct {
	r     *snapshotReader
	words []uint32 // the snapshot's keywords, numbered in the engine's vocabulary
	rows  uint64
	parts uint32
}

// word reads a keyword's index in the snapshot and gives its number.
func (l *listSection) word() uint32 {
	i := l.r.u32()
	if int(i) >= len(l.words) {
		l.r.err = errors.New("keyword index out of range")
		return noWord
	}
	return l.words[i]
}

// readListHeader checks a snapshot's sections and reads its list rows'
// header and keywords into a new engine; list is the rows left to read,
// reports the section of the report rows, not yet checked. fresh is nil
// when the snapshot is of another storage state than m.
func readListHeader(data []byte, m Mark) (fresh *Engine, list *listSection, reports section, err error) {
	sec, reports, err := sectionsOf(data)
	if err == nil {
		err = sec.check()
	}
	if err != nil {
		return nil, nil, reports, fmt.Errorf("lists: restore: the snapshot is damaged (%w)", err)
	}
	r := &snapshotReader{data: sec.data}
	var magic [8]byte
	copy(magic[:], r.bytes(8))
	if magic != snapshotMagic || string(r.bytes(int(r.u32()))) != index.MappingVersion {
		return nil, nil, reports, errors.New("lists: restore: not a list snapshot of this version")
	}
	if (Mark{Store: r.u64(), Seq: r.u64()}) != m {
		return nil, nil, reports, nil
	}
	fresh = New()
	count := int(r.u32())
	if count > len(r.data)/4 {
		return nil, nil, reports, errors.New("lists: restore: the snapshot is damaged (string table)")
	}
	list = &listSection{r: r, words: make([]uint32, count)}
	for i := range list.words {
		list.words[i] = fresh.vocab.intern(string(r.bytes(int(r.u32()))))
	}
	list.rows, list.parts = r.u64(), r.u32()
	if list.rows > uint64(len(r.data)/minListRow) || list.parts > uint32(len(r.data)/listPartHeader) {
		return nil, nil, reports, errors.New("lists: restore: the snapshot is damaged (row count)")
	}
	if r.err != nil {
		return nil, nil, reports, fmt.Errorf("lists: restore: the snapshot is damaged: %w", r.err)
	}
	return fresh, list, reports, nil
}

// The least a list row takes in a snapshot (its numbers, presence bits,
// keywords and tag count), and a part's header (its company, status and
// row count).
const minListRow, listPartHeader = 8*numFields + 2 + 4*wordFields + 4, 8 + 4 + 8

// readListRows reads the list rows into the engine, a part's rows a chunk
// at a time under the lock, then marks them in.
func (e *Engine) readListRows(l *listSection, fill *rowFill) error {
	r := l.r
	err := e.locked(fill, func() {
		where := make(map[int64]*part, int(l.rows)+len(e.where))
		maps.Copy(where, e.where) // the rows Apply put since the restore began
		e.where = where
	})
	for parts := l.parts; parts > 0 && err == nil && r.err == nil; parts-- {
		company := int64(r.u64())
		status := l.word()
		n := r.u64()
		if n > uint64(len(r.data)/minListRow) {
			return errors.New("part's row count out of range")
		}
		err = e.locked(fill, func() { e.reserve(company, e.vocab.word(status), int(n)) })
		for left := int(n); left > 0 && err == nil && r.err == nil; {
			err = e.locked(fill, func() {
				for end := max(left-restoreChunk, 0); left > end && r.err == nil; left-- {
					readListRow(r, e, company, l.word, fill)
				}
			})
		}
	}
	if err != nil {
		return err
	}
	if r.err == nil && len(r.data) != 0 {
		r.err = errors.New("trailing bytes after the list rows")
	}
	if r.err != nil {
		return r.err
	}
	return e.locked(fill, func() { fill.listRows = false })
}

// readListRow reads one list row of company into e, its keywords read
// through word, unless Apply touched its conversation since the fill
// began; callers hold the lock.
func readListRow(r *snapshotReader, e *Engine, company int64, word func() uint32, fill *rowFill) {
	var row row
	for f := range row.nums {
		row.nums[f] = math.Float64frombits(r.u64())
	}
	row.has = r.u16()
	for f := range row.words {
		row.words[f] = word()
	}
	switch tags := int(r.u32()); {
	case tags > len(r.data)/4:
		r.err = errors.New("tag count out of range")
	case tags > 0:
		row.tags = make([]uint32, tags)
		for i := range row.tags {
			row.tags[i] = word()
		}
	}
	if r.err != nil {
		return
	}
	if len(fill.touched) > 0 {
		if _, touched := fill.touched[fillKey{index.Conversations, strconv.FormatInt(int64(row.nums[fID]), 10)}]; touched {
			return
		}
	}
	e.put(company, row)
}

// snapshotReader reads little-endian values, remembering the first
// shortfall instead of failing at every call.
type snapshotReader struct {
	data  []byte
	err   error
	shape []uint16 // scratch: the report row being read
}

func (r *snapshotReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.data) {
		if r.err == nil {
			r.err = io.ErrUnexpectedEOF
		}
		return make([]byte, 8) // enough for any fixed-size read; r.err tells
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

func (r *snapshotReader) u16() uint16 { return binary.LittleEndian.Uint16(r.bytes(2)) }
func (r *snapshotReader) u32() uint32 { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *snapshotReader) u64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }

// Open returns the engine of db, whose file is dbFile: restored from the
// snapshot at path when it was saved from db as db is now, else loaded
// from storage through project (a damaged snapshot is reported through
// damaged and not used). The snapshot is removed either way: once the start's drain has
// applied and acknowledged the outbox entries the snapshot predates, the
// same mark would no longer vouch for it, and after a crash the next start
// must read storage.
func Open(db Source, dbFile, path string, project Projection) (e *Engine, restored bool, damaged error, err error) {
	m, err := markOf(db, dbFile)
	if err != nil {
		return nil, false, nil, err
	}
	e = New()
	restored, damaged = e.Restore(path, m)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, false, damaged, fmt.Errorf("lists: remove the used snapshot: %w", err)
	}
	if !restored {
		e.Load(db.Store(), project)
	}
	return e, restored, damaged, nil
}

// SaveFor saves the engine as the snapshot of db (whose file is dbFile)
// at path. Call it once the syncer has stopped.
func (e *Engine) SaveFor(db Source, dbFile, path string) error {
	m, err := markOf(db, dbFile)
	if err != nil {
		return err
	}
	return e.Save(path, m)
}

// SaveAt saves the engine at path as the snapshot of the storage file
// dbFile, closed with seq its last outbox sequence: after a compaction
// (storage.Compact), a new file of the same records, whose snapshot is the
// rows as they were.
func (e *Engine) SaveAt(dbFile string, seq uint64, path string) error {
	m, err := fileMark(dbFile, seq)
	if err != nil {
		return err
	}
	return e.Save(path, m)
}

// markOf is db's mark now: its file's mark at its last outbox sequence.
func markOf(db Source, dbFile string) (Mark, error) {
	seq, err := db.LastOutboxSeq()
	if err != nil {
		return Mark{}, err
	}
	return fileMark(dbFile, seq)
}

// fileMark is the mark of the storage file dbFile whose last outbox
// sequence is seq: its inode (a restored or copied file is another one)
// and seq.
func fileMark(dbFile string, seq uint64) (Mark, error) {
	info, err := os.Stat(dbFile)
	if err != nil {
		return Mark{}, fmt.Errorf("lists: %w", err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return Mark{}, errors.New("lists: the storage file has no inode on this system")
	}
	return Mark{Store: st.Ino, Seq: seq}, nil
}
