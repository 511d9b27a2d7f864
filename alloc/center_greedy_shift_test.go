package alloc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// The greedy collector's translated runs (greedyShift) against fresh runs: after
// each allocation, every free center that a kept run serves is collected afresh
// and must give the same score and node set, and every center the tree of runs
// says gives up below some stop must give up afresh; and the allocation and tie count
// match those of an allocator that collects every center afresh. The free sets are
// the ones translated runs are for: empty machines and machines with a few busy
// nodes or blocks, on tori (even and odd sides), partly wrapped grids and meshes,
// 1D to 3D, with jobs from one node to most of the machine.
func TestGreedyShiftMatchesFresh(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(16, 16), topo.Torus(15, 12), topo.Torus(7, 9), topo.Torus(6, 6, 6), topo.Torus(7, 5, 6), topo.Torus(31),
		topo.Mesh(24, 24), topo.Mesh(9, 9, 9), mustGrid(t, []int{16, 11}, []bool{true, false}), mustGrid(t, []int{9, 8, 7}, []bool{false, true, true}), topo.Mesh(40)}
	rounds := 30
	if testing.Short() {
		rounds = 16
	}
	rng := rand.New(rand.NewPCG(34, 5))
	served, gaveUps, resumes, busy, allocs := 0, 0, 0, 0, 0
	for _, g := range grids {
		n := g.N()
		for r := range rounds {
			free := make([]bool, n)
			for v := range free {
				free[v] = true
			}
			switch r % 4 {
			case 1: // a few busy nodes
				for range 1 + rng.IntN(3) {
					free[rng.IntN(n)] = false
				}
			case 2: // a busy block
				dims := g.Dims()
				lo := make([]int, len(dims))
				size := make([]int, len(dims))
				for j, s := range dims {
					lo[j], size[j] = rng.IntN(s), 1+rng.IntN(max(1, s/3))
				}
				c := make([]int, len(dims))
				for v := range n {
					c = g.Coord(v, c)
					in := true
					for j, s := range dims {
						if (c[j]-lo[j]+s)%s >= size[j] {
							in = false
						}
					}
					if in {
						free[v] = false
					}
				}
			}
			nf := 0
			for _, f := range free {
				if f {
					nf++
				}
			}
			if nf < 2 {
				continue
			}
			k := 1 + rng.IntN(nf-1)
			switch r % 3 {
			case 0:
				k = 1 + rng.IntN(min(nf-1, 40))
			case 1:
				k = 1 + rng.IntN(min(nf-1, n/4+1))
			}
			// translated runs by classes, by margins alone, and every center afresh
			var got [3][]int
			var ties [3]int
			for o := range 3 {
				a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
				if err != nil {
					t.Fatal(err)
				}
				mc := a.(*mc1x1)
				mc.shift.oneClass = o == 1
				mc.shift.off = o == 2
				mc.CountTies(r%2 == 0)
				setFree(t, a, free)
				if got[o], err = a.Allocate(k); err != nil {
					t.Fatal(err)
				}
				ties[o] = mc.LastTies()
				if o < 2 {
					r, g, rs, b := checkShiftRuns(t, mc, got[o], k)
					served, gaveUps, resumes, busy = served+r, gaveUps+g, resumes+rs, busy+b
				}
			}
			for o := range 2 {
				if !slices.Equal(got[o], got[2]) || ties[o] != ties[2] {
					t.Fatalf("%s round %d, k=%d: translated runs (%d) give %v (%d tied), fresh runs %v (%d tied)", g.Spec(), r, k, o, got[o], ties[o], got[2], ties[2])
				}
			}
			allocs++
		}
	}
	t.Logf("%d allocations; checked against fresh runs: %d centers served by translated runs, %d decided to give up, %d runs resumed; %d of them past a ball with a busy node", allocs, served, gaveUps, resumes, busy)
	if served < 1000 || gaveUps < 1000 || resumes < 1000 || busy < 1000 {
		t.Fatalf("only %d runs, %d give-ups, %d resumed runs and %d past busy nodes checked: the test no longer exercises them", served, gaveUps, resumes, busy)
	}
}

// checkShiftRuns restores the free set of mc's last decision (releasing nodes) and
// checks every free center the tree of runs decides against a fresh run: the run
// it returns (score, node set, fingerprint) with no stop, and whether the collector
// gives up for stops around the center's score and lower bound; it returns how many
// runs, give-ups and resumed runs it checked, and how many of those followed the
// tree past a ball holding a busy node (shiftLookup's busy nodes).
func checkShiftRuns(t *testing.T, mc *mc1x1, nodes []int, k int) (runs, gaveUps, resumes, busy int) {
	t.Helper()
	if err := mc.Release(nodes); err != nil {
		t.Fatal(err)
	}
	mc.refresh(prefixFree)
	mc.shift.ballC = -1
	for _, c := range mc.fl {
		lower, L, m, _ := mc.shellScore(c, k, math.MaxInt)
		run, gaveUp := mc.shiftLookup(c, L, m, math.MaxInt)
		if gaveUp {
			t.Fatalf("%s center %d, k=%d: gives up with no stop", mc.g.Spec(), c, k)
		}
		if mc.shift.lookupBusy && (run != nil || mc.shift.resumeAt >= 0) {
			busy++
		}
		resumed := mc.shift.resumeAt >= 0 && run == nil
		if resumed { // a run resumed where the tree leaves c's
			mc.shiftArm()
			got, gotSet := mc.greedyCollect(c, L, m, math.MaxInt)
			gotSet = slices.Sorted(slices.Values(gotSet))
			want, set := mc.greedyCollect(c, L, m, math.MaxInt)
			if set = slices.Sorted(slices.Values(set)); got != want || !slices.Equal(gotSet, set) {
				t.Fatalf("%s center %d, k=%d: resumed run scores %d with %v, fresh run %d with %v", mc.g.Spec(), c, k, got, gotSet, want, set)
			}
			resumes++
		}
		want, set := mc.greedyCollect(c, L, m, math.MaxInt)
		if run != nil {
			set = slices.Sorted(slices.Values(set))
			got := slices.Sorted(slices.Values(mc.shiftSet(run, c, nil)))
			if run.score != want || !slices.Equal(got, set) {
				t.Fatalf("%s center %d, k=%d: translated run scores %d with %v, fresh run %d with %v", mc.g.Spec(), c, k, run.score, got, want, set)
			}
			if h := mc.shiftHash(run, c); h != mc.setHash(set) {
				t.Fatalf("%s center %d, k=%d: translated fingerprint differs", mc.g.Spec(), c, k)
			}
			runs++
		}
		for _, stop := range []int{lower - 1, lower, lower + 1, want - 2, want - 1, want, want + 1} {
			run, gaveUp := mc.shiftLookup(c, L, m, stop)
			if mc.shift.lookupBusy && (run != nil || gaveUp || mc.shift.resumeAt >= 0) {
				busy++
			}
			if run == nil && !gaveUp {
				if mc.shift.resumeAt >= 0 {
					mc.shiftArm()
					got, _ := mc.greedyCollect(c, L, m, stop)
					if fresh, _ := mc.greedyCollect(c, L, m, stop); got != fresh {
						t.Fatalf("%s center %d, k=%d, stop %d: resumed run scores %d, a fresh run %d", mc.g.Spec(), c, k, stop, got, fresh)
					}
					resumes++
				}
				continue
			}
			fresh, _ := mc.greedyCollect(c, L, m, stop)
			switch {
			case gaveUp && fresh != math.MaxInt:
				t.Fatalf("%s center %d, k=%d, stop %d: the tree gives up, a fresh run scores %d", mc.g.Spec(), c, k, stop, fresh)
			case run != nil && fresh != run.score:
				t.Fatalf("%s center %d, k=%d, stop %d: the tree's run scores %d, a fresh run %d", mc.g.Spec(), c, k, stop, run.score, fresh)
			case gaveUp:
				gaveUps++
			}
		}
	}
	if err := mc.take(nodes); err != nil {
		t.Fatal(err)
	}
	return runs, gaveUps, resumes, busy
}

// greedyShellScore (the empty machine's shell score for centers whose ball is all
// free, else a bound from one ball count) against shellScore: the same score, shell
// and count, or a bound no higher than the score, for every free center of empty,
// young and random free sets on tori, 3D meshes and partly wrapped grids; and
// greedyShellScoreFrom, the score counted from a bound's count, against
// shellScore with stops around the score.
func TestGreedyShellScoreMatches(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(16, 16), topo.Torus(9, 7), topo.Torus(6, 6, 6), topo.Torus(5, 7, 4), topo.Mesh(9, 9, 9), topo.Torus(31)}
	if g, err := topo.NewGrid([]int{9, 8, 7}, []bool{false, true, true}); err == nil {
		grids = append(grids, g)
	}
	rng := rand.New(rand.NewPCG(34, 55))
	checked, shortcut, bounds, tight, from := 0, 0, 0, 0, 0
	for _, g := range grids {
		n := g.N()
		for r := range 12 {
			free := make([]bool, n)
			for v := range free {
				free[v] = r%3 == 0 || r%3 == 1 && rng.IntN(20) > 0 || r%3 == 2 && rng.IntN(2) == 0
			}
			free[0] = true
			nf := 0
			for _, f := range free {
				if f {
					nf++
				}
			}
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
			if err != nil {
				t.Fatal(err)
			}
			mc := a.(*mc1x1)
			setFree(t, a, free)
			mc.refresh(prefixFree)
			hits := mc.shift.scoreHits
			for _, k := range []int{1, 2, 1 + rng.IntN(nf), nf - 1, 1 + rng.IntN(min(nf, 30))} {
				if k < 1 || k >= nf {
					continue
				}
				for v := range n {
					if !free[v] {
						continue
					}
					lower, L, m, _ := mc.shellScore(v, k, math.MaxInt)
					gl, gL, gm := mc.greedyShellScore(v, k)
					checked++
					if gL < 0 { // a bound
						if gl > lower {
							t.Fatalf("%s center %d, k=%d: greedyShellScore's bound %d is above shellScore's score %d", g.Spec(), v, k, gl, lower)
						}
						bounds++
						if gl == lower {
							tight++
						}
						// the score counted from the bound's f (the count at L0,
						// carried in m) down and up: shellScore's, with ok exactly
						// as shellScore's for stops around the score and the bound
						for _, stop := range []int{math.MaxInt, lower + 1, lower, lower - 1, gl, gl - 1, k - 2} {
							ws, wL, wm, wok := mc.shellScore(v, k, stop)
							fs, fL, fm, fok := mc.greedyShellScoreFrom(v, k, gm, stop)
							if fok != wok || wok && (fs != ws || fL != wL || fm != wm) {
								t.Fatalf("%s center %d, k=%d, stop %d: greedyShellScoreFrom %d, %d, %d, %v; shellScore %d, %d, %d, %v", g.Spec(), v, k, stop, fs, fL, fm, fok, ws, wL, wm, wok)
							}
							from++
							// the tighter bound counted up from L0: between the two
							if ub := mc.greedyShellBoundUp(v, k, gm, stop); ub > lower || stop == math.MaxInt && ub < gl {
								t.Fatalf("%s center %d, k=%d, stop %d: greedyShellBoundUp %d, the score %d, greedyShellScore's bound %d", g.Spec(), v, k, stop, ub, lower, gl)
							}
						}
						continue
					}
					if gl != lower || gL != L || gm != m {
						t.Fatalf("%s center %d, k=%d: greedyShellScore %d, %d, %d; shellScore %d, %d, %d", g.Spec(), v, k, gl, gL, gm, lower, L, m)
					}
				}
			}
			shortcut += mc.shift.scoreHits - hits
		}
	}
	t.Logf("%d centers checked, %d with the empty machine's bound; %d bounds only (%d of them equal to the score); %d scores counted from a bound's count (greedyShellScoreFrom)", checked, shortcut, bounds, tight, from)
	if shortcut < 1000 || bounds < 1000 {
		t.Fatalf("only %d centers with the empty machine's bound and %d bounds", shortcut, bounds)
	}
}

// The symmetries of the tree's states (shiftStabHas, kept per node) and the
// shortcuts the lookups made against brute force: for every node of every tree
// of runs after an allocation, each symmetry whose answer is known maps the nodes
// taken before the node's step onto themselves exactly when the answer says so,
// and a shortcut's symmetry is one of them and carries its member onto the member
// whose branch it takes.
func TestGreedyShiftSymmetries(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(16, 16), topo.Torus(15, 12), topo.Torus(6, 6, 6), topo.Torus(7, 5, 6), topo.Torus(8, 8, 5), topo.Torus(31), mustGrid(t, []int{16, 11}, []bool{true, false})}
	rng := rand.New(rand.NewPCG(34, 6))
	known, shortcuts := 0, 0
	for _, g := range grids {
		n := g.N()
		for r := range 6 {
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
			if err != nil {
				t.Fatal(err)
			}
			mc := a.(*mc1x1)
			mc.CountTies(true)
			free := make([]bool, n)
			for v := range free {
				free[v] = r < 3 || rng.IntN(40) > 0
			}
			setFree(t, a, free)
			k := 2 + rng.IntN(n/3)
			if _, err := a.Allocate(k); err != nil {
				t.Fatal(err)
			}
			sh := &mc.shift
			d := mc.x.d
			stabOf := func(picks []int32, s uint8) bool {
				have := map[int]bool{}
				for o := 0; o < len(picks); o += d {
					have[mc.offsetKey(picks[o:o+d])] = true
				}
				for o := 0; o < len(picks); o += d {
					if !have[mc.offsetKey(mc.symApply(s, picks[o:o+d]))] {
						return false
					}
				}
				return true
			}
			var walk func(node int, before []int32)
			walk = func(node int, before []int32) {
				nd := &sh.nodes[node]
				picks := append(slices.Clone(before), nd.edge[:(nd.step-nd.from)*d]...)
				for s := 1; s < sh.nsym; s++ {
					if bit := uint64(1) << s; nd.stabKnown&bit != 0 {
						if want := stabOf(picks, uint8(s)); want != (nd.stab&bit != 0) {
							t.Fatalf("%s k=%d node %d: symmetry %d kept as %v, brute force %v", g.Spec(), k, node, s, !want, want)
						}
						known++
					}
				}
				for _, kd := range nd.kids {
					if kd.sym == 0 {
						walk(int(kd.node), picks)
						continue
					}
					// a shortcut: its symmetry fixes the state and carries its member
					// onto the member of the branch it takes
					if !stabOf(picks, kd.sym) {
						t.Fatalf("%s k=%d node %d: shortcut by symmetry %d, which does not fix the state", g.Spec(), k, node, kd.sym)
					}
					to := -1
					for _, k2 := range nd.kids {
						if k2.sym == 0 && k2.node == kd.node {
							to = int(k2.member)
						}
					}
					m := int(kd.member)
					if to < 0 || !slices.Equal(mc.symApply(kd.sym, nd.group[m*d:m*d+d]), nd.group[to*d:to*d+d]) {
						t.Fatalf("%s k=%d node %d: shortcut of member %d by symmetry %d does not lead to that member's image", g.Spec(), k, node, m, kd.sym)
					}
					shortcuts++
				}
			}
			for _, root := range sh.roots {
				walk(root, nil)
			}
		}
	}
	t.Logf("%d kept symmetries and %d shortcuts checked", known, shortcuts)
	if known < 100 || shortcuts < 20 {
		t.Fatalf("only %d symmetries and %d shortcuts checked", known, shortcuts)
	}
}
