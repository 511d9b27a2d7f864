package main

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
)

// FuzzFlagValues fuzzes the list flags the commands parse themselves (which picks
// one): compare/batch/bench --alloc (splitAllocSpecs, allocList), evaluate's
// --curve and order's --start (nameList), compare --loads, netsim --rate, sweep
// --shard and plot --where. Accepted values keep what the help says (the pieces of
// an --alloc list are the input's, rejoined; names trimmed, non-empty and
// distinct; loads and rates finite, in range and as many as given or as the
// range's steps; a shard's i/n reads back equal; the item --where describes
// matches); a refusal names the flag.
func FuzzFlagValues(f *testing.F) {
	for _, s := range []string{"mc1x1,mc1x1:tb=3,9,3,2, bf:hilbert", "bf,,mc", "bf,bf", ",", "", " ", "mc1x1-greedy:tb=2,1.5,-1,0", "1,2", "0.5,1,2", "0,1", "1e6,1e7", "nan",
		"0.05:0.5:0.05", "1:0:1", "0:1:0", "0:1:0.0001", "1e300:1e300:1", "1e-12:1e-12:1", "0/4", "3/4", "4/4", "-1/4", "+0/4", "0/+4", "a/b", "1/2/3",
		"alloc=mm,seed=1", "contract=0.5", "seed=-1", "engine=", "engine=flit", "k", "k=v", "trace=a=b"} {
		for which := range uint8(6) {
			f.Add(which, s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		quoted := strconv.Quote(s)
		refused := func(err error, flag string) {
			t.Helper()
			var u usageError
			if !strings.Contains(err.Error(), flag+" "+quoted) && !errors.As(err, &u) {
				t.Fatalf("%s %q: error %q quotes neither the value nor is a usage error", flag, s, err)
			}
			if !strings.Contains(err.Error(), flag+" ") {
				t.Fatalf("%s %q: error %q does not name the flag", flag, s, err)
			}
		}
		items := strings.Split(s, ",")
		switch which % 6 {
		case 0: // --alloc
			pieces := splitAllocSpecs(s)
			if strings.TrimSpace(s) == "" {
				if pieces != nil {
					t.Fatalf("%q: pieces %q of a blank list", s, pieces)
				}
			} else {
				trimmed := make([]string, len(items))
				for i, p := range items {
					trimmed[i] = strings.TrimSpace(p)
				}
				if strings.Join(pieces, ",") != strings.Join(trimmed, ",") {
					t.Fatalf("%q: pieces %q do not rejoin to the input", s, pieces)
				}
				for i, p := range pieces {
					if i > 0 && alloc.ContinuesSpec(p) || p != strings.TrimSpace(p) {
						t.Fatalf("%q: piece %d %q starts like a number or is not trimmed", s, i, p)
					}
				}
			}
			specs, err := allocList(s)
			if err != nil {
				var u usageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), "--alloc") {
					t.Fatalf("%q: %v is not a usage error naming --alloc", s, err)
				}
				return
			}
			for i, p := range specs {
				if p == "" || p != pieces[i] {
					t.Fatalf("%q: spec %d %q of %q", s, i, p, pieces)
				}
				for _, q := range specs[:i] {
					if q == p {
						t.Fatalf("%q: %q accepted twice", s, p)
					}
				}
			}
		case 5: // --curve, --start
			names, err := nameList("--curve", s, "curve")
			if err != nil {
				var u usageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), "--curve "+quoted) {
					t.Fatalf("%q: %v is not a usage error quoting --curve's value", s, err)
				}
				return
			}
			if len(names) != len(items) {
				t.Fatalf("%q: %d names", s, len(names))
			}
			for i, n := range names {
				if n == "" || n != strings.TrimSpace(items[i]) || slices.Contains(names[:i], n) {
					t.Fatalf("%q: name %d %q of %q", s, i+1, n, names)
				}
			}
		case 1: // --loads
			loads, err := parseLoads(s)
			if err != nil {
				refused(err, "--loads")
				return
			}
			if len(loads) != len(items) {
				t.Fatalf("%q: %d loads", s, len(loads))
			}
			for i, v := range loads {
				if !(v > 0 && v <= 1e6) {
					t.Fatalf("%q: load %g", s, v)
				}
				if want, _ := strconv.ParseFloat(strings.TrimSpace(items[i]), 64); want != v {
					t.Fatalf("%q: load %d is %g, the input says %q", s, i+1, v, items[i])
				}
			}
		case 2: // --rate
			rates, err := parseRates(s)
			if err != nil {
				refused(err, "--rate")
				return
			}
			if len(rates) == 0 || len(rates) > 1001 {
				t.Fatalf("%q: %d rates", s, len(rates))
			}
			_, _, isRange := strings.Cut(s, ":")
			for i, r := range rates {
				if math.IsNaN(r) || math.IsInf(r, 0) {
					t.Fatalf("%q: rate %d is %g", s, i+1, r)
				}
				if isRange && i > 0 && r < rates[i-1] {
					t.Fatalf("%q: the range's rates decrease: %v", s, rates)
				}
			}
			if !isRange && len(rates) != len(items) {
				t.Fatalf("%q: %d rates for %d items", s, len(rates), len(items))
			}
		case 3: // --shard
			i, n, err := parseShard(s)
			if err != nil {
				refused(err, "--shard")
				return
			}
			if i < 0 || i >= n {
				t.Fatalf("%q: shard %d/%d", s, i, n)
			}
			if i2, n2, err := parseShard(strconv.Itoa(i) + "/" + strconv.Itoa(n)); err != nil || i2 != i || n2 != n {
				t.Fatalf("%q: %d/%d reads back as %d/%d, %v", s, i, n, i2, n2, err)
			}
		case 4: // --where
			match, err := parseWhere(s)
			if err != nil {
				var u usageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), "--where ") {
					t.Fatalf("%q: %v is not a usage error naming --where", s, err)
				}
				return
			}
			if s == "" {
				if !match(sweep.Params{}) {
					t.Fatalf("an empty --where refuses an item")
				}
				return
			}
			if slices.Contains(items, "") {
				t.Fatalf("--where %q: an empty item accepted", s)
			}
			// The pairs: a piece that does not start with a known KEY= continues
			// the value before it (alloc=mc1x1:tb=3,9,3,2 is one pair), as plot's
			// help says.
			var pairs []string
			for _, piece := range items {
				k, _, ok := strings.Cut(piece, "=")
				if len(pairs) > 0 && (!ok || !slices.Contains(whereKeys, k) && k != "load_factor") {
					pairs[len(pairs)-1] += "," + piece
					continue
				}
				pairs = append(pairs, piece)
			}
			items = pairs
			// An item built from the pairs (the last value of a key wins) matches.
			var p sweep.Params
			for _, kv := range items {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "trace":
					p.Trace = v
				case "machine":
					p.Machine = v
				case "sched":
					p.Sched = sim.Sched(v)
				case "pattern":
					p.Pattern = v
				case "alloc":
					p.Alloc = v
				case "contract", "load_factor":
					p.Contract, _ = strconv.ParseFloat(v, 64)
				case "seed":
					p.Seed, _ = strconv.ParseUint(v, 10, 64)
				case "engine":
					p.Engine, _ = sim.ParseEngine(v)
				}
			}
			consistent := true
			for _, kv := range items { // a key given twice with two values matches nothing
				for _, kv2 := range items {
					k, v, _ := strings.Cut(kv, "=")
					k2, v2, _ := strings.Cut(kv2, "=")
					same := k == k2 || (k == "contract" || k == "load_factor") && (k2 == "contract" || k2 == "load_factor")
					if same && v != v2 {
						consistent = false
					}
				}
			}
			if consistent && !match(p) {
				t.Fatalf("--where %q: the item %+v it describes does not match", s, p)
			}
		}
	})
}

// A --rate range whose STEP is below FROM's precision: x never passed TO and
// parseRates appended until memory ran out (found by FuzzFlagValues' seed). The
// range has one rate, which netsim then refuses as outside (0, 1], naming it.
func TestParseRatesStepBelowPrecision(t *testing.T) {
	for s, want := range map[string][]float64{"1e300:1e300:1": {1e300}, "1e16:1e16:1": {1e16}, "0.05:0.2:0.05": {0.05, 0.1, 0.15, 0.2}, "0.1:0.3:0.1": {0.1, 0.2, 0.3}} {
		got, err := parseRates(s)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("--rate %s: %v, %v; want %v", s, got, err, want)
		}
	}
	code, _, stderr := runCLI(t, "", "netsim", "--machine", "mesh:4x4", "--rate", "1e300:1e300:1")
	if code != 2 || !strings.Contains(stderr, "--rate 1e+300: must be in (0, 1]") {
		t.Errorf("netsim --rate 1e300:1e300:1: exit %d, %q", code, stderr)
	}
}
