package curves

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// FuzzParseWeights fuzzes --weights (order, evaluate, plan): accepted weights are
// valid (finite, non-negative, w(1) > 0), as many as the list has items or exp's K,
// and their canonical form (String) reads back to the same weights and is its own
// canonical form; a refusal quotes the spec (clipped as every error clips a long
// one, textin.Clip: the oracle wanted it whole and failed on a spec of 121 zeros).
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"list:1", "list:1,0.5,0.25", "exp:2:4", "exp:1:1", "list:0", "list:1,-1", "list:1e400", "list:1e-400", "list:NaN", "list:inf",
		"exp:0.5:3", "exp:2:0", "exp:2", "list:", "list:0x10", "list:1_0", "list: 1 , 2", "exp:1e308:3", "list:-0,1", "list:1,-0", "exp:Inf:2", "list:1,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeights(s)
		if err != nil {
			if w != nil {
				t.Fatalf("%q: refused (%v) but returned %v", s, err, w)
			}
			if !strings.Contains(err.Error(), "weights "+quote(textin.Clip(s))+":") {
				t.Fatalf("%q: error %q does not quote the spec", s, err)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("%q: accepted invalid weights: %v", s, err)
		}
		kind, rest, _ := strings.Cut(s, ":")
		if kind == "list" && len(w) != len(strings.Split(rest, ",")) {
			t.Fatalf("%q: %d weights", s, len(w))
		}
		if kind == "exp" && (w[0] != 1 || len(w) > 1<<20) {
			t.Fatalf("%q: exp weights start %g, %d of them", s, w[0], len(w))
		}
		back, err := ParseWeights(w.String())
		if err != nil || len(back) != len(w) {
			t.Fatalf("%q: canonical %q reads back as %v, %v", s, w.String(), back, err)
		}
		for i := range w {
			if back[i] != w[i] || math.Signbit(back[i]) != math.Signbit(w[i]) {
				t.Fatalf("%q: w(%d) = %g reads back as %g", s, i+1, w[i], back[i])
			}
		}
		if back.String() != w.String() {
			t.Fatalf("%q: canonical form not idempotent: %q then %q", s, w.String(), back.String())
		}
	})
}

// quote is the input as the errors' %q writes it.
func quote(s string) string { return fmt.Sprintf("%q", s) }

// FuzzReadSchedulerFormats fuzzes the resource managers' and launchers' ranking
// formats (hostlist, Open MPI rankfile, MPICH_RANK_ORDER, Flux JGF) as --curve FILE
// reads them, with host names or node indices: what is accepted is a permutation
// that survives a write/read round trip (fuzzRanking; without names, written with
// the indices as names).
func FuzzReadSchedulerFormats(f *testing.F) {
	hosts := []string{"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"}
	o := Order{2, 0, 1}
	for i, ft := range schedulerFormats[:4] {
		for _, h := range [][]string{nil, hosts[:3]} {
			var buf bytes.Buffer
			if err := WriteRanking(&buf, ft, o, RankingMeta{}, h); err != nil {
				continue // the format needs names
			}
			f.Add(uint8(i), h != nil, buf.Bytes(), 3)
		}
	}
	f.Add(uint8(0), true, []byte("h[2,0-1]\n"), 3)
	f.Add(uint8(1), false, []byte("rank 0=2 slot=0\nrank 0=1 slot=0\n"), 3)
	f.Add(uint8(2), false, []byte("0-2,1\n"), 3)
	f.Add(uint8(3), true, []byte(`{"graph":{"nodes":[{"id":"0","metadata":{"type":"node","name":"h1"}}]}}`), 1)
	// Flux's own forms: R with the graph under "scheduling", nodes without id (from
	// the names' digits) or without name (basename+id).
	f.Add(uint8(3), true, []byte(`{"version":1,"scheduling":{"graph":{"nodes":[{"id":"0","metadata":{"type":"cluster","paths":{"containment":"/c"}}},`+
		`{"id":"1","metadata":{"type":"node","name":"h1","paths":{"containment":"/c/h1"}}},{"id":"2","metadata":{"type":"node","basename":"h","id":0,"paths":{"containment":"/c/h0"}}}],`+
		`"edges":[{"source":"0","target":"1"},{"source":"0","target":"2","metadata":{"subsystem":"containment"}}]}}}`), 2)
	f.Fuzz(func(t *testing.T, which uint8, named bool, data []byte, n int) {
		ft := schedulerFormats[int(which)%4]
		if named {
			fuzzRanking(t, ft, data, n, hosts)
			return
		}
		// Without host names a file names nodes by index ("rank 0=0") and is read
		// so (OrderFromHostRanks), but WriteRanking refuses to write indices as
		// host names (ErrNoHostNames): the round trip writes the indices as names.
		n = 1 + (n%8+8)%8
		o, err := ReadRanking(bytes.NewReader(data), ft, n, nil)
		if err != nil {
			return
		}
		if err := o.Validate(n); err != nil {
			t.Fatalf("accepted %q as %v: %v", data, o, err)
		}
		idx := make([]string, n)
		for i := range idx {
			idx[i] = strconv.Itoa(i)
		}
		var buf bytes.Buffer
		if err := WriteRanking(&buf, ft, o, RankingMeta{}, idx); err != nil {
			t.Fatal(err)
		}
		back, err := ReadRanking(&buf, ft, n, nil)
		if err != nil || !slices.Equal(back, o) {
			t.Fatalf("round trip of %v: %v %v", o, back, err)
		}
	})
}
