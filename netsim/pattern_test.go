package netsim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func phaseMessages(pat Pattern, p, k int, rng *Rand) [][2]int {
	var out [][2]int
	pat.Phase(p, k, rng, func(s, d int) bool { out = append(out, [2]int{s, d}); return true })
	return out
}

func TestPatternsAreWellFormed(t *testing.T) {
	for _, name := range patterns {
		pat, err := ParsePattern(name)
		if err != nil {
			t.Fatal(err)
		}
		for p := 2; p <= 40; p++ {
			total := 0
			for k := range pat.Phases(p) {
				msgs := phaseMessages(pat, p, k, NewRand(1, 2))
				if len(msgs) == 0 {
					t.Fatalf("%s p=%d phase %d is empty", name, p, k)
				}
				for _, m := range msgs {
					if m[0] == m[1] || m[0] < 0 || m[1] < 0 || m[0] >= p || m[1] >= p {
						t.Fatalf("%s p=%d phase %d: bad message %v", name, p, k, m)
					}
				}
				total += len(msgs)
				// emit returning false stops the phase at once
				n := 0
				pat.Phase(p, k, NewRand(1, 2), func(int, int) bool { n++; return n < 2 })
				if n != min(2, len(msgs)) {
					t.Fatalf("%s p=%d: phase did not stop when emit returned false", name, p)
				}
			}
			switch name {
			case "all-to-all":
				msgs := phaseMessages(pat, p, 0, nil)
				seen := map[[2]int]bool{}
				for i, m := range msgs {
					seen[m] = true
					// each step is a permutation: no node receives twice in it
					if i%p == 0 {
						recv := map[int]bool{}
						for _, mm := range msgs[i : i+p] {
							if recv[mm[1]] {
								t.Fatalf("all-to-all p=%d: node %d receives twice in one step", p, mm[1])
							}
							recv[mm[1]] = true
						}
					}
				}
				if len(seen) != p*(p-1) || total != p*(p-1) {
					t.Fatalf("all-to-all p=%d: %d distinct pairs of %d", p, len(seen), total)
				}
			case "n-body":
				if pat.Phases(p) != p/2+1 || total != p*(p/2+1) {
					t.Fatalf("n-body p=%d: %d phases %d messages", p, pat.Phases(p), total)
				}
				for _, m := range phaseMessages(pat, p, 0, nil) {
					if m[1] != (m[0]+1)%p {
						t.Fatalf("n-body ring subphase: %v is not to the successor", m)
					}
				}
				for _, m := range phaseMessages(pat, p, p/2, nil) {
					if m[1] != (m[0]+p/2)%p {
						t.Fatalf("n-body chordal subphase: %v is not halfway round", m)
					}
				}
			case "tree":
				// broadcast: every processor but 0 receives exactly once; reduce mirrors it
				recv := make([]int, p)
				rounds := pat.Phases(p) / 2
				for k := range rounds {
					for _, m := range phaseMessages(pat, p, k, nil) {
						recv[m[1]]++
					}
				}
				for i, c := range recv {
					if (i == 0) != (c == 0) || c > 1 {
						t.Fatalf("tree p=%d: processor %d receives %d times in the broadcast", p, i, c)
					}
				}
				if total != 2*(p-1) {
					t.Fatalf("tree p=%d: %d messages, want %d", p, total, 2*(p-1))
				}
			case "halo2d":
				px := 1
				for d := 1; d*d <= p; d++ {
					if p%d == 0 {
						px = d
					}
				}
				py := p / px
				if want := 2*(px-1)*py + 2*(py-1)*px; total != want {
					t.Fatalf("halo2d p=%d (%dx%d): %d messages, want %d", p, px, py, total, want)
				}
			}
		}
	}
}

func TestRandomPatternIsSeeded(t *testing.T) {
	pat, _ := ParsePattern("random")
	a := phaseMessages(pat, 17, 0, NewRand(5, 9))
	b := phaseMessages(pat, 17, 0, NewRand(5, 9))
	c := phaseMessages(pat, 17, 0, NewRand(5, 10))
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different messages")
	}
	if slices.Equal(a, c) {
		t.Fatal("different streams, same messages")
	}
}

func TestRandUint64nIsUniform(t *testing.T) {
	r := NewRand(3, 4)
	cnt := make([]int, 7)
	for range 70000 {
		cnt[r.Uint64n(7)]++
	}
	for i, c := range cnt {
		if c < 9500 || c > 10500 {
			t.Fatalf("value %d drawn %d times of 70000", i, c)
		}
	}
}

func TestAllToAllMeshLoadMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	a2a, _ := ParsePattern("all-to-all")
	for _, spec := range []string{"mesh:8x8", "mesh:16x22", "mesh:5x3x4", "mesh:7x1"} {
		g := mustSpec(t, spec)
		r := NewGridRouter(g)
		fast := NewRouteMeter(r, a2a, 1)
		slow := NewRouteMeter(r, a2a, 1)
		slow.grid = nil
		if fast.grid == nil {
			t.Fatalf("%s: the mesh fast path is not used", spec)
		}
		for i := range 300 {
			k := 1 + rng.IntN(min(g.N(), 40))
			if i%3 == 0 {
				k = 1 + rng.IntN(g.N()) // up to the whole machine
			}
			nodes := rng.Perm(g.N())[:k]
			f, s := mustMeasure(t, fast, 0, nodes), mustMeasure(t, slow, 0, nodes)
			if f != s {
				t.Fatalf("%s nodes %v: counted %+v, enumerated %+v", spec, nodes, f, s)
			}
		}
	}
	// tori take their own count (TestAllToAllTorusLoadMatchesTrace)
	if NewRouteMeter(NewGridRouter(mustSpec(t, "torus:4x4")), a2a, 1).torus == nil {
		t.Fatal("a torus must use the torus count")
	}
}

func TestWorkloadDurations(t *testing.T) {
	g := mustSpec(t, "mesh:4x4")
	r := NewGridRouter(g)
	p := Params{MessageFlits: 10, RouterDelay: 2, FlitBytes: 8}
	for _, tc := range []struct {
		pattern string
		nodes   []int
		quota   int64
		want    int64
	}{
		// two neighbours exchanging: each phase (one message each way, separate
		// channels) takes R + S; 10 messages are 5 phases
		{"all-to-all", []int{0, 1}, 10, 5 * (2 + 10)},
		// an odd quota ends with a half phase
		{"all-to-all", []int{0, 1}, 3, 2 * (2 + 10)},
		// one processor talks to itself: S per message, one at a time
		{"n-body", []int{5}, 4, 4 * 10},
		{"random", []int{7}, 0, 0},
	} {
		pat, _ := ParsePattern(tc.pattern)
		var got JobStats
		finished := false
		w, err := NewWorkload(r, p, pat, 1, func(_ int, st JobStats) { got, finished = st, true })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Start(1, tc.nodes, tc.quota); err != nil {
			t.Fatal(err)
		}
		for !finished {
			if err := w.Engine().Run(1 << 40); err != nil {
				t.Fatal(err)
			}
		}
		if got.End != tc.want || got.Messages != tc.quota {
			t.Fatalf("%s on %v quota %d: ended at %d after %d messages, want %d", tc.pattern, tc.nodes, tc.quota, got.End, got.Messages, tc.want)
		}
	}
}

func TestWorkloadEveryJobEnds(t *testing.T) {
	g := mustSpec(t, "mesh:8x8")
	r := NewGridRouter(g)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, name := range patterns {
		pat, _ := ParsePattern(name)
		ended := map[int]JobStats{}
		w, err := NewWorkload(r, DefaultParams(), pat, 1, func(tag int, st JobStats) { ended[len(ended)] = st })
		if err != nil {
			t.Fatal(err)
		}
		perm := rng.Perm(64)
		var want int64
		for j, k := 0, 0; k < 64; j++ {
			size := min(1+rng.IntN(12), 64-k)
			q := int64(rng.IntN(300))
			want += q
			if _, err := w.Start(j, perm[k:k+size], q); err != nil {
				t.Fatal(err)
			}
			k += size
		}
		for !w.Engine().Idle() {
			if err := w.Engine().Run(1 << 40); err != nil {
				t.Fatal(err)
			}
		}
		var got int64
		for _, st := range ended {
			got += st.Messages
		}
		if got != want || w.Engine().Stats().Delivered != want {
			t.Fatalf("%s: %d messages delivered to ended jobs, %d sent", name, got, want)
		}
	}
}
