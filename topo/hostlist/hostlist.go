package hostlist

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
)

// MaxHosts bounds what Expand produces, so that a typo such as n[0-999999999] is an
// error and not an exhausted memory.
const MaxHosts = 1 << 22

// ErrSyntax is wrapped by every Expand error.
var ErrSyntax = errors.New("invalid hostlist")

// Expand returns the host names of expr, a list of names separated by commas or
// white space (outside brackets; empty elements are skipped, as Slurm's
// hostlist_create does, so "n[1-2],,n3" and "n1 n2" are lists), each with zero or
// more bracketed range lists ([1-3,7], zero padding kept: [001-016]), in Slurm's
// order: with one or two brackets left to right, the first outermost; with more,
// the last bracket fastest, then the first, second, ..., the one before the last
// slowest (as scontrol show hostnames does). Text after the last bracket of a name is
// refused, as Slurm refuses it; a ']' before the first '[' is part of the name, as in
// Slurm. Refused where Slurm is lenient: an unmatched '[' (scontrol prints n[1-2 as
// n]) and numbers of 2^63 and more; and refused as in Slurm: reversed ranges, lists
// of more than MaxHosts names and an expression with no name at all (where scontrol
// prints nothing: an empty list of nodes is always a mistake here).
func Expand(expr string) ([]string, error) {
	return expandAll(context.Background(), []string{expr})
}

// ExpandContext is Expand of every expression in exprs, the names concatenated,
// looking at ctx every few thousand names (and items): a 131,072-name list takes
// tens of milliseconds, a megabyte of names more. MaxHosts bounds the total over
// all of them, so that many expressions of MaxHosts names each are an error and not
// an exhausted memory. A cancelled ctx returns context.Cause(ctx) itself,
// unwrapped; the caller says what it was expanding.
func ExpandContext(ctx context.Context, exprs ...string) ([]string, error) {
	return expandAll(ctx, exprs)
}

// lookEvery is how many names (or items) Expand makes between looks at its context
// (timelimit.Looker's rule).
const lookEvery = timelimit.LookEvery

func expandAll(ctx context.Context, exprs []string) ([]string, error) {
	look := timelimit.NewLooker(ctx) // looks at once
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	// Count first (syntax checked, nothing built), so that a list too long in all
	// is refused before its first name is made.
	total, size := 0, 0
	for _, expr := range exprs {
		n, b, err := count(expr, MaxHosts-total, look)
		if err != nil {
			return nil, err
		}
		total, size = total+n, size+b
	}
	// The names are cut from a few shared strings (arena), not made one string
	// each: 131,072 names of a topology.conf cost one allocation of their bytes
	// and not 131,072 of 8 or 16 (docs/reliability.md, wt-readmem). size bounds
	// the bytes; a chunk is at most arenaChunk of them.
	out := make([]string, 0, total)
	ar := nameArena{left: size}
	emit := func(name []byte) error {
		out = append(out, ar.add(name))
		return nil
	}
	for _, expr := range exprs {
		err := eachItem(expr, func(item span) error {
			if strings.IndexByte(item.s, '[') < 0 {
				// A name as it is (counted above: no error).
				out = append(out, ar.addString(item.s))
				return look.Stopped(1)
			}
			if _, _, err := eachOne(item.s, MaxHosts-len(out), false, look, emit); err != nil {
				return inExpr(expr, item, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nameArena makes names as pieces of a few shared strings, not one string each:
// the 131,072 names of a topology.conf cost one allocation of their bytes and not
// 131,072 of 8 or 16 bytes each (docs/reliability.md, wt-readmem). left bounds the
// bytes still to come; a chunk is at most arenaChunk of them.
type nameArena struct {
	b    strings.Builder
	left int
}

// room makes room for n more bytes in the current chunk.
func (a *nameArena) room(n int) {
	if a.b.Cap()-a.b.Len() < n {
		a.b.Reset() // the names cut so far keep the old chunk
		a.b.Grow(max(n, min(a.left, arenaChunk)))
	}
	a.left -= n
}

// add returns name as a string of the arena.
func (a *nameArena) add(name []byte) string {
	a.room(len(name))
	start := a.b.Len()
	a.b.Write(name)
	return a.b.String()[start:]
}

// addString returns name as a string of the arena.
func (a *nameArena) addString(name string) string {
	a.room(len(name))
	start := a.b.Len()
	a.b.WriteString(name)
	return a.b.String()[start:]
}

// arenaChunk is the most bytes of names expandAll allocates at once.
const arenaChunk = 1 << 20

// Each calls fn with each name of expr, in Expand's order, one name at a time:
// the list is counted first (Count's errors, nothing made), and then no more than
// one name is held, so that a caller bounding what it keeps (the distinct names of
// a list that repeats them, the names a machine has) costs that and not the
// list's length. An error of fn stops the walk and is returned as it is; so is a
// cancelled ctx's context.Cause (looked at every few thousand names).
func Each(ctx context.Context, expr string, fn func(name string) error) error {
	look := timelimit.NewLooker(ctx) // looks at once
	if err := look.Stopped(0); err != nil {
		return err
	}
	if _, _, err := count(expr, MaxHosts, look); err != nil {
		return err
	}
	var fnErr error
	err := eachItem(expr, func(item span) error {
		_, _, err := eachOne(item.s, MaxHosts, false, look, func(name []byte) error {
			fnErr = fn(string(name))
			return fnErr
		})
		if fnErr != nil {
			return fnErr
		}
		if err != nil {
			return inExpr(expr, item, err)
		}
		return nil
	})
	return err
}

// inExpr is err (an *itemError) of item, one of expr's comma-separated items: the
// expression quoted once, clipped around the fault when it is long, then the item
// when it is another and short, then what is wrong. Each quote was whole once (a 1 MB
// expression's error was 1 MB), then each clipped (four clipped quotes, some 545
// bytes, the expression and its item repeating each other); one clipped quote says
// where, the others are a few bytes.
func inExpr(expr string, item span, err error) error {
	var ie *itemError
	if !errors.As(err, &ie) {
		return err // a context's cause (ExpandContext): the caller says what it expanded
	}
	where := quoteAt(expr, item.at+ie.at)
	if item.s != expr && len(item.s) <= maxShort {
		return fmt.Errorf("%s: %s in %q: %w", where, ie.msg, item.s, ErrSyntax)
	}
	return fmt.Errorf("%s: %s: %w", where, ie.msg, ErrSyntax)
}

// itemError is what is wrong in one item of an expression (msg) and where: at, the
// byte offset in the item of the text at fault.
type itemError struct {
	msg string
	at  int
}

func (e *itemError) Error() string { return e.msg }
func (e *itemError) Unwrap() error { return ErrSyntax }

func itemErr(at int, format string, a ...any) error {
	return &itemError{msg: fmt.Sprintf(format, a...), at: at}
}

// maxShort is the longest piece of an expression (an item, a number, a range) a
// message quotes whole; a longer one is cut to its first maxShort bytes.
const maxShort = 40

// short is s quoted, cut to maxShort bytes (at a rune start) with "..." after.
func short(s string) string {
	if len(s) <= maxShort {
		return strconv.Quote(s)
	}
	cut := maxShort
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// quoteAt is expr quoted: whole when textin.Clip keeps it, else the 120 bytes from
// a little before offset at (where the fault is), with "..." on the sides cut and
// the offset.
func quoteAt(expr string, at int) string {
	if len(expr) <= 120 {
		return strconv.Quote(expr)
	}
	// Cuts at a rune's start, at most 3 bytes back (a rune is at most 4 bytes;
	// in text that is no UTF-8 any byte will do).
	from := max(0, min(at-40, len(expr)-120))
	for i := 0; i < utf8.UTFMax-1 && from > 0 && !utf8.RuneStart(expr[from]); i++ {
		from--
	}
	to := min(len(expr), from+120)
	for i := 0; i < utf8.UTFMax-1 && to < len(expr) && !utf8.RuneStart(expr[to]); i++ {
		to--
	}
	q := strconv.Quote(expr[from:to])
	if from > 0 {
		q = "..." + q
	}
	if to < len(expr) {
		q += "..."
	}
	return fmt.Sprintf("%s (byte %d of %d)", q, at+1, len(expr))
}

// Count is the number of names Expand(expr) gives, and its error, without making
// them: a caller that bounds its own total (a slurm.conf's nodes over all its
// lines) checks it before building anything.
func Count(expr string) (int, error) {
	n, _, err := count(expr, MaxHosts, &timelimit.Looker{Ctx: context.Background()})
	return n, err
}

// count is Count with room names left of MaxHosts, looking at look's context; size
// bounds the bytes of the names (eachOne's).
func count(expr string, room int, look *timelimit.Looker) (total, size int, err error) {
	items := 0
	err = eachItem(expr, func(item span) error {
		items++
		n, b, err := eachOne(item.s, room-total, true, look, nil)
		if err != nil {
			return inExpr(expr, item, err)
		}
		total, size = total+n, size+b
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if items == 0 {
		return 0, 0, fmt.Errorf("%q: no host names: %w", textin.Clip(expr), ErrSyntax)
	}
	return total, size, nil
}

// span is a piece of an expression and its byte offset in it.
type span struct {
	s  string
	at int
}

// splitTop splits at the commas and white space outside brackets, dropping empty
// elements.
func splitTop(s string) []span {
	var out []span
	eachItem(s, func(item span) error {
		out = append(out, item)
		return nil
	})
	return out
}

// eachItem calls fn with each element of splitTop(s), in order, making no list of
// them; fn's error stops it and is returned.
func eachItem(s string, fn func(span) error) error {
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '[':
				depth++
				continue
			case ']':
				if depth > 0 { // a ']' outside brackets is a letter of a name
					depth--
				}
				continue
			case ',', ' ', '\t', '\n', '\r':
				if depth != 0 {
					continue
				}
			default:
				continue
			}
		}
		if i > start {
			if err := fn(span{s[start:i], start}); err != nil {
				return err
			}
		}
		start = i + 1
	}
	return nil
}

// expandOne expands one name with its brackets, refusing more than room names. It
// looks at look's context every lookEvery names or items.
func expandOne(item string, room int, look *timelimit.Looker) ([]string, error) {
	var names []string
	_, _, err := eachOne(item, room, false, look, func(name []byte) error {
		if names == nil {
			names = make([]string, 0, 8)
		}
		names = append(names, string(name))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return names, nil
}

// numRange is one range of a bracket, lo..hi written with width digits (0: as is).
type numRange struct {
	lo, hi uint64
	width  int
}

// segment is the text before a bracket and the bracket's ranges, with the cursor
// of eachOne's walk: the range at and its value v.
type segment struct {
	prefix string
	rs     []numRange
	at     int
	v      uint64
}

// set puts s's cursor on the first value of range at.
func (s *segment) set(at int) {
	s.at, s.v = at, s.rs[at].lo
}

// step moves s's cursor on; false when it went past the last value (and back to
// the first).
func (s *segment) step() bool {
	if s.v < s.rs[s.at].hi {
		s.v++
		return true
	}
	if s.at+1 < len(s.rs) {
		s.set(s.at + 1)
		return true
	}
	s.set(0)
	return false
}

// eachOne calls emit with each name of one name with its brackets, in Slurm's
// order, making one name at a time in a buffer emit must not keep (a bracket's
// values are not made first: a list of n[0-4194303] whose caller stops at its
// first name costs that name), refusing more than room names; with count it only
// checks and counts them. n is the number of names, size a bound on their bytes
// (each name's prefixes and its numbers at their widest). It looks at look's
// context every lookEvery names or items.
func eachOne(item string, room int, count bool, look *timelimit.Looker, emit func([]byte) error) (n, size int, err error) {
	if err := look.Stopped(1); err != nil {
		return 0, 0, err
	}
	if strings.IndexByte(item, '[') < 0 {
		// A name without brackets (a ']' in it is part of the name, as in Slurm:
		// "a]" is a name).
		if 1 > room {
			return 0, 0, itemErr(0, "more than %d host names in all", MaxHosts)
		}
		if err := clampedBySlurm(item); err != nil {
			return 0, 0, err
		}
		if !count {
			if err := emit([]byte(item)); err != nil {
				return 0, 0, err
			}
		}
		return 1, len(item), nil
	}
	var segs []segment
	n = 1
	rest := item
	for rest != "" {
		open := strings.IndexByte(rest, '[')
		if open < 0 {
			return 0, 0, itemErr(len(item)-len(rest), "text %s after the last bracket", short(rest))
		}
		closeAt := strings.IndexByte(rest[open:], ']') + open
		base := len(item) - len(rest) // rest's offset in item
		if closeAt < open {
			// Slurm prints a mangled name here (n[1-2 as n]); refused.
			return 0, 0, itemErr(base+open, "unmatched '['")
		}
		prefix, body := rest[:open], rest[open+1:closeAt]
		if base > 0 && strings.ContainsRune(prefix, ']') {
			return 0, 0, itemErr(base+strings.IndexByte(prefix, ']'), "unmatched ']'")
		}
		if i := strings.IndexByte(body, '['); i >= 0 {
			return 0, 0, itemErr(base+open+1+i, "nested brackets")
		}
		rs, nv, digits, err := rangeList(body, base+open+1, room, look, !count)
		if err != nil {
			return 0, 0, err
		}
		if n*nv > room {
			return 0, 0, itemErr(base+open, "more than %d host names in all", MaxHosts)
		}
		n *= nv
		size += len(prefix) + digits
		rest = rest[closeAt+1:]
		if !count {
			segs = append(segs, segment{prefix: prefix, rs: rs})
		}
	}
	if n > room {
		return 0, 0, itemErr(0, "more than %d host names in all", MaxHosts)
	}
	size *= n
	if count {
		return n, size, nil
	}
	// Slurm's order (hostlist.c, checked against scontrol): the last bracket varies
	// fastest; before it, the first bracket varies fastest and the one before the
	// last slowest (a[1-2]b[3-4]c[5-6]: a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 ...).
	// With one or two brackets that is left to right, the first outermost.
	brackets := len(segs)
	for i := range brackets {
		segs[i].set(0)
	}
	order := make([]int, 0, brackets) // slowest first
	for i := brackets - 2; i >= 0; i-- {
		order = append(order, i)
	}
	order = append(order, brackets-1)
	var name []byte
	for {
		name = name[:0]
		for i := range segs {
			name = append(name, segs[i].prefix...)
			name = appendPadded(name, segs[i].v, segs[i].rs[segs[i].at].width)
		}
		if err := emit(name); err != nil {
			return 0, 0, err
		}
		if err := look.Stopped(1); err != nil {
			return 0, 0, err
		}
		k := len(order) - 1
		for ; k >= 0; k-- {
			if segs[order[k]].step() {
				break
			}
		}
		if k < 0 {
			break
		}
	}
	return n, size, nil
}

// rangeList reads "1-3,007,9" as its ranges (padding kept, made only with keep),
// their number of values and the most digits a value takes; at is body's offset in
// its item, for the errors. More than room values are refused.
func rangeList(body string, at, room int, look *timelimit.Looker, keep bool) ([]numRange, int, int, error) {
	if body == "" {
		return nil, 0, 0, itemErr(at-1, "empty brackets")
	}
	var out []numRange
	if keep {
		out = make([]numRange, 0, strings.Count(body, ",")+1)
	}
	n, digits := 0, 0
	for rest, more := body, true; more; {
		var r string
		r, rest, more = strings.Cut(rest, ",")
		if err := look.Stopped(1); err != nil {
			return nil, 0, 0, err
		}
		lo, hi, isRange := strings.Cut(r, "-")
		a, err := number(lo, at)
		if err != nil {
			return nil, 0, 0, err
		}
		b := a
		if isRange && hi != "" { // "1-" is 1, as in Slurm
			if b, err = number(hi, at+len(lo)+1); err != nil {
				return nil, 0, 0, err
			}
		}
		if b < a {
			return nil, 0, 0, itemErr(at, "reversed range %s", short(r))
		}
		if room <= n || b-a >= uint64(room-n) {
			return nil, 0, 0, itemErr(at, "range %s: more than %d host names in all", short(r), MaxHosts)
		}
		n += int(b-a) + 1
		at += len(r) + 1
		width := 0
		if len(lo) > 1 && lo[0] == '0' {
			width = len(lo) // zero padded: keep the width
		}
		digits = max(digits, width, digitsOf(b))
		if keep {
			out = append(out, numRange{a, b, width})
		}
	}
	return out, n, digits, nil
}

// digitsOf is the number of decimal digits of v.
func digitsOf(v uint64) int {
	d := 1
	for ; v >= 10; v /= 10 {
		d++
	}
	return d
}

// number reads a bracket's number s, at offset at of its item.
func number(s string, at int) (uint64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, itemErr(at, "%s is not a number", short(s))
	}
	v, err := strconv.ParseUint(s, 10, 63)
	if err != nil {
		if _, err64 := strconv.ParseUint(s, 10, 64); err64 != nil {
			// Slurm's strtoul clamps it (clampedBySlurm).
			return 0, itemErr(at, "%s is too large (at most 2^63-1; Slurm reads 2^64 or more as %s)", short(s), slurmMax)
		}
		return 0, itemErr(at, "%s is too large (at most 2^63-1)", short(s))
	}
	return v, nil
}

// slurmMax is ULONG_MAX, what Slurm's strtoul makes of a name's trailing number
// of 2^64 or more.
const slurmMax = "18446744073709551615"

// clampedBySlurm refuses a name whose trailing digits are a number of 2^64 or
// more. Slurm (hostlist.c) reads a name's trailing digits with strtoul, which
// clamps such a number to 18446744073709551615 keeping the count of digits:
// scontrol show hostnames prints n20000000000000000000 as n18446744073709551615,
// and n18446744073709551616,n18446744073709551617 as that name twice (22.05.8
// and 26.05.3 alike; TestHugeNumbersAgainstScontrol), so such names are not the
// hosts they look like and are not told apart; kept as written here they would
// be. A bracket's number is refused above 2^63-1 (number).
func clampedBySlurm(name string) error {
	_, digits := split(name)
	v := strings.TrimLeft(digits, "0")
	if len(v) < len(slurmMax) || len(v) == len(slurmMax) && v <= slurmMax {
		return nil
	}
	return itemErr(len(name)-len(digits), "host name %s ends in a number of 2^64 or more: Slurm reads it as %s (strtoul clamps), one name for all such; rename the host",
		short(name), slurmMax)
}

// hostRange is a run of names prefix+number with consecutive numbers, as Slurm keeps
// them: lo..hi, written with width digits (0: unpadded).
type hostRange struct {
	prefix string
	lo, hi uint64
	width  int
	plain  bool // a name without a numeric suffix
}

// split cuts a name into its prefix and trailing number.
func split(name string) (prefix, digits string) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	return name[:i], name[i:]
}

// plainName reports whether n has none of ",[ \t\n\r", the bytes Expand reads as
// separators or a bracket (a byte loop: Compress checks every node name of every job
// plan predicts; strings.ContainsAny costs ~3x more). A ']' is a letter: Expand reads
// a ']' before any '[' as part of the name, and so do scontrol show hostnames and
// show hostlist ("a]1,a]2" is "a][1-2]"); refusing it left names Expand gives, such
// as a topology.conf's "Nodes=]", that WriteConf could not write (FuzzParseTree).
func plainName(n string) bool {
	for i := 0; i < len(n); i++ {
		switch n[i] {
		case ',', '[', ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
}

// Compress writes names as one hostlist expression in their order, as scontrol show
// hostlist does: a name extends the previous run when it has the same prefix, the
// next number and a compatible width; consecutive runs of one prefix share a bracket.
func Compress(names []string) (string, error) {
	return CompressContext(context.Background(), names)
}

// CompressContext is Compress looking at ctx every few thousand names (and runs
// written): 2^20 names in no order (a run each) took 1.3-3.6 s under load, 200,000
// a quarter of a second, and Ctrl-C waited for it. A cancelled ctx returns
// context.Cause(ctx) itself, unwrapped.
func CompressContext(ctx context.Context, names []string) (string, error) {
	look := timelimit.NewLooker(ctx) // looks at once
	if err := look.Stopped(0); err != nil {
		return "", err
	}
	var runs []hostRange
	for _, n := range names {
		if err := look.Stopped(1); err != nil {
			return "", err
		}
		e, err := cutName(n)
		if err != nil {
			return "", err
		}
		runs = extendRuns(runs, &e)
	}
	b, err := appendRuns(nil, runs, look)
	return string(b), err
}

// Compressor compresses lists of names of a fixed table as Compress does, each name
// cut into prefix and number once (plan writes the hostlist of every job it
// predicts: cutting the names again for every job was most of that). Not for
// concurrent use.
type Compressor struct {
	elems []nameElem
	// next[id]: name id+1 continues a run through name id whatever the run's
	// first name (same prefix, the next number, the same width and count of
	// digits), so Append extends the run without comparing the names.
	next []bool
	runs []hostRange
}

// NewCompressor returns a Compressor of names (ids are their indices); a name that
// Compress refuses is refused with its error.
func NewCompressor(names []string) (*Compressor, error) {
	c := &Compressor{elems: make([]nameElem, len(names))}
	for i, n := range names {
		e, err := cutName(n)
		if err != nil {
			return nil, err
		}
		c.elems[i] = e
	}
	c.next = make([]bool, len(names))
	for i := 0; i+1 < len(c.elems); i++ {
		e, f := &c.elems[i], &c.elems[i+1]
		c.next[i] = !e.plain && !f.plain && f.v == e.v+1 && f.width == e.width && f.digits == e.digits && f.prefix == e.prefix
	}
	return c, nil
}

// Append appends Compress of the names of ids (in their order) to dst.
func (c *Compressor) Append(dst []byte, ids []int32) []byte {
	c.runs = c.runs[:0]
	prev := int32(-2)
	for _, id := range ids {
		// The last run ends with name prev; when id follows it (next), the run's
		// width is one the next name fits: e's digits are the run's width when it
		// has one, else e has none, like the next name (extendRuns).
		if id == prev+1 && c.next[prev] {
			c.runs[len(c.runs)-1].hi++
		} else {
			c.runs = extendRuns(c.runs, &c.elems[id])
		}
		prev = id
	}
	b, _ := appendRuns(dst, c.runs, nil)
	return b
}

// nameElem is a host name cut for compression: a name with a numeric suffix of at
// most 18 digits is prefix+number (written with width digits, 0: unpadded; digits
// is its count of digits), any other name is plain.
type nameElem struct {
	prefix string
	v      uint64
	width  int
	digits int
	plain  bool
}

func cutName(n string) (nameElem, error) {
	if n == "" || !plainName(n) {
		return nameElem{}, fmt.Errorf("%q is not a host name (empty, or with a comma, '[' or white space)", textin.Clip(n))
	}
	if err := clampedBySlurm(n); err != nil {
		return nameElem{}, err
	}
	prefix, digits := split(n)
	if digits == "" || len(digits) > 18 {
		return nameElem{prefix: n, plain: true}, nil
	}
	var v uint64
	for i := 0; i < len(digits); i++ {
		v = v*10 + uint64(digits[i]-'0')
	}
	width := 0
	if len(digits) > 1 && digits[0] == '0' {
		width = len(digits)
	}
	return nameElem{prefix: prefix, v: v, width: width, digits: len(digits)}, nil
}

// extendRuns adds name e to runs: it extends the last run when it has the same
// prefix, the next number and a compatible width.
func extendRuns(runs []hostRange, e *nameElem) []hostRange {
	if e.plain {
		return append(runs, hostRange{prefix: e.prefix, plain: true})
	}
	if k := len(runs) - 1; k >= 0 {
		r := &runs[k]
		if !r.plain && e.v == r.hi+1 && widthFits(r.width, e.width, e.digits) && r.prefix == e.prefix {
			r.hi = e.v
			return runs
		}
	}
	return append(runs, hostRange{prefix: e.prefix, lo: e.v, hi: e.v, width: e.width})
}

// appendRuns writes runs as one expression; consecutive runs of one prefix share a
// bracket. With look (nil: none) it looks at its context every few thousand runs
// and returns its cause when it has ended.
func appendRuns(b []byte, runs []hostRange, look *timelimit.Looker) ([]byte, error) {
	for i := 0; i < len(runs); {
		if look != nil {
			if err := look.Stopped(1); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			b = append(b, ',')
		}
		r := runs[i]
		if r.plain {
			b = append(b, r.prefix...)
			i++
			continue
		}
		j := i + 1
		for j < len(runs) && !runs[j].plain && runs[j].prefix == r.prefix {
			j++
		}
		if j == i+1 && r.lo == r.hi {
			b = appendPadded(append(b, r.prefix...), r.lo, r.width)
			i++
			continue
		}
		b = append(append(b, r.prefix...), '[')
		for k := i; k < j; k++ {
			if look != nil && k > i {
				if err := look.Stopped(1); err != nil { // one prefix's runs: all of them in a shuffled list
					return nil, err
				}
			}
			if k > i {
				b = append(b, ',')
			}
			q := runs[k]
			b = appendPadded(b, q.lo, q.width)
			if q.hi != q.lo {
				b = appendPadded(append(b, '-'), q.hi, q.width)
			}
		}
		b = append(b, ']')
		i = j
	}
	return b, nil
}

// appendPadded appends v with at least width digits (zero padded).
func appendPadded(b []byte, v uint64, width int) []byte {
	var buf [20]byte
	d := strconv.AppendUint(buf[:0], v, 10)
	for range width - len(d) {
		b = append(b, '0')
	}
	return append(b, d...)
}

// widthFits says whether a number of digits digits (padded to width w, 0 when not
// padded) continues a run written with width rw: padded runs take numbers of their
// width, unpadded runs unpadded numbers.
func widthFits(rw, w, digits int) bool {
	if rw > 0 {
		return digits == rw
	}
	return w == 0
}

// NaturalCompare is the one node-name order of procalloc: Slurm's. slurmctld sorts
// its node table with strnatcmp (src/slurmctld/read_config.c, _sort_nodes_by_name,
// Slurm 22.05 to 26.11, when no topology plugin ranks the nodes; strnatcmp.c is
// Martin Pool's natural-order comparison), and the node-index order it gives is the
// order slurm:consec, slurm:tree and slurm:block take free nodes in and the order of
// the name-order curve. The rules, as strnatcmp has them: blanks are skipped; where
// both names have a digit, a run of digits that starts with '0' in either name is
// compared left-aligned, digit by digit, the first difference deciding and the
// shorter run first when one is a prefix of the other (x010 < x011 < x1 < x9: "x010"
// comes before "x1", the mixed-padding case), otherwise the runs compare as numbers
// (the longer run is larger; equal lengths, the first differing digit), and equal
// runs go on character by character; other bytes compare as bytes, and a name that
// ends first comes first. Names equal but for blanks (never Slurm node names) are
// ordered bytewise, so that the order is total. It returns -1, 0 or +1.
func NaturalCompare(a, b string) int {
	if c := strnatcmp(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// strnatcmp is strnatcmp(3) of Slurm's src/common/strnatcmp.c (case-sensitive).
func strnatcmp(a, b string) int {
	at := func(s string, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	i, j := 0, 0
	for {
		for isBlank(at(a, i)) {
			i++
		}
		for isBlank(at(b, j)) {
			j++
		}
		ca, cb := at(a, i), at(b, j)
		if isDigit(ca) && isDigit(cb) {
			var c int
			if ca == '0' || cb == '0' {
				c = digitsLeftAligned(a[i:], b[j:])
			} else {
				c = digitsAsNumbers(a[i:], b[j:])
			}
			if c != 0 {
				return c
			}
		}
		if ca == 0 && cb == 0 {
			return 0
		}
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		i++
		j++
	}
}

func isBlank(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// digitsLeftAligned compares the digit runs that start a and b digit by digit: the
// first difference decides; a run that ends first is smaller (strnatcmp's
// compare_left).
func digitsLeftAligned(a, b string) int {
	for k := 0; ; k++ {
		da, db := k < len(a) && isDigit(a[k]), k < len(b) && isDigit(b[k])
		switch {
		case !da && !db:
			return 0
		case !da:
			return -1
		case !db:
			return 1
		case a[k] < b[k]:
			return -1
		case a[k] > b[k]:
			return 1
		}
	}
}

// digitsAsNumbers compares the digit runs that start a and b as numbers: the longer
// run is larger; of equal lengths the first differing digit decides (strnatcmp's
// compare_right).
func digitsAsNumbers(a, b string) int {
	bias := 0
	for k := 0; ; k++ {
		da, db := k < len(a) && isDigit(a[k]), k < len(b) && isDigit(b[k])
		switch {
		case !da && !db:
			return bias
		case !da:
			return -1
		case !db:
			return 1
		case bias == 0 && a[k] < b[k]:
			bias = -1
		case bias == 0 && a[k] > b[k]:
			bias = 1
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
