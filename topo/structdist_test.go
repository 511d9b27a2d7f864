package topo

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// bfsPairSum is the sum of the breadth-first distances between the pairs of nodes,
// one search per node over the whole graph.
func bfsPairSum(g *Graph, nodes []int) int64 {
	dist := make([]int, g.Vertices())
	var sum int64
	for i, s := range nodes {
		for v := range dist {
			dist[v] = -1
		}
		dist[s] = 0
		queue := []int{s}
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, w := range g.adj[u] {
				if dist[w] < 0 {
					dist[w] = dist[u] + 1
					queue = append(queue, w)
				}
			}
		}
		for _, t := range nodes[i+1:] {
			sum += int64(dist[t])
		}
	}
	return sum
}

// randomJob draws k distinct hosts: scattered, or a run of consecutive hosts.
func randomJob(rng *rand.Rand, n int) []int {
	k := 1 + rng.IntN(min(n, 64))
	if rng.IntN(3) == 0 {
		start := rng.IntN(n - k + 1)
		nodes := make([]int, k)
		for i := range nodes {
			nodes[i] = start + i
		}
		return nodes
	}
	return rng.Perm(n)[:k]
}

// The closed-form sums of the synthetic fat trees and dragonflies are the
// breadth-first ones, on random jobs of random machines.
func TestStructuredPairDistSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	var machines []*Graph
	for _, shape := range []string{"8", "4,2:4", "4,4:4,4:8", "2,2:3,3:4", "3,1:2,2:2,3:4", "4,2:4,4:2"} {
		g, err := FatTree(shape)
		if err != nil {
			t.Fatal(shape, err)
		}
		machines = append(machines, g)
	}
	for range 25 {
		p, a, l, G := 1+rng.IntN(3), 1+rng.IntN(6), 1+rng.IntN(3), 1+rng.IntN(12)
		g, err := Dragonfly(p, a, l, G)
		if err != nil {
			t.Fatal(p, a, l, G, err)
		}
		g.spec = fmt.Sprintf("dragonfly:%d,%d,%d,%d", p, a, l, G)
		machines = append(machines, g)
	}
	for _, g := range machines {
		if g.layout == nil {
			t.Fatalf("%s: no layout", g.Spec())
		}
		for range 40 {
			nodes := randomJob(rng, g.N())
			got, ok := g.PairDistSum(nodes)
			if want := bfsPairSum(g, nodes); !ok || got != want {
				t.Fatalf("%s, job %v: closed form %d (%v), breadth-first %d", g.Spec(), nodes, got, ok, want)
			}
			if idx, ok := g.indexPairDistSum(nodes); !ok || idx != got {
				t.Fatalf("%s, job %v: closed form %d, hop index %d (%v)", g.Spec(), nodes, got, idx, ok)
			}
		}
	}
}

// benchPairDistSum sums the distances of jobs of k hosts (a run of consecutive
// hosts, as a free-list allocator gives on an empty machine, and scattered hosts)
// on the machine of spec, in closed form or from the hop index.
func benchPairDistSum(b *testing.B, spec string, k int, closed bool) {
	m, err := ParseMachine(spec)
	if err != nil {
		b.Fatal(err)
	}
	g := m.(*Graph)
	rng := rand.New(rand.NewPCG(5, 6))
	jobs := [][]int{make([]int, k), rng.Perm(g.N())[:k]}
	start := rng.IntN(g.N() - k)
	for i := range jobs[0] {
		jobs[0][i] = start + i
	}
	sum := g.PairDistSum
	if !closed {
		sum = g.indexPairDistSum
		sum(jobs[0]) // builds the index before the timer starts
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, ok := sum(jobs[i&1]); !ok {
			b.Fatal("disconnected")
		}
	}
}

const dragonfly100k = "dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=200"

// Issue 34's 102,400-host dragonfly: a job's pairwise distance sum in closed form
// and, for comparison, from the hop index (one breadth-first row of the router
// graph per router of the job).
func BenchmarkPairDistSumDragonfly100kClosed1024(b *testing.B) {
	benchPairDistSum(b, dragonfly100k, 1024, true)
}
func BenchmarkPairDistSumDragonfly100kIndex1024(b *testing.B) {
	benchPairDistSum(b, dragonfly100k, 1024, false)
}
func BenchmarkPairDistSumFatTree131kClosed1024(b *testing.B) {
	benchPairDistSum(b, "fattree:16,16:16,16:16,16:32", 1024, true)
}
func BenchmarkPairDistSumFatTree131kIndex1024(b *testing.B) {
	benchPairDistSum(b, "fattree:16,16:16,16:16,16:32", 1024, false)
}

// TestStructuredPairDistSumLargeDragonfly compares the closed form with the hop
// index on plan's benchmark dragonfly (80 groups; TestStructuredPairDistSum's have
// at most 12), for scattered jobs and runs of up to 3,000 hosts.
func TestStructuredPairDistSumLargeDragonfly(t *testing.T) {
	m, err := ParseMachine("dragonfly:hosts_per_router=8,routers_per_group=16,intergroup_links=5,num_groups=80")
	if err != nil {
		t.Fatal(err)
	}
	g := m.(*Graph)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 100 {
		k := 1 + rng.IntN(3000)
		var nodes []int
		if i%2 == 0 {
			nodes = rng.Perm(g.N())[:k]
		} else {
			st := rng.IntN(g.N() - k)
			for j := range k {
				nodes = append(nodes, st+j)
			}
		}
		got, ok := g.PairDistSum(nodes)
		idx, iok := g.indexPairDistSum(nodes)
		if !ok || !iok || got != idx {
			t.Fatalf("job %d of %d hosts: closed form %d (%v), hop index %d (%v)", i, k, got, ok, idx, iok)
		}
	}
}

// edgeListOf writes g as ReadGraph reads it: hosts, then switches, in index order,
// then every link once (a fabric file of the same machine).
func edgeListOf(g *Graph) string {
	var b strings.Builder
	for v := range g.Vertices() {
		if g.IsSwitch(v) {
			fmt.Fprintf(&b, "%%switch %s\n", g.Name(v))
		} else {
			fmt.Fprintf(&b, "%%node %s\n", g.Name(v))
		}
	}
	for v := range g.Vertices() {
		for _, w := range g.adj[v] {
			if v < w {
				fmt.Fprintf(&b, "%s %s\n", g.Name(v), g.Name(w))
			}
		}
	}
	return b.String()
}

// TestRecognisedDragonflyPairDistSum: a dragonfly read from a file (no builder's
// record) takes the closed form through its recognised structure, with the
// breadth-first sums, on random jobs of random dragonflies; a fat tree read from a
// file is no dragonfly and keeps the hop index.
func TestRecognisedDragonflyPairDistSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 3))
	for i := range 20 {
		p, a, l, G := 1+rng.IntN(3), 1+rng.IntN(6), 1+rng.IntN(3), 1+rng.IntN(12)
		if i == 0 {
			p, a, l, G = 4, 8, 2, 9
		}
		syn, err := Dragonfly(p, a, l, G)
		if err != nil {
			t.Fatal(p, a, l, G, err)
		}
		g, err := ReadGraph(strings.NewReader(edgeListOf(syn)))
		if err != nil {
			t.Fatal(err)
		}
		if g.layout != nil || g.structLayout() == nil {
			t.Fatalf("dragonfly %d,%d,%d,%d from a file: recognised layout %v", p, a, l, G, g.structLayout())
		}
		// Numbered as the spec: the spec's groups, in the spec's numbering (a
		// complete router graph, one group or groups of one router, is one group).
		sh, _ := g.Dragonfly()
		if (sh != (DragonflyShape{p, a, G}) && a > 1 && G > 1) || g.dfNum.hostRouter != nil || g.dfNum.routerVertex != nil {
			t.Fatalf("dragonfly %d,%d,%d,%d from a file: recognised %+v, numbering %v", p, a, l, G, sh, g.dfNum)
		}
		for range 40 {
			nodes := randomJob(rng, g.N())
			got, ok := g.PairDistSum(nodes)
			if want := bfsPairSum(g, nodes); !ok || got != want {
				t.Fatalf("dragonfly %d,%d,%d,%d from a file, job %v: closed form %d (%v), breadth-first %d", p, a, l, G, nodes, got, ok, want)
			}
		}
	}
	ft, err := FatTree("4,4:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadGraph(strings.NewReader(edgeListOf(ft)))
	if err != nil {
		t.Fatal(err)
	}
	if g.structLayout() != nil {
		t.Fatal("a fat tree from a file took a dragonfly's layout")
	}
}

// TestDragonflyCountSumFree: a set scored with its whole groups taken from the free
// hosts' tables (DragonflyFree, DragonflyCountSumFree) has the breadth-first sum of
// its hosts, and DragonflyCountSum's, on random dragonflies built and read from a
// file, with free sets of every host, of whole routers, whole groups or a random
// share, and sets of whole groups, whole routers of partial groups, parts of
// routers or nothing of a group, mixed.
func TestDragonflyCountSumFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 7))
	wholeSeen, pieceSeen, singleSeen := 0, 0, 0
	for i := range 24 {
		g, name, a, G := randomTestDragonfly(t, rng, i, [4]int{3, 8, 2, 9}, 6, 12, 3)
		hk := newHopKeys(g, mustHopIndex(t, g, ""))
		if hk.df == nil {
			t.Fatalf("%s: no short form", name)
		}
		routerKey := make([]int32, a*G)
		for x, r := range hk.keyRouter {
			routerKey[r] = int32(x)
		}
		byKey := make([][]int, hk.NumKeys)
		for v := range g.N() {
			byKey[hk.Key[v]] = append(byKey[hk.Key[v]], v)
		}
		var tbl *DragonflyFree
		for range 12 {
			// The free hosts: the first f[x] of each key's.
			f := make([]int32, hk.NumKeys)
			mode := rng.IntN(4)
			for x := range f {
				switch mode {
				case 0:
					f[x] = int32(len(byKey[x]))
				case 1:
					f[x] = int32(len(byKey[x]) * rng.IntN(2))
				default:
					f[x] = int32(rng.IntN(len(byKey[x]) + 1))
				}
			}
			var fk, fc []int32
			for x, c := range f {
				if c > 0 {
					fk, fc = append(fk, int32(x)), append(fc, c)
				}
			}
			var ok bool
			if tbl, ok = hk.DragonflyFree(tbl, fk, fc); !ok {
				t.Fatalf("%s: no tables", name)
			}
			for range 10 {
				// A center, and per group: whole, whole routers, parts of
				// routers, none, or the center group's piece (its routers with a
				// link into the center's group).
				center := int32(rng.IntN(hk.NumKeys+1)) - 1
				A := -1
				if center >= 0 {
					A = int(hk.keyRouter[center]) / a
				}
				choice := make([]int, G)
				for B := range choice {
					choice[B] = rng.IntN(7)
				}
				var keys, counts []int32
				var nodes []int
				for _, x := range rng.Perm(hk.NumKeys) {
					if f[x] == 0 {
						continue
					}
					c := int32(0)
					switch choice[int(hk.keyRouter[x])/a] {
					case 0:
						c = f[x]
					case 4, 5, 6:
						// The piece, and (5, 6) some of the group's other
						// routers, whole or in part.
						if A >= 0 && linksInto(g, hk.keyRouter[x], A) {
							c = f[x]
						} else if ch := choice[int(hk.keyRouter[x])/a]; ch == 5 {
							c = f[x] * int32(rng.IntN(2))
						} else if ch == 6 {
							c = int32(rng.IntN(int(f[x]) + 1))
						}
					case 1:
						c = f[x] * int32(rng.IntN(2))
					case 2:
						c = int32(rng.IntN(int(f[x]) + 1))
					}
					if c > 0 {
						keys, counts = append(keys, int32(x)), append(counts, c)
						nodes = append(nodes, byKey[x][:c]...)
					}
				}
				if len(nodes) == 0 {
					continue
				}
				plain, _ := hk.DragonflyCountSum(keys, counts)
				want := bfsPairSum(g, nodes)
				tbl.pieceMinSize = 0
				for sums := range 3 { // as chosen, pair by pair, by the range
					tbl.pieceSums = sums
					got, ok := hk.DragonflyCountSumFree(tbl, center, keys, counts)
					if !ok || got != want || plain != want {
						t.Fatalf("%s, free %v, center %d, set %v x %v, sums %d: with the tables %d (%v), by routers %d, breadth-first %d", name, f, center, keys, counts, sums, got, ok, plain, want)
					}
				}
				tbl.pieceSums = 0
				// Whole groups and other routers in the set (the two paths).
				inSet := map[int32]int32{}
				for j, x := range keys {
					inSet[x] = counts[j]
				}
				for B := range G {
					whole, some := true, false
					for r := B * a; r < (B+1)*a; r++ {
						x := routerKey[r]
						some = some || inSet[x] > 0
						whole = whole && inSet[x] == f[x]
					}
					piece, into := A >= 0 && B != A, false
					for r := B * a; r < (B+1)*a; r++ {
						x := routerKey[r]
						if A >= 0 && linksInto(g, int32(r), A) && f[x] > 0 {
							into = true
							piece = piece && inSet[x] == f[x]
						}
					}
					piece = piece && into
					switch {
					case some && whole:
						wholeSeen++
					case some && piece:
						pieceSeen++
					case some:
						singleSeen++
					}
				}
			}
		}
	}
	t.Logf("whole groups %d, pieces %d, other groups %d", wholeSeen, pieceSeen, singleSeen)
	if wholeSeen < 100 || pieceSeen < 100 || singleSeen < 100 {
		t.Fatalf("whole groups %d, pieces %d, other groups %d: a path not taken", wholeSeen, pieceSeen, singleSeen)
	}
}

// randomTestDragonfly is the i-th random dragonfly of a test (first's hosts a
// router, routers a group, links between two groups and groups when i is 0, else
// up to 3, aSpan, 3 and 1 + gSpan), read back from its edge list when i %
// fileEvery is fileEvery - 1; its name, routers a group and groups.
func randomTestDragonfly(t *testing.T, rng *rand.Rand, i int, first [4]int, aSpan, gSpan, fileEvery int) (*Graph, string, int, int) {
	t.Helper()
	p, a, l, G := 1+rng.IntN(3), 1+rng.IntN(aSpan), 1+rng.IntN(3), 2+rng.IntN(gSpan)
	if i == 0 {
		p, a, l, G = first[0], first[1], first[2], first[3]
	}
	g, err := Dragonfly(p, a, l, G)
	if err != nil {
		t.Fatal(p, a, l, G, err)
	}
	name := fmt.Sprintf("dragonfly %d,%d,%d,%d", p, a, l, G)
	if i%fileEvery == fileEvery-1 {
		if g, err = ReadGraph(strings.NewReader(edgeListOf(g))); err != nil {
			t.Fatal(err)
		}
		name += " from a file"
	}
	return g, name, a, G
}

// linksInto reports whether router r (index) has a link to a router of group A
// other than its own, from the graph's links.
func linksInto(g *Graph, r int32, A int) bool {
	s := g.structLayout()
	if int(r)/s.a == A {
		return false
	}
	for _, w := range g.adj[s.routerVertex(g, int(r))] {
		if w >= g.hosts && int(s.routerIndex(g, w))/s.a == A {
			return true
		}
	}
	return false
}

// TestDragonflyNearRings: DragonflyNear.List(x, upTo) lists every key within upTo
// (1, 2) of key x once, with its distance from Rows (breadth-first), and no other,
// on dragonflies built and read from a file, with the calls for 1 and 2
// interleaved (the scratch kept from call to call) and the stamps wrapping around.
func TestDragonflyNearRings(t *testing.T) {
	for _, spec := range []string{
		"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5",
		"dragonfly:hosts_per_router=1,routers_per_group=4,intergroup_links=2,num_groups=9",
		"dragonfly:hosts_per_router=3,routers_per_group=6,intergroup_links=2,num_groups=7",
		"dragonfly:hosts_per_router=1,routers_per_group=8,intergroup_links=1,num_groups=24"} {
		m, err := ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g2, err := ReadGraph(strings.NewReader(edgeListOf(m.(*Graph))))
		if err != nil {
			t.Fatal(err)
		}
		for name, g := range map[string]*Graph{spec: m.(*Graph), spec + " from a file": g2} {
			hk := newHopKeys(g, mustHopIndex(t, g, "rows"))
			w := hk.DragonflyNear()
			if w == nil {
				t.Fatalf("%s: no DragonflyNear", name)
			}
			srcs := make([]int32, hk.NumKeys)
			for i := range srcs {
				srcs[i] = int32(i)
			}
			w.List(0, 2)           // stamps 1 left behind
			w.mark = math.MaxInt32 // the next call wraps around, to 1 again
			if err := hk.Rows(context.Background(), srcs, func(i int, row []int32) {
				x := srcs[i]
				for _, upTo := range []int32{1, 2, 1} {
					keys, dist := w.List(x, upTo)
					got := map[int32]int32{}
					for j, y := range keys {
						if _, dup := got[y]; dup {
							t.Fatalf("%s: List(%d, %d) lists key %d twice", name, x, upTo, y)
						}
						got[y] = dist[j]
					}
					for y, d := range row {
						gd, in := got[int32(y)]
						switch {
						case d <= upTo && !in:
							t.Fatalf("%s: List(%d, %d) leaves out key %d at %d", name, x, upTo, y, d)
						case d > upTo && in:
							t.Fatalf("%s: List(%d, %d) lists key %d at %d (listed at %d)", name, x, upTo, y, d, gd)
						case in && gd != d:
							t.Fatalf("%s: List(%d, %d): key %d at %d, Rows %d", name, x, upTo, y, gd, d)
						}
					}
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDragonflyNearCandidate: DragonflyNear.candidateKeys is the definition's
// candidate of a router at router granularity: the free hosts of the routers
// sorted by their distance from it (Rows, breadth-first) and then by index, the
// first k, on random dragonflies (some read from a file: then with its keys in
// router order only when the file kept it) and random free sets (whole routers,
// random shares, a few hosts scattered over many routers, every group but a few
// empty), for every k up to the free hosts, the routers taken in random order
// (the center group's stamps redone) and the stamps wrapping around. It fails
// unless each of the cuts (inside the router, the first ring, the second, past
// it) was seen at least 100 times. DragonflyNear.CandidateSum, each way of
// summing the pieces and with the tables from sets of 0, 2 and groups/2 routers
// up, is the sum by routers (DragonflyCountSum) of those keys and counts; it
// fails unless whole groups, pieces and other routers were each scored at least
// 100 times.
func TestDragonflyNearCandidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 5))
	var seen [4]int
	var wholes, pieces, singles int
	for i := range 16 {
		g, name, a, G := randomTestDragonfly(t, rng, i, [4]int{2, 8, 2, 12}, 7, 14, 4)
		hk := newHopKeys(g, mustHopIndex(t, g, "rows"))
		w := hk.DragonflyNear()
		if w == nil {
			t.Fatalf("%s: no DragonflyNear", name)
		}
		hosts := make([]int32, hk.NumKeys)
		for v := range g.N() {
			hosts[hk.Key[v]]++
		}
		rows := make([][]int32, hk.NumKeys)
		srcs := make([]int32, hk.NumKeys)
		for x := range srcs {
			srcs[x] = int32(x)
		}
		if err := hk.Rows(context.Background(), srcs, func(i int, row []int32) {
			rows[i] = append([]int32(nil), row...)
		}); err != nil {
			t.Fatal(err)
		}
		var tbl *DragonflyFree
		for set := range 8 {
			f := make([]int32, hk.NumKeys)
			for x := range f {
				switch set % 4 {
				case 0:
					f[x] = hosts[x] * int32(rng.IntN(2))
				case 1:
					f[x] = int32(rng.IntN(int(hosts[x]) + 1))
				case 2:
					f[x] = min(hosts[x], int32(rng.IntN(2)))
				default:
					if int(hk.keyRouter[x])/a%3 == 0 {
						f[x] = int32(rng.IntN(int(hosts[x]) + 1))
					}
				}
			}
			var fk, fc []int32
			var total int64
			for x, c := range f {
				if c > 0 {
					fk, fc = append(fk, int32(x)), append(fc, c)
					total += int64(c)
				}
			}
			if total == 0 {
				continue
			}
			var ok bool
			if tbl, ok = hk.DragonflyFree(tbl, fk, fc); !ok {
				t.Fatalf("%s: no tables", name)
			}
			if set == 4 {
				w.cand.gen = math.MaxInt32 // the next call wraps around
			}
			for _, x := range rng.Perm(hk.NumKeys) {
				// The definition's order from x: distance, then key (index).
				order := make([]int32, hk.NumKeys)
				for y := range order {
					order[y] = int32(y)
				}
				row := rows[x]
				slices.SortFunc(order, func(u, v int32) int {
					if du, dv := row[u], row[v]; du != dv {
						return int(du - dv)
					}
					return int(u - v)
				})
				for k := int64(1); k <= total; k++ {
					want := map[int32]int32{}
					m, cut := k, int32(0)
					for _, y := range order {
						if m == 0 {
							break
						}
						if n := min(m, int64(f[y])); n > 0 {
							want[y], m, cut = int32(n), m-n, row[y]
						}
					}
					keys, counts, ok := w.candidateKeys(tbl, int32(x), k, nil, nil)
					if !ok {
						if w.ordered {
							t.Fatalf("%s: candidateKeys refused with the keys in router order", name)
						}
						continue
					}
					got := map[int32]int32{}
					for j, y := range keys {
						if _, dup := got[y]; dup || counts[j] <= 0 {
							t.Fatalf("%s, free %v: candidateKeys(%d, %d) lists key %d twice or with %d", name, f, x, k, y, counts[j])
						}
						got[y] = counts[j]
					}
					if !maps.Equal(got, want) {
						t.Fatalf("%s, free %v: candidateKeys(%d, %d) = %v, want %v", name, f, x, k, got, want)
					}
					seen[cut]++
					// Its score with the units not listed, each way of summing
					// the pieces, and the tables used from the smallest sets up.
					plain, _ := hk.DragonflyCountSum(keys, counts)
					tbl.pieceMinSize = []int{0, 2, G / 2}[rng.IntN(3)]
					tbl.pieceSums = rng.IntN(3)
					sum, routers, ok := w.CandidateSum(tbl, int32(x), k)
					if !ok || sum != plain || routers != len(keys) {
						t.Fatalf("%s, free %v: CandidateSum(%d, %d) = %d, %d routers, %v; by routers %d, %d routers (%v x %v)", name, f, x, k, sum, routers, ok, plain, len(keys), keys, counts)
					}
					if c := &w.cand; len(c.whole)+len(c.piece) > 0 {
						wholes += len(c.whole)
						pieces += len(c.piece)
						if len(c.keys) > 0 {
							singles++
						}
					}
					tbl.pieceMinSize, tbl.pieceSums = G/2, 0
				}
			}
		}
	}
	t.Logf("cuts at 0, 1, 2, 3: %v; scored as units: whole groups %d, pieces %d, sets with other routers %d", seen, wholes, pieces, singles)
	if wholes < 100 || pieces < 100 || singles < 100 {
		t.Fatalf("scored as units: whole groups %d, pieces %d, sets with other routers %d: a path not taken", wholes, pieces, singles)
	}
	for d, n := range seen {
		if n < 100 {
			t.Fatalf("cuts at 0, 1, 2, 3: %v: the cut at %d seen %d times", seen, d, n)
		}
	}
}
