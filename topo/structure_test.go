package topo

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestStructureRecognised: a dragonfly's shape and a fat tree's levels are found
// from the links; machines without them are not taken for them.
func TestStructureRecognised(t *testing.T) {
	df, err := Dragonfly(2, 4, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := DragonflyShape{HostsPerRouter: 2, RoutersPerGroup: 4, Groups: 5}
	if s, ok := df.Dragonfly(); !ok || s != want {
		t.Errorf("dragonfly 2,4,1,5: shape %+v, %v", s, ok)
	}
	// From the links alone (a file's dragonfly has no builder's record).
	if s, num, reason := recogniseDragonfly(df); reason != "" || s != want || num.hostRouter != nil {
		t.Errorf("dragonfly 2,4,1,5: recognised %+v, %q, numbering %v", s, reason, num)
	}
	ft, err := ParseMachine("fattree:4,4:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ft.(*Graph).Dragonfly(); ok {
		t.Error("a fat tree was taken for a dragonfly")
	}
	tl, reason := ft.(*Graph).TreeLevels()
	if tl == nil || len(tl.ByLevel) != 3 {
		t.Fatalf("fattree:4,4:4,4:8: levels %v (%s), want 3", tl, reason)
	}
	if tl, _ := df.TreeLevels(); tl != nil {
		t.Error("a dragonfly was taken for a tree (its global links join routers of one level)")
	}
	ring, err := ReadGraph(strings.NewReader("%switch a\n%switch b\n%switch c\nh1 a\nh2 b\nh3 c\na b\nb c\nc a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ring.Dragonfly(); !ok {
		t.Error("three routers joined in a ring with a host each: one group of a dragonfly, not recognised")
	}
	if tl, reason := ring.TreeLevels(); tl != nil || reason == "" {
		t.Errorf("a ring of switches taken for a tree: %v", tl)
	}
}

// relabelledEdgeList writes g as a fabric file whose hosts and switches are
// numbered by random permutations: host h of g is host hostAt[h] of the file, switch
// v is vertex swAt[v-N()]; the links come in random order too, but for the links
// listed in without, which are left out.
func relabelledEdgeList(g *Graph, rng *rand.Rand, without ...[2]int) (file string, hostAt, swAt []int) {
	n, nv := g.N(), g.Vertices()
	hostAt, swAt = rng.Perm(n), rng.Perm(nv-n)
	for i := range swAt {
		swAt[i] += n
	}
	at := func(v int) int {
		if v < n {
			return hostAt[v]
		}
		return swAt[v-n]
	}
	name := func(v int) string { // the file's vertex v
		if v < n {
			return fmt.Sprintf("n%d", v)
		}
		return fmt.Sprintf("s%d", v-n)
	}
	var b strings.Builder
	for v := range nv {
		if v < n {
			fmt.Fprintf(&b, "%%node %s\n", name(v))
		} else {
			fmt.Fprintf(&b, "%%switch %s\n", name(v))
		}
	}
	var links [][2]int
	for v := range nv {
		for _, w := range g.adj[v] {
			if v < w && !slices.Contains(without, [2]int{v, w}) && !slices.Contains(without, [2]int{w, v}) {
				links = append(links, [2]int{at(v), at(w)})
			}
		}
	}
	rng.Shuffle(len(links), func(i, j int) { links[i], links[j] = links[j], links[i] })
	for _, l := range links {
		if rng.IntN(2) == 0 {
			l[0], l[1] = l[1], l[0]
		}
		fmt.Fprintf(&b, "%s %s\n", name(l[0]), name(l[1]))
	}
	return b.String(), hostAt, swAt
}

// TestDragonflyRecognisedRelabelled: a dragonfly whose hosts and switches a file
// numbers at random is recognised from its links alone, with the spec's shape, its
// groups (the file's group of a router holds the spec group's routers) and its
// hosts per router, and gives every job the pairwise distance sum of the same job
// on the spec, which is the breadth-first one. The spec's dragonfly with one link
// fewer (inside a group, or the only one between two groups) is none, with a reason.
func TestDragonflyRecognisedRelabelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 7))
	other := 0
	defer func() {
		if other > 10 {
			t.Errorf("%d of 60 relabelled dragonflies split otherwise than their spec", other)
		}
	}()
	for i := range 60 {
		p, a, l, G := 1+rng.IntN(3), 3+rng.IntN(6), 1+rng.IntN(3), 2+rng.IntN(12)
		if i == 0 {
			p, a, l, G = 4, 8, 2, 9
		}
		spec, err := Dragonfly(p, a, l, G)
		if err != nil {
			t.Fatal(p, a, l, G, err)
		}
		file, hostAt, swAt := relabelledEdgeList(spec, rng)
		g, err := ReadGraph(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("dragonfly %d,%d,%d,%d relabelled", p, a, l, G)
		sh, ok := g.Dragonfly()
		if !ok {
			t.Fatalf("%s: not recognised: %s", name, g.DragonflyReason())
		}
		if err := checkDragonflySplit(g); err != nil {
			t.Fatalf("%s: recognised as %+v: %v", name, sh, err)
		}
		n := spec.N()
		if want := (DragonflyShape{p, a, G}); sh != want {
			// Another split of the same links (3,3,3,11 is also 3 groups of 11):
			// valid, checked above, and taken only with larger groups.
			if i == 0 || sh.HostsPerRouter != p || sh.RoutersPerGroup < a {
				t.Fatalf("%s: recognised %+v; want %+v", name, sh, want)
			}
			other++
		}
		// Same groups: the spec's router r is the file's router index of vertex swAt[r].
		groupOf := map[int]int{} // file group -> spec group
		for r := range a * G {
			if sh.RoutersPerGroup != a {
				break
			}
			fr := g.DragonflyRouterIndex(swAt[r])
			if g.DragonflyRouterVertex(fr) != swAt[r] {
				t.Fatalf("%s: router index %d is vertex %d, not %d", name, fr, g.DragonflyRouterVertex(fr), swAt[r])
			}
			if sg, seen := groupOf[fr/a]; seen && sg != r/a {
				t.Fatalf("%s: the file's group %d holds routers of the spec's groups %d and %d", name, fr/a, sg, r/a)
			}
			groupOf[fr/a] = r / a
		}
		for h := range n {
			if got, want := g.DragonflyRouterOf(hostAt[h]), g.DragonflyRouterIndex(swAt[h/p]); got != want {
				t.Fatalf("%s: host %d is on router index %d, want %d", name, hostAt[h], got, want)
			}
		}
		if g.structLayout() == nil {
			t.Fatalf("%s: no closed-form layout", name)
		}
		for range 30 {
			nodes := randomJob(rng, n)
			mapped := make([]int, len(nodes))
			for j, h := range nodes {
				mapped[j] = hostAt[h]
			}
			want, _ := spec.PairDistSum(nodes)
			got, ok := g.PairDistSum(mapped)
			if !ok || got != want {
				t.Fatalf("%s, job %v: %d (%v), the spec's %d", name, nodes, got, ok, want)
			}
			if bfs := bfsPairSum(g, mapped); got != bfs {
				t.Fatalf("%s, job %v: closed form %d, breadth-first %d", name, mapped, got, bfs)
			}
		}
		// One link fewer: a local one, or the only global one between two groups.
		cut := func(u, v int) {
			file, _, _ := relabelledEdgeList(spec, rng, [2]int{u, v})
			g2, err := ReadGraph(strings.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			sh2, ok := g2.Dragonfly()
			if !ok && g2.DragonflyReason() != "" {
				return
			}
			// Still a dragonfly of other groups (3,3,3,11 as 3 groups of 11, the
			// link cut joining two of them), or wrong.
			if err := checkDragonflySplit(g2); err != nil || i == 0 || sh2.RoutersPerGroup == a {
				t.Fatalf("%s without link %s-%s: recognised as %+v (%v)", name, spec.Name(u), spec.Name(v), sh2, err)
			}
			other++
		}
		A := rng.IntN(G)
		x, y := rng.IntN(a), rng.IntN(a-1)
		if y >= x {
			y++
		}
		cut(n+A*a+x, n+A*a+y)
		if l == 1 {
			for _, w := range spec.adj[n+A*a+x] {
				if w >= n && (w-n)/a != A {
					cut(n+A*a+x, w)
					break
				}
			}
		}
	}
}

// checkDragonflySplit checks the structure g.Dragonfly found by its definition:
// every host on a router, as many on each; every group's routers joined to each
// other; a link between every two groups.
func checkDragonflySplit(g *Graph) error {
	sh, ok := g.Dragonfly()
	if !ok {
		return fmt.Errorf("no dragonfly")
	}
	n, a, G := g.N(), sh.RoutersPerGroup, sh.Groups
	if g.Vertices()-n != a*G || n != sh.HostsPerRouter*a*G {
		return fmt.Errorf("%d hosts, %d switches", n, g.Vertices()-n)
	}
	perRouter := make([]int, a*G)
	for h := range n {
		r := g.DragonflyRouterOf(h)
		if len(g.adj[h]) != 1 || g.adj[h][0] != g.DragonflyRouterVertex(r) {
			return fmt.Errorf("host %d is not on router index %d alone", h, r)
		}
		perRouter[r]++
	}
	linked := map[[2]int]bool{}
	for r := range a * G {
		if perRouter[r] != sh.HostsPerRouter {
			return fmt.Errorf("router index %d has %d hosts", r, perRouter[r])
		}
		u := g.DragonflyRouterVertex(r)
		if g.DragonflyRouterIndex(u) != r {
			return fmt.Errorf("router index %d: vertex %d, whose index is %d", r, u, g.DragonflyRouterIndex(u))
		}
		local := 0
		for _, w := range g.adj[u] {
			if w < n {
				continue
			}
			if x := g.DragonflyRouterIndex(w); x/a == r/a {
				local++
			} else {
				linked[[2]int{r / a, x / a}] = true
			}
		}
		if local != a-1 {
			return fmt.Errorf("router index %d is joined to %d of its group", r, local)
		}
	}
	if len(linked) != G*(G-1) {
		return fmt.Errorf("%d ordered pairs of groups linked, want %d", len(linked), G*(G-1))
	}
	return nil
}

// TestDragonflyRecognisedIffSplitExists: on small random router graphs (random
// groups joined all to all, random links between them, a few links added or taken
// away, switches in random order), the recogniser finds a dragonfly exactly when
// some split of the routers into equal groups joined all to all with every two
// groups linked exists (every split tried by brute force), and what it finds is one.
func TestDragonflyRecognisedIffSplitExists(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 8))
	found := 0
	for trial := range 1500 {
		nr := 1 + rng.IntN(9)
		p := 1 + rng.IntN(2)
		adj := make([][]bool, nr)
		for u := range adj {
			adj[u] = make([]bool, nr)
		}
		join := func(u, v int, on bool) {
			if u != v {
				adj[u][v], adj[v][u] = on, on
			}
		}
		// Random groups of one size, joined all to all, and random links.
		var sizes []int
		for a := 1; a <= nr; a++ {
			if nr%a == 0 {
				sizes = append(sizes, a)
			}
		}
		a := sizes[rng.IntN(len(sizes))]
		perm := rng.Perm(nr)
		for i := range nr {
			for j := range nr {
				if i/a == j/a {
					join(perm[i], perm[j], true)
				} else if rng.IntN(3) == 0 {
					join(perm[i], perm[j], true)
				}
			}
		}
		for range rng.IntN(3) {
			join(rng.IntN(nr), rng.IntN(nr), rng.IntN(2) == 0)
		}
		var b strings.Builder
		for u := range nr {
			fmt.Fprintf(&b, "%%switch s%d\n", u)
			for i := range p {
				fmt.Fprintf(&b, "h%d.%d s%d\n", u, i, u)
			}
		}
		for u := range nr {
			for v := u + 1; v < nr; v++ {
				if adj[u][v] {
					fmt.Fprintf(&b, "s%d s%d\n", u, v)
				}
			}
		}
		g, err := ReadGraph(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		exists := false
		for _, a := range sizes {
			if splitExists(adj, a) {
				exists = true
				break
			}
		}
		sh, ok := g.Dragonfly()
		if ok != exists {
			t.Fatalf("trial %d, %d routers: recognised %v (%+v, %s), a split exists: %v\n%s", trial, nr, ok, sh, g.DragonflyReason(), exists, b.String())
		}
		if ok {
			found++
			if err := checkDragonflySplit(g); err != nil {
				t.Fatalf("trial %d: %v\n%s", trial, err, b.String())
			}
		}
	}
	if found < 300 || found > 1200 {
		t.Errorf("%d of 1500 random graphs are dragonflies: the trials do not test both sides", found)
	}
}

// splitExists reports whether the routers of adj split into groups of a routers
// joined all to all with a link between every two groups (brute force).
func splitExists(adj [][]bool, a int) bool {
	return eachSplit(adj, a, func([]int) bool { return true })
}

// eachSplit calls found with every split of the routers of adj into groups of a
// routers joined all to all with a link between every two groups (group per router,
// numbered in order of their lowest router), by brute force, until found reports
// true; it reports whether one did.
func eachSplit(adj [][]bool, a int, found func(group []int) bool) bool {
	nr := len(adj)
	group := make([]int, nr)
	for u := range group {
		group[u] = -1
	}
	var rec func(next int) bool
	rec = func(next int) bool {
		u := 0
		for u < nr && group[u] >= 0 {
			u++
		}
		if u == nr {
			G := next
			linked := make([]bool, G*G)
			for x := range nr {
				for y := range nr {
					if adj[x][y] {
						linked[group[x]*G+group[y]] = true
					}
				}
			}
			for A := range G {
				for B := range G {
					if A != B && !linked[A*G+B] {
						return false
					}
				}
			}
			return found(group)
		}
		group[u] = next
		var pick func(from, need int) bool
		pick = func(from, need int) bool {
			if need == 0 {
				return rec(next + 1)
			}
			for v := from; v < nr; v++ {
				if group[v] >= 0 || !adj[u][v] {
					continue
				}
				ok := true
				for w := range nr {
					if w != u && group[w] == next && !adj[v][w] {
						ok = false
					}
				}
				if !ok {
					continue
				}
				group[v] = next
				if pick(v+1, need-1) {
					return true
				}
				group[v] = -1
			}
			return false
		}
		if pick(u+1, a-1) {
			return true
		}
		group[u] = -1
		return false
	}
	return rec(0)
}

// benchRecognise times the recognition of the 102,400-host dragonfly of issue 34
// read from an edge list, numbered as the spec or at random (reading it is setup).
func benchRecognise(b *testing.B, random bool) {
	spec, err := Dragonfly(8, 64, 4, 200)
	if err != nil {
		b.Fatal(err)
	}
	text := edgeListOf(spec)
	if random {
		text, _, _ = relabelledEdgeList(spec, rand.New(rand.NewPCG(34, 34)))
	}
	g, err := ReadGraph(strings.NewReader(text))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, reason := recogniseDragonfly(g); reason != "" {
			b.Fatal(reason)
		}
	}
}

func BenchmarkRecogniseDragonfly100kAsSpec(b *testing.B)   { benchRecognise(b, false) }
func BenchmarkRecogniseDragonfly100kAtRandom(b *testing.B) { benchRecognise(b, true) }

// TestDragonflyGroupsCertainBruteForce: a dragonfly read from links has certain
// groups exactly when no other split of its routers into groups of one size (joined
// all to all, every two linked) exists, every split of every size tried by brute
// force (but the split into single routers of routers all joined, which makes the
// same tree); when one exists, the reason names two routers that one of the two
// splits puts together and the other keeps apart. Relabelled dragonflies of 1 to 6
// routers a group (1 to 4 links between two groups, at most 12 routers) and small
// random router graphs; a dragonfly built from its spec is always certain.
func TestDragonflyGroupsCertainBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 9))
	var graphs []*Graph
	for a := 1; a <= 6; a++ {
		for G := 1; G*a <= 12; G++ {
			for l := 1; l <= 4; l++ {
				if G == 1 && l > 1 {
					continue
				}
				p := 1 + rng.IntN(2)
				spec, err := Dragonfly(p, a, l, G)
				if err != nil {
					t.Fatal(err)
				}
				if ok, why := spec.DragonflyGroupsCertain(); !ok {
					t.Errorf("%s: not certain (%s)", spec.Spec(), why)
				}
				file, _, _ := relabelledEdgeList(spec, rng)
				g, err := ReadGraph(strings.NewReader(file))
				if err != nil {
					t.Fatal(err)
				}
				graphs = append(graphs, g)
			}
		}
	}
	for range 400 {
		nr := 1 + rng.IntN(9)
		var b strings.Builder
		for u := range nr {
			fmt.Fprintf(&b, "%%switch s%d\nh%d s%d\n", u, u, u)
		}
		a := 1 + rng.IntN(nr)
		for nr%a != 0 {
			a--
		}
		perm := rng.Perm(nr)
		for i := range nr {
			for j := i + 1; j < nr; j++ {
				if i/a == j/a || rng.IntN(3) == 0 {
					fmt.Fprintf(&b, "s%d s%d\n", perm[i], perm[j])
				}
			}
		}
		g, err := ReadGraph(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	certain, uncertain := 0, 0
	for i, g := range graphs {
		sh, ok := g.Dragonfly()
		if !ok {
			if c, _ := g.DragonflyGroupsCertain(); c {
				t.Fatalf("graph %d: no dragonfly, yet certain", i)
			}
			continue
		}
		n, nr, a := g.N(), g.Vertices()-g.N(), sh.RoutersPerGroup
		adj := make([][]bool, nr)
		for u := range adj {
			adj[u] = make([]bool, nr)
			for _, w := range g.adj[n+u] {
				if w >= n {
					adj[u][w-n] = true
				}
			}
		}
		mine := make([]int, nr)
		for u := range mine {
			mine[u] = g.DragonflyRouterIndex(n+u) / a
		}
		other := false
		for size := 1; size <= nr && !other; size++ {
			if nr%size != 0 || size == 1 && sh.Groups == 1 {
				continue
			}
			other = eachSplit(adj, size, func(group []int) bool {
				if size != a {
					return true
				}
				to := map[int]int{}
				for u, gp := range group {
					if m, seen := to[gp]; seen && m != mine[u] {
						return true
					}
					to[gp] = mine[u]
				}
				return false
			})
		}
		got, why := g.DragonflyGroupsCertain()
		if got == other {
			t.Fatalf("graph %d (%+v): certain %v (%s), another split by brute force: %v", i, sh, got, why, other)
		}
		if got {
			certain++
			continue
		}
		uncertain++
		// The two switches named share a group of the other split, not of g's, or
		// the other way round.
		m := regexp.MustCompile(`switches (\S+) and ([^\s,]+),? (apart|which)`).FindStringSubmatch(why)
		if m == nil {
			t.Fatalf("graph %d (%+v): reason %q names no switches", i, sh, why)
		}
		x, _ := g.Lookup(m[1])
		y, _ := g.Lookup(m[2])
		if together := g.DragonflyRouterIndex(x)/a == g.DragonflyRouterIndex(y)/a; together != (m[3] == "apart") {
			t.Fatalf("graph %d (%+v): reason %q, yet the groups taken put them together: %v", i, sh, why, together)
		}
	}
	if certain < 20 || uncertain < 20 {
		t.Errorf("%d certain and %d uncertain dragonflies: the trials do not test both sides", certain, uncertain)
	}
	t.Logf("%d graphs: %d dragonflies with certain groups, %d with others", len(graphs), certain, uncertain)
}
