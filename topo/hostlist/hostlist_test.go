package hostlist

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"node[001-003,010]", "node001 node002 node003 node010"},
		{"rack[0-1]_blade[7-8]", "rack0_blade7 rack0_blade8 rack1_blade7 rack1_blade8"},
		{"n[9-11]", "n9 n10 n11"},
		{"n[09-11]", "n09 n10 n11"},
		{"n[01-3]", "n01 n02 n03"},
		{"a,b[1-2]", "a b1 b2"},
		{"n[1,1]", "n1 n1"},
		{"plain", "plain"},
		// White space and empty elements, as Slurm's hostlist_create (scontrol show
		// hostnames) reads them.
		{"a b", "a b"},
		{"n[1-2],,n3", "n1 n2 n3"},
		{" ,n[1-2]\t n3, ", "n1 n2 n3"},
		{"a,,b", "a b"},
		// What scontrol accepts that looks wrong: a ']' before any '[' is a letter,
		// an open range "1-" is the one number, three brackets are not nested loops
		// left to right (TestExpandBracketOrder).
		{"n1-2]", "n1-2]"},
		{"a]b[1-2]", "a]b1 a]b2"},
		{"n[1-]", "n1"},
		{"n[01-],m", "n01 m"},
	} {
		got, err := Expand(tc.in)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("Expand(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"n[3-1]", "n[1-3]x", "n[1-2", "n[1-2]]", "n[1]x]", "n[-2]", "n[]", "n[a-b]", "n[1-99999999999999999999]", "n[0-99999999]", "", ",", " \t", "n[[1]]", "n[1-4194304,0]"} {
		if _, err := Expand(bad); err == nil {
			t.Errorf("Expand(%q) accepted", bad)
		}
	}
}

func TestCompress(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"node5", "node5"},
		{"node5,node6", "node[5-6]"},
		{"c01,c1,c2", "c[01,1-2]"},
		{"c1,c01,c02", "c[1,01-02]"},
		{"a1,b1,a2", "a1,b1,a2"},
		{"a1,a2,b1,a3", "a[1-2],b1,a3"},
		{"x,x1", "x,x1"},
		{"n1,n1", "n[1,1]"},
		{"n1,n3,n2", "n[1,3,2]"},
		{"n9,n10,n11", "n[9-11]"},
		{"n09,n10,n11", "n[09-11]"},
		{"n099,n100", "n[099-100]"},
		{"host-1a,host-2a", "host-1a,host-2a"},
		{"r1b2,r1b3", "r1b[2-3]"},
		{"n0,n00,n000", "n[0,00,000]"},
		// A ']' is a letter, as Expand reads it and scontrol show hostlist writes it.
		{"a],a]1,a]2,]", "a],a][1-2],]"},
	} {
		got, err := Compress(strings.Split(tc.in, ","))
		if err != nil || got != tc.want {
			t.Errorf("Compress(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		// and back
		if back, err := Expand(got); err != nil || strings.Join(back, ",") != tc.in {
			t.Errorf("Expand(Compress(%s)) = %v, %v", tc.in, back, err)
		}
	}
	for _, bad := range []string{"", "a,b", "a b", "a[1]", "a\tb", "a\nb", "a\rb", "é b"} {
		if _, err := Compress([]string{bad}); err == nil {
			t.Errorf("Compress(%q) accepted", bad)
		}
	}
}

// randomNames draws host names of a few prefixes, padded and unpadded, in random
// order with some runs and repeats.
func randomNames(rng *rand.Rand) []string {
	prefixes := []string{"node", "n", "rack1_blade", "gpu-", "c"}
	var out []string
	for range 1 + rng.IntN(40) {
		p := prefixes[rng.IntN(len(prefixes))]
		padded := p == "node" || p == "gpu-"
		v := rng.IntN(120)
		run := 1 + rng.IntN(6)
		for j := range run {
			if padded {
				out = append(out, fmt.Sprintf("%s%03d", p, v+j))
			} else {
				out = append(out, fmt.Sprintf("%s%d", p, v+j))
			}
		}
	}
	return out
}

// TestAgainstScontrol compares Expand and Compress with Slurm's own scontrol show
// hostnames / show hostlist on random sets, when scontrol is installed.
func TestAgainstScontrol(t *testing.T) {
	sc, err := exec.LookPath("scontrol")
	if err != nil {
		t.Skip("scontrol not on PATH: install Debian's slurm-client (or run scripts/slurm-local.sh as root) to compare with Slurm")
	}
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	os.WriteFile(conf, []byte("ClusterName=hostlist\nSlurmctldHost=localhost\n"), 0o644)
	env := append(os.Environ(), "SLURM_CONF="+conf)
	run := func(args ...string) string {
		cmd := exec.Command(sc, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scontrol %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	rng := rand.New(rand.NewPCG(4, 2))
	n := 300
	if testing.Short() {
		n = 30
	}
	for range n {
		names := randomNames(rng)
		want := run("show", "hostlist", strings.Join(names, ","))
		got, err := Compress(names)
		if err != nil || got != want {
			t.Fatalf("Compress(%v) = %q, %v; scontrol show hostlist: %q", names, got, err, want)
		}
		wantNames := strings.Fields(run("show", "hostnames", want))
		gotNames, err := Expand(want)
		if err != nil || !slices.Equal(gotNames, wantNames) {
			t.Fatalf("Expand(%q) = %v, %v; scontrol show hostnames: %v", want, gotNames, err, wantNames)
		}
	}
	t.Logf("%d random sets: Compress equals scontrol show hostlist, Expand equals scontrol show hostnames", n)
}

// MaxHosts bounds the names of all the expressions together (30 expressions of
// MaxHosts names each ran out of memory), and a bracket's ranges together.
func TestExpandContextCap(t *testing.T) {
	for _, exprs := range [][]string{{"n[1-4194303]", "m[1-2]"}, {"a[1-3000000],b[1-3000000]"}, {"a[1-2048][1-2049]"}} {
		if _, err := ExpandContext(context.Background(), exprs...); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("ExpandContext(%q): %v", exprs, err)
		}
	}
	names, err := ExpandContext(context.Background(), "a,b", "c d", "n[1-2]")
	if err != nil || strings.Join(names, " ") != "a b c d n1 n2" {
		t.Errorf("ExpandContext: %v, %v", names, err)
	}
}

// Each makes one name at a time: a caller that stops at the first of
// n[0-4194303] (a machine of 16 nodes refusing n0) costs that name, not the
// 4,194,304 names Expand makes (nor the bracket's numbers made first, as
// expandOne did before 2026-12-07); fn's error comes back as it is.
func TestEachStopsWhenTold(t *testing.T) {
	stop := errors.New("not a node")
	var got []string
	fn := func(n string) error {
		if got = append(got, n); len(got) == 3 {
			return stop
		}
		return nil
	}
	if err := Each(context.Background(), "a[1-2]b[3-4]c[5-6]", fn); err != stop || strings.Join(got, " ") != "a1b3c5 a1b3c6 a2b3c5" {
		t.Fatalf("Each: %v, %v", got, err)
	}
	if a := testing.AllocsPerRun(10, func() {
		Each(context.Background(), "n[0-4194303]", func(string) error { return stop })
	}); a > 20 {
		t.Errorf("Each of n[0-4194303] stopped at n0: %.0f allocations, want at most 20", a)
	}
	if err := Each(context.Background(), "n[0-4194304]", fn); err == nil || !errors.Is(err, ErrSyntax) {
		t.Errorf("Each of 4194305 names: %v, want Count's error", err)
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"node[001-016,020]", "rack[0-3]_blade[0-41]", "a,b", "n[3-1]", "a b", "n[1-2],,n3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := Expand(s)
		if n, cerr := Count(s); (cerr == nil) != (err == nil) || err == nil && n != len(names) {
			t.Fatalf("%q: Count %d, %v; Expand %d names, %v", s, n, cerr, len(names), err)
		}
		// Each gives Expand's names, one at a time, and its error.
		var each []string
		eerr := Each(context.Background(), s, func(n string) error { each = append(each, n); return nil })
		if (eerr == nil) != (err == nil) || err != nil && eerr.Error() != err.Error() || err == nil && !slices.Equal(each, names) {
			t.Fatalf("%q: Each %d names, %v; Expand %d names, %v", s, len(each), eerr, len(names), err)
		}
		if err != nil {
			// One quote clipped around the fault, the others short: the message
			// is bounded, whatever the expression's length.
			// (Sizes of the quoted text, unquoted: a byte may print as \xNN.)
			msg := err.Error()
			long, rest := 0, len(msg)
			for _, q := range quotedRe.FindAllString(msg, -1) {
				u, uerr := strconv.Unquote(q)
				if uerr != nil || len(u) > 123 { // textin.Clip: 120 bytes and "..."
					t.Fatalf("%.60q...: quote %.80s of %d bytes (%v)", s, q, len(u), uerr)
				}
				if len(u) > maxShort {
					long++
				}
				rest -= len(q)
			}
			if long > 1 || rest > 200 || !errors.Is(err, ErrSyntax) {
				t.Fatalf("%.60q...: %d long quotes, %d bytes besides the quotes: %.300s", s, long, rest, msg)
			}
			return
		}
		if len(names) > MaxHosts || len(names) == 0 {
			t.Fatalf("%d names", len(names))
		}
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, ", \t\n\r") {
				t.Fatalf("%q: name %q", s, n)
			}
		}
		if c, err := Compress(names); err == nil {
			back, err := Expand(c)
			if err != nil || !slices.Equal(back, names) {
				t.Fatalf("%q -> %q -> %v (%v)", s, c, back, err)
			}
		}
	})
}

func TestNaturalCompare(t *testing.T) {
	// Each list is in Slurm's node order (strnatcmp, read in Slurm's
	// src/common/strnatcmp.c): a run of digits starting with '0' compares left-aligned,
	// so zero-padded names come before unpadded ones that start with a higher digit.
	for _, sorted := range [][]string{
		{"a", "a02", "a1", "a2", "a10", "b", "node1", "node2", "node9", "node10", "node10a", "node11", "rack1_blade2", "rack1_blade10", "rack2_blade1"},
		// Issue 29: x[1-9],x[010-016]: slurmctld put x010 before x1.
		{"x010", "x011", "x012", "x013", "x014", "x015", "x016", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9"},
		{"n0", "n00", "n000", "n001", "n01", "n010", "n02", "n1", "n9", "n10", "n99", "n100"},
		{"c0-0", "c0-1", "c0-10", "c1-0", "c1-01", "c1-1", "c10-0"},
		{"gpu-a1", "gpu-a2", "gpu-b1", "gpub1"},
	} {
		for i := range sorted {
			for j := range sorted {
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got := NaturalCompare(sorted[i], sorted[j]); got != want {
					t.Errorf("NaturalCompare(%q, %q) = %d, want %d", sorted[i], sorted[j], got, want)
				}
			}
		}
	}
	names, err := Expand("x[1-9],x[010-016]")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(names, NaturalCompare)
	if got, _ := Compress(names); got != "x[010-016,1-9]" {
		t.Errorf("x[1-9],x[010-016] in Slurm's order: %s, want x[010-016,1-9]", got)
	}
}

// NaturalCompare against a second formulation of strnatcmp on C strings (NUL ends
// them), on random names with mixed zero padding; and it is a total order on them
// (antisymmetric, transitive on triples).
func TestNaturalCompareStrnatcmp(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 29))
	parts := []string{"x", "n", "0", "00", "01", "1", "9", "10", "010", "-", "a", " "}
	gen := func() string {
		var sb strings.Builder
		for range 1 + rng.IntN(5) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		return sb.String()
	}
	var pool []string
	for range 300 {
		pool = append(pool, gen())
	}
	for _, a := range pool {
		for _, b := range pool {
			want := cStrnatcmp(append([]byte(a), 0), append([]byte(b), 0))
			if want == 0 {
				want = strings.Compare(a, b)
			}
			if got := NaturalCompare(a, b); got != want {
				t.Fatalf("NaturalCompare(%q, %q) = %d, strnatcmp %d", a, b, got, want)
			}
			if NaturalCompare(b, a) != -want {
				t.Fatalf("not antisymmetric on %q, %q", a, b)
			}
		}
	}
	for range 20000 {
		x, y, z := pool[rng.IntN(len(pool))], pool[rng.IntN(len(pool))], pool[rng.IntN(len(pool))]
		if NaturalCompare(x, y) <= 0 && NaturalCompare(y, z) <= 0 && NaturalCompare(x, z) > 0 {
			t.Logf("not transitive: %q <= %q <= %q but %q > %q (strnatcmp's own property; Slurm's qsort then depends on the input order)", x, y, z, x, z)
		}
	}
}

// cStrnatcmp walks NUL-terminated byte strings with pointers the way strnatcmp.c
// does, written independently of NaturalCompare.
func cStrnatcmp(a, b []byte) int {
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	space := func(c byte) bool { return c == ' ' || c >= 9 && c <= 13 }
	right := func(a, b []byte) int {
		bias := 0
		for ; ; a, b = a[1:], b[1:] {
			if !digit(a[0]) && !digit(b[0]) {
				return bias
			} else if !digit(a[0]) {
				return -1
			} else if !digit(b[0]) {
				return 1
			} else if a[0] < b[0] {
				if bias == 0 {
					bias = -1
				}
			} else if a[0] > b[0] {
				if bias == 0 {
					bias = 1
				}
			}
		}
	}
	left := func(a, b []byte) int {
		for ; ; a, b = a[1:], b[1:] {
			if !digit(a[0]) && !digit(b[0]) {
				return 0
			} else if !digit(a[0]) {
				return -1
			} else if !digit(b[0]) {
				return 1
			} else if a[0] != b[0] {
				if a[0] < b[0] {
					return -1
				}
				return 1
			}
		}
	}
	for {
		for space(a[0]) {
			a = a[1:]
		}
		for space(b[0]) {
			b = b[1:]
		}
		ca, cb := a[0], b[0]
		if digit(ca) && digit(cb) {
			var r int
			if ca == '0' || cb == '0' {
				r = left(a, b)
			} else {
				r = right(a, b)
			}
			if r != 0 {
				return r
			}
		}
		if ca == 0 && cb == 0 {
			return 0
		}
		if ca < cb {
			return -1
		} else if ca > cb {
			return 1
		}
		a, b = a[1:], b[1:]
	}
}

// randomExpr generates a hostlist expression, valid or not: empty elements, leading
// and trailing separators, one to four brackets with text between them, zero padding
// ([01-10], [001-3], [1-003]), lists ([1-3,5], [2,1]), and the mistakes (reversed
// and malformed ranges, empty brackets, text after the last bracket, nested
// brackets).
func randomExpr(rng *rand.Rand) string {
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	bodies := []string{"1-3", "01-10", "1-3,5", "001-3", "1-003", "9-11", "09-11", "0-010", "7", "7-7", "2,1", "1,1",
		"0", "00", "1-2,4-5", "10-12,01", "9223372036854775806-9223372036854775807"}
	bad := []string{"3-1", "", "a-b", "1-", "-2", "1--2", "1-2,", ",1", "[1-2]", "1-2]["}
	var items []string
	for range 1 + rng.IntN(4) {
		name := pick("n", "node", "gpu-", "rack1_b", "", "a-b", "x0")
		for i := range rng.IntN(4) {
			if i > 0 {
				name += pick("b", "-", "_", "c1", "")
			}
			body := pick(bodies...)
			if rng.IntN(12) == 0 {
				body = pick(bad...)
			} else if rng.IntN(3) == 0 {
				lo := rng.IntN(20)
				w := 1 + rng.IntN(3)
				body = fmt.Sprintf("%0*d-%0*d", w, lo, w, lo+rng.IntN(4))
			}
			name += "[" + body + "]"
		}
		if rng.IntN(15) == 0 && name != "" { // (a leading '-' would be an option of scontrol)
			name += pick("x", "-ib", "]")
		}
		items = append(items, name)
	}
	expr := ""
	for i, it := range items {
		if i > 0 {
			expr += pick(",", ",,", " ", ", ", "\t")
		}
		expr += it
	}
	if rng.IntN(6) == 0 {
		expr = pick(",", " ") + expr
	}
	if rng.IntN(6) == 0 {
		expr += ","
	}
	return expr
}

// TestExpandAgainstScontrolGenerated compares Expand with scontrol show hostnames on
// generated expressions, valid and not: where Slurm prints names, Expand gives the
// same names in the same order; where Slurm says "Invalid hostlist" or reports an
// error, Expand refuses.
// The differences on purpose: an expression with no name at all (",,"), where
// scontrol prints nothing and Expand refuses (an empty node list is a mistake here),
// and nested brackets, which Expand refuses and scontrol refuses or mangles.
func TestExpandAgainstScontrolGenerated(t *testing.T) {
	sc, err := exec.LookPath("scontrol")
	if err != nil {
		t.Skip("scontrol not on PATH: install Debian's slurm-client (or run scripts/slurm-local.sh as root) to compare with Slurm")
	}
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	os.WriteFile(conf, []byte("ClusterName=hostlist\nSlurmctldHost=localhost\n"), 0o644)
	env := append(os.Environ(), "SLURM_CONF="+conf)
	rng := rand.New(rand.NewPCG(6, 23))
	n := 600
	if testing.Short() {
		n = 60
	}
	var same, refused, empty, mangled int
	for range n {
		expr := randomExpr(rng)
		cmd := exec.Command(sc, "show", "hostnames", expr)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scontrol show hostnames %q: %v %s", expr, err, out)
		}
		got, gotErr := Expand(expr)
		switch text := string(out); {
		case strings.Contains(expr, "[["):
			// Nested brackets: scontrol refuses them in a name of one bracket and
			// prints pieces of the text for longer names; Expand always refuses.
			if gotErr == nil {
				t.Fatalf("%q: nested brackets accepted: %v", expr, got)
			}
			mangled++
		case strings.Contains(text, "Invalid hostlist"), strings.Contains(text, "error:"):
			// (scontrol reports a bad range of a name with several brackets and goes
			// on without that name; Expand refuses the whole list.)
			if gotErr == nil {
				t.Fatalf("%q: Slurm refuses it (%s), Expand gives %v", expr, strings.TrimSpace(text), got)
			}
			refused++
		case strings.TrimSpace(text) == "":
			if gotErr == nil || !strings.Contains(gotErr.Error(), "no host names") {
				t.Fatalf("%q: Slurm prints no name, Expand: %v %v", expr, got, gotErr)
			}
			empty++
		default:
			want := strings.Fields(text)
			if gotErr != nil || !slices.Equal(got, want) {
				t.Fatalf("%q: Expand = %v, %v; scontrol show hostnames: %v", expr, got, gotErr, want)
			}
			same++
		}
	}
	t.Logf("%d generated hostlists: %d expanded as scontrol does, %d refused by both, %d with no name (scontrol prints nothing, Expand refuses), %d with nested brackets (refused)", n, same, refused, empty, mangled)
}

// Slurm's order of names with three or more brackets (scontrol show hostnames
// a[1-2]b[3-4]c[5-6]), kept without scontrol.
func TestExpandBracketOrder(t *testing.T) {
	for expr, want := range map[string]string{
		"a[1-2]b[3-4]":         "a1b3 a1b4 a2b3 a2b4",
		"a[1-2]b[3-4]c[5-6]":   "a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 a1b4c6 a2b4c5 a2b4c6",
		"a[1-3]b[4-5]c[6]":     "a1b4c6 a2b4c6 a3b4c6 a1b5c6 a2b5c6 a3b5c6",
		"n[1-2],,n3":           "n1 n2 n3",
		"x[1-2]-[3-4]_[5-6],y": "x1-3_5 x1-3_6 x2-3_5 x2-3_6 x1-4_5 x1-4_6 x2-4_5 x2-4_6 y",
		"a[1-2]b[3]c[5]d[7-8]": "a1b3c5d7 a1b3c5d8 a2b3c5d7 a2b3c5d8",
	} {
		got, err := Expand(expr)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("Expand(%q) = %v, %v; scontrol: %s", expr, got, err, want)
		}
	}
}

// FuzzExpandAgainstScontrol: whatever Expand accepts, Slurm's scontrol show hostnames
// expands to the same names in the same order (Expand may refuse what scontrol
// garbles: "n[1-2" is "n]" to scontrol). Skipped without scontrol; each input runs
// one scontrol process, so fuzzing it is slow (hundreds of inputs a second).
func FuzzExpandAgainstScontrol(f *testing.F) {
	for _, s := range []string{"node[001-016,020]", "rack[0-3]_blade[0-41]", "a,b", "a b", "n[1-2],,n3", " ,n[1-2]\t n3, ", "n1-2]", "a]b[1-2]", "n[1-]", "n[01-],m", "n[5,1]", "c[01,1-2]", "n[1,1]", "x[1-2]y[3-4]", "-0,n[1-2]"} {
		f.Add(s)
	}
	sc, err := exec.LookPath("scontrol")
	if err != nil {
		f.Skip("scontrol not on PATH: install Debian's slurm-client to compare with Slurm")
	}
	conf := filepath.Join(f.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("ClusterName=hostlist\nSlurmctldHost=localhost\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	env := append(os.Environ(), "SLURM_CONF="+conf)
	f.Fuzz(func(t *testing.T, s string) {
		names, err := Expand(s)
		// An argument cannot hold a NUL byte; scontrol reads up to its own bounds; a
		// '\n' or '\r' is a separator to Expand (a list over lines, a CRLF file's
		// hostlists) and a letter to scontrol ("\n0" is one name, printed on two
		// lines), a difference kept on purpose.
		if err != nil || strings.ContainsAny(s, "\x00\n\r") || len(names) > 2000 {
			return
		}
		cmd := exec.Command(sc, "--", "show", "hostnames", s) // "-0" is a name, not an option
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scontrol show hostnames %q: %v %s", s, err, out)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if !slices.Equal(names, want) {
			t.Fatalf("Expand(%q) = %q; scontrol show hostnames: %q", s, names, want)
		}
	})
}
