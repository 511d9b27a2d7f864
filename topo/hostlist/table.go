package hostlist

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/timelimit"
)

// Table numbers host names (ids 0, 1, ... in the order the names were added), so
// that the node lists of a job history (List) name each host by a small id and a
// host's name is stored once, however many jobs ran on it. A history of 100,000
// jobs of about 500 nodes each held as one string per node of every job took 780 MB;
// as Lists of one Table it takes a few bytes per job (docs/plan.md).
//
// A Table grows as lists are made (Parse, List); reading it (Name, ID, a List's
// names) while nothing adds to it is safe from several goroutines.
type Table struct {
	names   []string
	index   map[string]int32
	scratch []byte // the encoding of the list being made
	// numbered are the ids of names met as numbers of a bracket (Parse), by
	// prefix and zero padding, so that a name a history repeats is not formatted
	// and hashed again for each job that ran on it.
	numbered map[numberedKey]*numberedIDs
}

// numberedKey is a family of names prefix + a number written with width digits
// (zero padded; 0: as is): the name of each number is one string.
type numberedKey struct {
	prefix string
	width  int
}

// numberedIDs are the known ids of a family's numbers: dense from base, or in
// sparse for a number far from the others.
type numberedIDs struct {
	base   uint64
	ids    []int32 // id+1 of number base+i; 0: not met yet
	sparse map[uint64]int32
}

// NewTable returns a table with names at ids 0, 1, ... (names given twice keep
// their first id).
func NewTable(names ...string) *Table {
	t := &Table{index: make(map[string]int32, len(names))}
	for _, n := range names {
		t.add(n)
	}
	return t
}

// Len is the number of names in t.
func (t *Table) Len() int { return len(t.names) }

// Name is the name of id (0 <= id < Len).
func (t *Table) Name(id int32) string { return t.names[id] }

// ID returns the id of name and whether t has it.
func (t *Table) ID(name string) (int32, bool) {
	id, ok := t.index[name]
	return id, ok
}

func (t *Table) add(name string) int32 {
	if id, ok := t.index[name]; ok {
		return id
	}
	if len(t.names) >= math.MaxInt32 {
		// Unreachable in practice: a table holds the distinct hosts of a history.
		panic("hostlist: more than 2^31-1 host names in a table")
	}
	id := int32(len(t.names))
	t.names = append(t.names, name)
	t.index[name] = id
	return id
}

// List returns names, in their order, as a list of t (adding the names t lacks).
// The names are not checked: see Parse for a hostlist expression.
func (t *Table) List(names []string) List {
	var b listBuilder
	b.buf = t.scratch[:0]
	for _, n := range names {
		b.add(t.add(n))
	}
	l := b.list(t)
	t.scratch = b.buf
	return l
}

// Parse returns the names of the hostlist expression expr (Expand's, in Expand's
// order) as a list of t, adding the names t lacks. Errors are Expand's, and a
// refused expression adds nothing. The names of one bracket after a prefix
// (node[0001-0490], the form of sacct's and Slurm's node lists) are not made one by
// one once t has met them: a history of thousands of jobs of thousands of nodes
// each is read at a few nanoseconds a node, not the few hundred of Expand and List
// (docs/plan.md, scale).
func (t *Table) Parse(expr string) (List, error) {
	if _, err := Count(expr); err != nil {
		return List{}, err // Expand's error: it counts first
	}
	var b listBuilder
	b.buf = t.scratch[:0]
	for _, item := range splitTop(expr) {
		prefix, body, ok := oneBracket(item.s)
		if !ok {
			names, err := expandOne(item.s, MaxHosts, &timelimit.Looker{Ctx: context.Background()})
			if err != nil {
				return List{}, inExpr(expr, item, err) // unreachable: counted
			}
			for _, n := range names {
				b.add(t.add(n))
			}
			continue
		}
		for r := range strings.SplitSeq(body, ",") {
			// As rangeList reads it (checked by Count).
			lo, hi, isRange := strings.Cut(r, "-")
			a, _ := strconv.ParseUint(lo, 10, 64)
			z := a
			if isRange && hi != "" {
				z, _ = strconv.ParseUint(hi, 10, 64)
			}
			width := 0
			if len(lo) > 1 && lo[0] == '0' {
				width = len(lo)
			}
			fam := t.family(prefix, width)
			for v := a; ; v++ {
				b.add(t.numberID(fam, prefix, width, v))
				if v == z {
					break
				}
			}
		}
	}
	l := b.list(t)
	t.scratch = b.buf
	return l, nil
}

// oneBracket splits an item of the form prefix[body] (one bracket, at the end; a
// ']' in the prefix is a letter of the name, as Expand reads it).
func oneBracket(item string) (prefix, body string, ok bool) {
	open := strings.IndexByte(item, '[')
	if open < 0 || item[len(item)-1] != ']' {
		return "", "", false
	}
	body = item[open+1 : len(item)-1]
	if strings.ContainsAny(body, "[]") {
		return "", "", false
	}
	return item[:open], body, true
}

func (t *Table) family(prefix string, width int) *numberedIDs {
	k := numberedKey{prefix, width}
	f := t.numbered[k]
	if f == nil {
		if t.numbered == nil {
			t.numbered = map[numberedKey]*numberedIDs{}
		}
		f = &numberedIDs{}
		t.numbered[k] = f
	}
	return f
}

// numberID is the id of prefix + v written with width digits (as rangeList writes
// it), added when t lacks the name.
func (t *Table) numberID(f *numberedIDs, prefix string, width int, v uint64) int32 {
	if i := v - f.base; v >= f.base && i < uint64(len(f.ids)) && f.ids[i] != 0 {
		return f.ids[i] - 1
	}
	if id, ok := f.sparse[v]; ok {
		return id
	}
	digits := strconv.FormatUint(v, 10)
	if len(digits) < width {
		digits = strings.Repeat("0", width-len(digits)) + digits
	}
	id := t.add(prefix + digits)
	// Dense when the slice would stay within a few times the table's size (a
	// site's nodes are numbered densely); a stray number goes to the map.
	limit := uint64(4*len(t.names) + 1024)
	switch {
	case len(f.ids) == 0:
		f.base = v
		f.ids = append(f.ids, id+1)
	case v >= f.base && v-f.base < limit:
		if i := v - f.base; i >= uint64(len(f.ids)) {
			f.ids = append(f.ids, make([]int32, int(i)+1-len(f.ids))...)
		}
		f.ids[v-f.base] = id + 1
	case v < f.base && f.base-v+uint64(len(f.ids)) < limit:
		grown := make([]int32, int(f.base-v)+len(f.ids))
		copy(grown[f.base-v:], f.ids)
		f.ids, f.base = grown, v
		f.ids[0] = id + 1
	default:
		if f.sparse == nil {
			f.sparse = map[uint64]int32{}
		}
		f.sparse[v] = id
	}
	return id
}

// List is a list of host names of a Table, in order (a name may appear twice: a
// list is what was recorded, checked by whoever uses it), stored as runs of
// consecutive ids: the node list of a job that ran on n[0001-0490] of a table that
// numbers those names in that order is one run of a few bytes. The zero List is
// empty and belongs to no table. A List is a value: copies share its storage,
// which is never modified.
type List struct {
	t *Table
	// runs are the runs of ids, each two unsigned varints: the zigzag-coded
	// distance from the end of the previous run (its last id + 1; 0 at first) to
	// the run's first id, and the run's length minus one.
	runs string
	n    int
}

// Len is the number of names in l.
func (l List) Len() int { return l.n }

// Table is the table l's ids refer to (nil for the zero List).
func (l List) Table() *Table { return l.t }

// Runs yields l's runs of consecutive ids in order: each run's first id and its
// length.
func (l List) Runs() iter.Seq2[int32, int32] {
	return func(yield func(int32, int32) bool) {
		end := int64(0)
		for s := l.runs; s != ""; {
			d, k := uvarint(s)
			s = s[k:]
			length, k := uvarint(s)
			s = s[k:]
			first := end + unzigzag(d)
			end = first + int64(length) + 1
			if !yield(int32(first), int32(length+1)) {
				return
			}
		}
	}
}

// AppendIDs appends l's ids, in order, to dst.
func (l List) AppendIDs(dst []int32) []int32 {
	dst = growInt32(dst, l.n)
	for first, length := range l.Runs() {
		for id := first; id < first+length; id++ {
			dst = append(dst, id)
		}
	}
	return dst
}

// Names returns l's names in order (nil for an empty list).
func (l List) Names() []string {
	if l.n == 0 {
		return nil
	}
	out := make([]string, 0, l.n)
	for first, length := range l.Runs() {
		out = append(out, l.t.names[first:first+length]...)
	}
	return out
}

// String is l as a hostlist expression (Compress of its names); "" when empty.
func (l List) String() string {
	s, err := Compress(l.Names())
	if err != nil {
		return fmt.Sprint(l.Names())
	}
	return s
}

func growInt32(s []int32, n int) []int32 {
	if cap(s)-len(s) < n {
		s = append(make([]int32, 0, len(s)+n), s...)
	}
	return s
}

// listBuilder encodes ids as runs.
type listBuilder struct {
	buf         []byte
	first, last int32 // the open run
	open        bool
	n           int
	prevEnd     int64 // the end of the last run written
}

func (b *listBuilder) add(id int32) {
	b.n++
	if b.open && id == b.last+1 && b.last != math.MaxInt32 {
		b.last = id
		return
	}
	b.flush()
	b.first, b.last, b.open = id, id, true
}

func (b *listBuilder) flush() {
	if !b.open {
		return
	}
	b.buf = binary.AppendUvarint(b.buf, zigzag(int64(b.first)-b.prevEnd))
	b.buf = binary.AppendUvarint(b.buf, uint64(b.last-b.first))
	b.prevEnd = int64(b.last) + 1
	b.open = false
}

func (b *listBuilder) list(t *Table) List {
	b.flush()
	if b.n == 0 {
		return List{}
	}
	return List{t: t, runs: string(b.buf), n: b.n}
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// uvarint decodes an unsigned varint at the start of s (written by
// binary.AppendUvarint, so well formed): its value and length.
func uvarint(s string) (uint64, int) {
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 {
			return v | uint64(c)<<(7*i), i + 1
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	return v, len(s)
}
