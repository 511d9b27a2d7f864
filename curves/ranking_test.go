package curves

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

func TestRankingRoundTrip(t *testing.T) {
	hosts := []string{"n0", "n1", "n2", "n3", "n4", "n5"}
	for _, o := range []Order{{0}, {1, 0}, {3, 1, 4, 0, 5, 2}, RowMajor(6)} {
		n := len(o)
		for _, f := range formats {
			var names []string
			if f == FormatHosts || slices.Contains(schedulerFormats, f) {
				names = hosts[:n]
			}
			var buf bytes.Buffer
			if err := WriteRanking(&buf, f, o, RankingMeta{Machine: "mesh:6", Curve: "test"}, names); err != nil {
				t.Fatal(err)
			}
			got, err := ReadRanking(bytes.NewReader(buf.Bytes()), f, n, names)
			if err != nil {
				t.Fatalf("%s: reading back %q: %v", f, buf.String(), err)
			}
			if !slices.Equal(got, o) {
				t.Errorf("%s: round trip %v -> %q -> %v", f, o, buf.String(), got)
			}
			// Detection from content agrees (except one-column numeric formats, which
			// need the extension, and a hostlist of one host, which is a hosts file too).
			if df, err := DetectFormat(buf.Bytes()); err == nil && df != f && !(n == 1 && f == FormatHostlist) {
				t.Errorf("%s: content detected as %s", f, df)
			}
		}
	}
}

func TestRankingFormatsByExample(t *testing.T) {
	o := Order{2, 0, 1} // node 2 first
	want := map[Format]string{
		FormatPairs: "0 1\n1 2\n2 0\n",
		FormatRanks: "1\n2\n0\n",
		FormatOrder: "2\n0\n1\n",
		FormatHosts: "c\na\nb\n",
		FormatJSON:  `{"format":"procalloc-ranking","machine":"mesh:3","curve":"x","n":3,"order":[2,0,1]}` + "\n",
	}
	for f, w := range want {
		var buf bytes.Buffer
		if err := WriteRanking(&buf, f, o, RankingMeta{Machine: "mesh:3", Curve: "x"}, []string{"a", "b", "c"}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != w {
			t.Errorf("%s: wrote %q, want %q", f, buf.String(), w)
		}
	}
	// PReMAS token stream: several pairs per line, comments.
	got, err := ReadRanking(strings.NewReader("# curve\n0 1 1 2\n2 0 # last\n"), FormatPairs, 3, nil)
	if err != nil || !slices.Equal(got, o) {
		t.Errorf("pairs token stream: %v %v", got, err)
	}
}

func TestRankingErrors(t *testing.T) {
	cases := []struct {
		f     Format
		in    string
		n     int
		want  string
		hosts []string
	}{
		{FormatPairs, "0 0\n1\n", 2, "line 2: want pairs", nil},
		{FormatPairs, "0 0\n1 x\n", 2, `line 2: rank "x" is not an integer`, nil},
		{FormatPairs, "0 0\n0 1\n", 2, "line 2: node 0 appears twice (first on line 1)", nil},
		{FormatPairs, "0 0\n1 0\n", 2, "line 2: rank 0 is given twice", nil},
		{FormatPairs, "0 0\n1 5\n", 2, "line 2: rank 5 is outside 0..1", nil},
		{FormatPairs, "0 0\n2 1\n", 3, "2 pairs for a machine of 3 nodes (first missing: node 1)", nil},
		{FormatRanks, "0\n1\n5\n", 3, "line 3: rank 5 is outside 0..2", nil},
		{FormatRanks, "0\n1\n2\n", 2, "line 3: more than 2 entries", nil},
		{FormatRanks, "0\n1\n1\n", 3, "line 3: rank 1 is given twice (first on line 2, to node 1)", nil},
		{FormatRanks, "0\n2\n", 3, "2 ranks for a machine of 3 nodes (first missing: node 2)", nil},
		{FormatRanks, "0 1\n", 2, "line 1: want one value per line", nil},
		{FormatOrder, "0\n1\n2\n3\n", 3, "line 4: more than 3 entries", nil},
		{FormatOrder, "0\n0\n", 2, "line 2: node 0 appears twice", nil},
		{FormatOrder, "-1\n", 2, "line 1: node -1 is outside 0..1", nil},
		{FormatHosts, "a\nz\n", 2, `line 2: unknown host "z"`, []string{"a", "b"}},
		{FormatHosts, "a\na\n", 2, "line 2: node 0 appears twice", []string{"a", "b"}},
		{FormatJSON, `{"order":[0,0]}`, 2, "JSON order: rank 1: node 0 appears twice", nil},
		{FormatJSON, `{"n":3,"order":[0,1]}`, 2, "n = 3, machine has 2 nodes", nil},
		{FormatJSON, `{"orders":[0,1]}`, 2, `no "order" array`, nil},
		{FormatJSON, `{"order":[0,1]} {}`, 2, "trailing data", nil},
		{FormatJSON, `{"order":[0,1`, 2, "JSON", nil},
	}
	for _, c := range cases {
		_, err := ReadRanking(strings.NewReader(c.in), c.f, c.n, c.hosts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want it to contain %q", c.f, c.in, err, c.want)
		}
	}
}

// A token of a megabyte is quoted clipped, as valid UTF-8 (the unknown host was
// echoed whole: a 1 MB error message).
func TestRankingErrorsClipLongTokens(t *testing.T) {
	long := strings.Repeat("é", 1<<19)
	for _, c := range []struct {
		f     Format
		in    string
		hosts []string
	}{
		{FormatHosts, "a\n" + long + "\n", []string{"a", "b"}},
		{FormatPairs, "0 0\n1 " + long + "\n", nil},
		{FormatRanks, "0\n" + long + "\n", nil},
	} {
		_, err := ReadRanking(strings.NewReader(c.in), c.f, 2, c.hosts)
		if err == nil || len(err.Error()) > 300 || !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), "line 2: ") {
			t.Errorf("%s: error of %d bytes (valid UTF-8 %v): %.200v", c.f, len(fmt.Sprint(err)), utf8.ValidString(fmt.Sprint(err)), err)
		}
	}
}

func TestReadRankingFileDetectsFormat(t *testing.T) {
	resolve := func(path string, m topo.Machine) (Order, error) { return ReadRankingFileOf(path, m, NodeNames(m)) }
	dir := t.TempDir()
	m := topo.Mesh(4, 4)
	h, _ := Generate("hilbert", m)
	write := func(name string, f Format) string {
		p := filepath.Join(dir, name)
		var buf bytes.Buffer
		if err := WriteRanking(&buf, f, h, RankingMeta{}, nil); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		f    Format
	}{{"a.pairs", FormatPairs}, {"a.ranks", FormatRanks}, {"a.order", FormatOrder}, {"a.json", FormatJSON},
		{"b.txt", FormatPairs}, {"b", FormatJSON}} {
		p := write(c.name, c.f)
		o, err := resolve(p, m)
		if err != nil || !slices.Equal(o, h) {
			t.Errorf("ReadRankingFileOf(%s): %v, %v", c.name, o, err)
		}
	}
	// One number per line without an extension is ambiguous.
	if _, err := resolve(write("c.txt", FormatOrder), m); err == nil || !strings.Contains(err.Error(), ".ranks or .order") {
		t.Errorf("ambiguous file: %v", err)
	}
	// Wrong machine size.
	if _, err := resolve(filepath.Join(dir, "a.pairs"), topo.Mesh(5, 5)); err == nil || !strings.Contains(err.Error(), "outside 0..24") && !strings.Contains(err.Error(), "machine of 25") {
		t.Errorf("wrong size: %v", err)
	}
	// Host names of a graph.
	g, err := topo.ReadGraph(strings.NewReader("a b\nb c\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "g.hosts")
	os.WriteFile(p, []byte("c\na\nb\n"), 0o644)
	if o, err := resolve(p, g); err != nil || !slices.Equal(o, Order{2, 0, 1}) {
		t.Errorf("hosts on a graph: %v %v", o, err)
	}
}

func TestReadHostNames(t *testing.T) {
	names, err := ReadHostNames(context.Background(), strings.NewReader("# hosts\nalpha\n\nbeta # second\n"), 0)
	if err != nil || !slices.Equal(names, []string{"alpha", "beta"}) {
		t.Errorf("%v %v", names, err)
	}
	if _, err := ReadHostNames(context.Background(), strings.NewReader("a\nb\na\n"), 0); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("duplicate: %v", err)
	}
	if names, err := ReadHostNames(context.Background(), strings.NewReader("n[1-3]\nm0\nm[001-002],x\n"), 0); err != nil || strings.Join(names, " ") != "n1 n2 n3 m0 m001 m002 x" {
		t.Fatalf("hostlist lines: %v %v", names, err)
	}
	for _, bad := range []string{"n[3-1]\n", "n[1-2]\nn2\n", "n[0-99999999999999999999999]\n"} {
		if _, err := ReadHostNames(context.Background(), strings.NewReader(bad), 0); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := ReadHostNames(context.Background(), strings.NewReader("a b\n"), 0); err == nil {
		t.Errorf("two fields accepted")
	}
}

// fuzzRanking checks that a reader never panics and that what it accepts is a
// permutation that survives a write/read round trip.
func fuzzRanking(t *testing.T, f Format, data []byte, n int, hosts []string) {
	n = 1 + (n%8+8)%8
	if hosts != nil {
		hosts = hosts[:n]
	}
	o, err := ReadRanking(bytes.NewReader(data), f, n, hosts)
	if err != nil {
		return
	}
	if err := o.Validate(n); err != nil {
		t.Fatalf("accepted %q as %v: %v", data, o, err)
	}
	var buf bytes.Buffer
	if err := WriteRanking(&buf, f, o, RankingMeta{}, hosts); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRanking(&buf, f, n, hosts)
	if err != nil || !slices.Equal(back, o) {
		t.Fatalf("round trip of %v: %v %v", o, back, err)
	}
}

func FuzzReadPairs(f *testing.F) {
	f.Add([]byte("0 1\n1 0\n"), 2)
	f.Add([]byte("0 0 1 2 2 1\n"), 3)
	f.Add([]byte("# c\n0 0\n"), 1)
	f.Add([]byte("0 1\n0 1\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, n int) { fuzzRanking(t, FormatPairs, data, n, nil) })
}

func FuzzReadRanks(f *testing.F) {
	f.Add([]byte("1\n0\n"), 2)
	f.Add([]byte("2\n0\n1\n"), 3)
	f.Add([]byte("x\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) { fuzzRanking(t, FormatRanks, data, n, nil) })
}

func FuzzReadOrder(f *testing.F) {
	f.Add([]byte("1\n0\n"), 2)
	f.Add([]byte("0\n# c\n1\n2\n"), 3)
	f.Add([]byte("99999999999999999999\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) { fuzzRanking(t, FormatOrder, data, n, nil) })
}

func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"order":[1,0]}`), 2)
	f.Add([]byte(`{"format":"procalloc-ranking","n":3,"order":[2,0,1]}`), 3)
	f.Add([]byte(`{"order":null}`), 1)
	f.Add([]byte(`[1,2]`), 2)
	f.Fuzz(func(t *testing.T, data []byte, n int) { fuzzRanking(t, FormatJSON, data, n, nil) })
}

func FuzzReadHosts(f *testing.F) {
	f.Add([]byte("h1\nh0\n"), 2)
	f.Add([]byte("h0\nh0\n"), 2)
	f.Add([]byte("h7\nh6\nh5\nh4\nh3\nh2\nh1\nh0\n"), 8)
	hosts := []string{"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"}
	f.Fuzz(func(t *testing.T, data []byte, n int) { fuzzRanking(t, FormatHosts, data, n, hosts) })
}

// Issue 31 minor: weights are decimal numbers; Go's digit separators and hex floats
// are refused ("list:1_0" read as 10).
func TestParseWeightsDecimalOnly(t *testing.T) {
	for _, bad := range []string{"list:1_0", "list:1,0x10", "exp:0x2:3", "list:0x1p-2", "exp:1_0:3"} {
		if w, err := ParseWeights(bad); err == nil {
			t.Errorf("%s: read as %v", bad, w)
		}
	}
	// Below the smallest float64: ParseFloat's 0, read as w(2) = 0 (or "w(1) = 0").
	for _, tiny := range []string{"list:1,1e-400", "list:1e-400", "exp:1e-400:2"} {
		if w, err := ParseWeights(tiny); err == nil || !strings.Contains(err.Error(), "1e-400") {
			t.Errorf("%s: %v, %v", tiny, w, err)
		}
	}
	for spec, want := range map[string]string{"list:10": "list:10", "list:1,0e-400,1e-320": "list:1,0,1e-320", "list:1, 0.5,2.5e-1": "list:1,0.5,0.25", "exp:2:3": "list:1,0.5,0.25"} {
		if w, err := ParseWeights(spec); err != nil || w.String() != want {
			t.Errorf("%s: %v %v, want %s", spec, w, err, want)
		}
	}
}

// ExpandHostNames looks at its context while it expands and while it checks the
// names are distinct (--hostlist of 10^5 names: 60-70 ms with no look): cancelled,
// or ended at any of its looks, it returns context.Canceled itself and no names;
// the looks come at least twice every 4,096 names (the names as hostlist.Each
// walks them, the check; the range's numbers are no longer made in a pass of
// their own); live, the names as before.
func TestExpandHostNamesStopsWhenCancelled(t *testing.T) {
	const n = 16384
	expr := fmt.Sprintf("n[%05d-%05d]", 1, n)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if names, err := ExpandHostNames(ctx, expr, 0); err != context.Canceled || names != nil {
		t.Fatalf("a cancelled context: %d names, error %v; want none and context.Canceled itself", len(names), err)
	}
	count := ctxtest.NewCounting()
	names, err := ExpandHostNames(count, expr, 0)
	if err != nil || len(names) != n || names[n-1] != fmt.Sprintf("n%05d", n) {
		t.Fatalf("a live context: %d names, %v", len(names), err)
	}
	looks := count.Looks()
	if looks < 2*n/4096 {
		t.Fatalf("%d looks for %d names; want at least %d", looks, n, 2*n/4096)
	}
	for k := range looks {
		if names, err := ExpandHostNames(ctxtest.StopAfter(k), expr, 0); !errors.Is(err, context.Canceled) || names != nil {
			t.Fatalf("ended after %d of %d looks: %d names, error %v", k, looks, len(names), err)
		}
	}
	if _, err := ExpandHostNames(context.Background(), "n[1-3],n2", 0); err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Fatalf("a name twice: %v", err)
	}
}

// A --hosts file holding 'n[000001-131072]' on one line, or a host ranking file
// of 10^5 names, was read without a context once its bytes were in (the line's
// expansion, the names' checks; a ranking file's parse). ReadHostNames and
// RankingFileFor with a cancelled context, or one that ends at any of the looks a
// whole read makes, return an error wrapping context.Canceled and no names; live,
// what they read before. 16,384 names in -short, 131,072 otherwise.
func TestReadHostNamesAndRankingFilesStopWhenCancelled(t *testing.T) {
	n := 131072
	if testing.Short() {
		n = 16384
	}
	m, err := topo.ParseMachine(fmt.Sprintf("mesh:%dx16", n/16))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte(fmt.Sprintf("# one line\nn[%06d-%06d]\n", 1, n)), 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := ExpandHostNames(context.Background(), fmt.Sprintf("n[%06d-%06d]", 1, n), 0)
	if err != nil {
		t.Fatal(err)
	}
	var rank bytes.Buffer
	o := Snake(m.(*topo.Grid))
	if err := WriteRanking(&rank, FormatHosts, o, RankingMeta{}, names); err != nil {
		t.Fatal(err)
	}
	ranking := filepath.Join(dir, "r.hosts")
	if err := os.WriteFile(ranking, rank.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The looks of the ranking file's read alone, as readRankingFrom reads it:
	// the parse must look more, at least once per 64 KiB of the text it parses
	// (without its looks, a mutant, it made exactly these).
	fileCount := ctxtest.NewCounting()
	f, err := os.Open(ranking)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := textin.ReadAll(bufio.NewReader(textin.ContextReader(fileCount, f)), maxRankingBytes(n), "the file"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fileLooks := fileCount.Looks()
	for _, c := range []struct {
		name string
		read func(ctx context.Context) (int, error) // what it read
		want int
		// minLooks is the least number of looks a whole read makes.
		minLooks int64
	}{
		{"a hostlist line", func(ctx context.Context) (int, error) {
			f, err := os.Open(hosts)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			got, err := ReadHostNames(ctx, f, 0)
			if err == nil && !slices.Equal(got, names) {
				return 0, fmt.Errorf("read %d names, not the expansion's %d", len(got), len(names))
			}
			return len(got), err
		}, n, int64(2 * n / 4096)},
		{"a host ranking file", func(ctx context.Context) (int, error) {
			got, err := RankingFileFor(ctx, ranking, m, names)
			if err == nil && !slices.Equal(got, o) {
				return 0, fmt.Errorf("read an order other than the one written")
			}
			return len(got), err
		}, n, fileLooks + int64(rank.Len()/(64<<10))},
	} {
		count := ctxtest.NewCounting()
		got, err := c.read(count)
		if err != nil || got != c.want {
			t.Fatalf("%s, live: %d, %v; want %d", c.name, got, err, c.want)
		}
		looks := count.Looks()
		if looks < c.minLooks {
			t.Fatalf("%s: %d looks, want at least %d", c.name, looks, c.minLooks)
		}
		for k, stop := range ctxtest.Stops(looks, 40) { // k -1: cancelled before the call
			if got, err := c.read(stop); !errors.Is(err, context.Canceled) || got != 0 {
				t.Fatalf("%s, ended after %d of %d looks: %d, %v; want none and context.Canceled", c.name, k, looks, got, err)
			}
		}
	}
}
