package hostlist

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkList checks l against names, the expansion it stands for: the same names in
// the same order, ids that are the table's ids of those names, runs that are maximal
// runs of consecutive ids.
func checkList(t *testing.T, tab *Table, l List, names []string) {
	t.Helper()
	if l.Len() != len(names) || !slices.Equal(l.Names(), names) {
		t.Fatalf("list of %d names %v, want %d %v", l.Len(), l.Names(), len(names), names)
	}
	if len(names) == 0 {
		if l.Table() != nil {
			t.Fatalf("an empty list has a table")
		}
		return
	}
	if l.Table() != tab {
		t.Fatalf("list of another table")
	}
	ids := l.AppendIDs([]int32{-7})
	if len(ids) != len(names)+1 || ids[0] != -7 {
		t.Fatalf("AppendIDs: %v", ids)
	}
	for i, n := range names {
		if id, ok := tab.ID(n); !ok || id != ids[i+1] || tab.Name(id) != n {
			t.Fatalf("name %q: id %d (%v), list says %d", n, id, ok, ids[i+1])
		}
	}
	runs := 0
	prevEnd := int32(-1)
	for first, length := range l.Runs() {
		if length < 1 || first == prevEnd {
			t.Fatalf("run (%d, %d) after a run ending at %d: not maximal", first, length, prevEnd)
		}
		prevEnd = first + length
		runs++
	}
	want := 0
	for i := range ids[1:] {
		if i == 0 || ids[i+1] != ids[i]+1 {
			want++
		}
	}
	if runs != want {
		t.Fatalf("%d runs, want %d", runs, want)
	}
}

// Lists of one table give back exactly Expand's names, in Expand's order, however
// the expressions overlap, repeat names or come in any order; a range of names first
// seen together is one run.
func TestTableParse(t *testing.T) {
	tab := NewTable("node02", "node01")
	for _, expr := range []string{
		"node[01-16]", "node[03-05,01]", "node[16-20],node01", "node01,node01", "node[001-003]",
		"rack[0-3]_blade[0-4]", "a,b c", "x[1-9],x[010-016]", "node[01-16]", "n[1-2],,n3",
		"a[1-2]b[3-4]c[5-6]", "node20,node19,node18",
	} {
		l, err := tab.Parse(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		names, _ := Expand(expr)
		checkList(t, tab, l, names)
		if s := l.String(); s != must(Compress(names)) {
			t.Errorf("%q: String %q", expr, s)
		}
	}
	// A new table numbers names as it meets them: node[0001-0490] is one run.
	fresh := NewTable()
	l, _ := fresh.Parse("node[0001-0490]")
	if runs := slices.Collect(func(yield func(int32) bool) {
		for first := range l.Runs() {
			yield(first)
		}
	}); len(runs) != 1 || l.Len() != 490 || fresh.Len() != 490 {
		t.Errorf("node[0001-0490]: runs at %v, %d names, table of %d", runs, l.Len(), fresh.Len())
	}
	// Errors are Expand's, and add nothing.
	before := tab.Len()
	for _, bad := range []string{"n[3-1]", "", "n[1-2", "n[0-99999999]"} {
		_, err := tab.Parse(bad)
		_, want := Expand(bad)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%q: %v, Expand says %v", bad, err, want)
		}
	}
	if tab.Len() != before {
		t.Errorf("a refused expression added names")
	}
	// The zero list and a list of no names.
	checkList(t, tab, List{}, nil)
	checkList(t, tab, tab.List(nil), nil)
	if (List{}).String() != "" {
		t.Errorf("empty list as %q", List{}.String())
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// Random lists of random names, ids far apart and close (varints of every length,
// runs going back and forth): each list gives back its names.
func TestTableRandomLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 9))
	tab := NewTable()
	var universe []string
	for i := range 300_000 {
		universe = append(universe, fmt.Sprintf("h%d", i))
	}
	for range 400 {
		var names []string
		for range rng.IntN(60) {
			switch rng.IntN(3) {
			case 0: // a range
				a := rng.IntN(len(universe))
				names = append(names, universe[a:min(len(universe), a+1+rng.IntN(40))]...)
			case 1: // a name anywhere
				names = append(names, universe[rng.IntN(len(universe))])
			default: // a name near the last
				k := 0
				if len(names) > 0 {
					id, _ := tab.ID(names[len(names)-1])
					k = int(id) + rng.IntN(5) - 2
				}
				names = append(names, universe[max(0, min(len(universe)-1, k))])
			}
		}
		checkList(t, tab, tab.List(names), names)
	}
}

// fuzzMaxNames bounds the expansions FuzzTableParse checks, to keep each run short.
const fuzzMaxNames = 1 << 16

// A list at the size the fuzz target skips (the fuzzer's "[0-2777700]", 2,777,701
// names; a million under -short) gives back Expand's names, and a second parse
// reuses the ids.
func TestTableLargeList(t *testing.T) {
	expr := "[0-2777700]"
	if testing.Short() {
		expr = "[0-999999]"
	}
	names, err := Expand(expr)
	if err != nil {
		t.Fatal(err)
	}
	tab := NewTable()
	l, err := tab.Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	checkList(t, tab, l, names)
	if n := tab.Len(); n != len(names) {
		t.Fatalf("table of %d names, want %d", n, len(names))
	}
	l2, err := tab.Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != len(names) || !slices.Equal(l2.AppendIDs(nil), l.AppendIDs(nil)) {
		t.Fatalf("a second parse added names or changed ids")
	}
}

// Parse is Expand through a table: on any input the same names or the same error,
// and every list of one table still gives back its names after others were added.
func FuzzTableParse(f *testing.F) {
	for _, s := range []string{"node[001-016,020]", "rack[0-3]_blade[0-41]", "a,b", "n[3-1]", "a b", "n[1-2],,n3", "n[5-9],n[1-9]"} {
		f.Add(s, "node[010-012],n1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		// An input of millions of names (up to MaxHosts) takes seconds per run and
		// stalls the fuzzer (it reported "[0-2777700]" as hung); such lists take the
		// same code paths as short ones, and TestTableLargeList covers their size.
		for _, expr := range []string{a, b} {
			if names, err := Expand(expr); err == nil && len(names) > fuzzMaxNames {
				t.Skipf("%q: %d names, more than the fuzz target's %d", expr, len(names), fuzzMaxNames)
			}
		}
		tab := NewTable()
		var lists []List
		var want [][]string
		for _, expr := range []string{a, b, a} {
			l, err := tab.Parse(expr)
			names, werr := Expand(expr)
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("%q: Parse %v, Expand %v", expr, err, werr)
			}
			if err != nil {
				continue
			}
			lists, want = append(lists, l), append(want, names)
		}
		for i, l := range lists {
			checkList(t, tab, l, want[i])
			if strings.Join(l.Names(), ",") != strings.Join(want[i], ",") {
				t.Fatalf("list %d changed", i)
			}
		}
	})
}

// A Compressor gives Compress's expression for any list of its names, in any order
// and with repeats; names Compress refuses it refuses with the same error.
func TestCompressor(t *testing.T) {
	names, _ := ExpandContext(context.Background(), "node[001-040]", "node[1-30]", "x[1-9],x[010-016]", "rack[0-2]_blade[0-5]", "login", "a0", "a00", "a1", "n12345678901234567890", "y[08-12],y[98-102]", "z[098-101]", "w[8-11]", "t[08-100]")
	c, err := NewCompressor(names)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(29, 3))
	var buf []byte
	for i := range 3000 {
		ids := make([]int32, rng.IntN(50))
		for j := range ids {
			if j > 0 && rng.IntN(3) > 0 {
				ids[j] = (ids[j-1] + 1) % int32(len(names))
			} else {
				ids[j] = int32(rng.IntN(len(names)))
			}
		}
		if i%2 == 0 {
			slices.Sort(ids)
		}
		sub := make([]string, len(ids))
		for j, id := range ids {
			sub[j] = names[id]
		}
		buf = c.Append(buf[:0], ids)
		if want := must(Compress(sub)); string(buf) != want {
			t.Fatalf("%v: %q, Compress says %q", sub, buf, want)
		}
	}
	// Runs of up to 101 consecutive names from each: t08 to t100 keeps a padded
	// run of two digits to t99, and t100 starts another.
	for i := range names {
		ids := make([]int32, 0, 101)
		for id := i; id < min(len(names), i+101); id++ {
			ids = append(ids, int32(id))
		}
		buf = c.Append(buf[:0], ids)
		if want := must(Compress(names[i : i+len(ids)])); string(buf) != want {
			t.Fatalf("%v: %q, Compress says %q", names[i:i+len(ids)], buf, want)
		}
	}
	for _, bad := range []string{"", "a,b", "n[1]", "a b"} {
		_, err := NewCompressor([]string{"n1", bad})
		_, want := Compress([]string{"n1", bad})
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%q: %v, Compress says %v", bad, err, want)
		}
	}
}

// Parse numbers names as Expand and List do, name by name: two tables, one fed by
// Parse and one by List of Expand's names (and both by the same List calls and
// NewTable names in between), hold the same names at the same ids after random
// expressions whose brackets Parse reads without making names (dense and sparse
// numbers, zero padding of several widths, ranges going back, the same number
// under two paddings, names met first through List).
func TestTableParseAsExpand(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 11))
	seed := []string{"n0007", "n7", "x3", "n[1-2]x"}
	viaParse, viaList := NewTable(seed...), NewTable(seed...)
	num := func() uint64 {
		switch rng.IntN(6) {
		case 0:
			return uint64(rng.Int64N(1 << 62)) // far from the others: sparse
		case 1:
			return uint64(rng.IntN(3)) // at and below a family's first number
		default:
			return uint64(rng.IntN(20000))
		}
	}
	for i := range 3000 {
		var items []string
		for range 1 + rng.IntN(4) {
			prefix := []string{"n", "x", "rack1_b", "a]b", ""}[rng.IntN(5)]
			var rs []string
			for range 1 + rng.IntN(3) {
				a := num()
				lo := strconv.FormatUint(a, 10)
				if rng.IntN(2) == 0 {
					lo = strings.Repeat("0", 1+rng.IntN(3)) + lo // padded
				}
				switch rng.IntN(3) {
				case 0:
					rs = append(rs, lo)
				case 1:
					rs = append(rs, lo+"-")
				default:
					rs = append(rs, lo+"-"+strconv.FormatUint(a+uint64(rng.IntN(300)), 10))
				}
			}
			item := prefix + "[" + strings.Join(rs, ",") + "]"
			if rng.IntN(8) == 0 {
				item = prefix + "[1-2]y[" + strings.Join(rs, ",") + "]" // two brackets: Expand's path
			}
			items = append(items, item)
		}
		expr := strings.Join(items, ",")
		names, err := Expand(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		l, err := viaParse.Parse(expr)
		if err != nil {
			t.Fatalf("%q: Parse: %v", expr, err)
		}
		want := viaList.List(names)
		if !slices.Equal(l.AppendIDs(nil), want.AppendIDs(nil)) || viaParse.Len() != viaList.Len() {
			t.Fatalf("%q: ids %v, List of Expand's names gives %v", expr, l.AppendIDs(nil), want.AppendIDs(nil))
		}
		checkList(t, viaParse, l, names)
		if i%50 == 0 { // names met through List first
			extra := fmt.Sprintf("n%d", rng.IntN(25000))
			viaParse.List([]string{extra})
			viaList.List([]string{extra})
		}
	}
	if !slices.Equal(viaParse.names, viaList.names) {
		t.Fatal("the tables differ")
	}
}

// Reading a history's node lists: 3,000 lists of about 5,000 names of a 102,400-name
// machine (the size of plan's 10^5-host runs, docs/plan.md).
func BenchmarkTableParseHistory(b *testing.B) {
	rng := rand.New(rand.NewPCG(29, 12))
	exprs := make([]string, 3000)
	for i := range exprs {
		var rs []string
		for range 1 + rng.IntN(8) {
			a := rng.IntN(102400 - 2000)
			rs = append(rs, fmt.Sprintf("%06d-%06d", a, a+rng.IntN(1300)))
		}
		exprs[i] = "d[" + strings.Join(rs, ",") + "]"
	}
	b.ResetTimer()
	names := 0
	for range b.N {
		tab := NewTable()
		names = 0
		for _, e := range exprs {
			l, err := tab.Parse(e)
			if err != nil {
				b.Fatal(err)
			}
			names += l.Len()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(names), "ns/name")
}
