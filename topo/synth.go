package topo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// MaxSyntheticHosts bounds the hosts of a synthetic machine (a typo such as
// fattree:1000,1000:1000 must not exhaust memory); users' machines have up to
// 200,000 hosts.
const MaxSyntheticHosts = 1 << 20

// MaxSyntheticLinks bounds the links of a synthetic machine, host links included: a
// link costs about bytesPerLink while the graph is built (a 200,704-host fat tree has
// 602,112 links), so the limit keeps a build under a few hundred MiB.
const MaxSyntheticLinks = 1 << 23

// bytesPerLink and bytesPerVertex estimate the memory of building a synthetic machine
// (measured on fattree:32,32:32,32:196: link keys, adjacency, names, groups).
const (
	bytesPerLink   = 48
	bytesPerVertex = 64
)

// sizeCount multiplies and adds counts without overflowing: a result past limit is
// reported as limit+1 ("more than limit"), and stays there.
type sizeCount struct{ limit uint64 }

func (c sizeCount) mul(a, b uint64) uint64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > c.limit || b > c.limit || a > c.limit/b {
		return c.limit + 1
	}
	return a * b
}

func (c sizeCount) add(a, b uint64) uint64 {
	if a > c.limit || b > c.limit || a+b > c.limit {
		return c.limit + 1
	}
	return a + b
}

// countString prints a count from sizeCount, "more than LIMIT" past the limit.
func countString(n, limit uint64) string {
	if n > limit {
		return fmt.Sprintf("more than %d", limit)
	}
	return strconv.FormatUint(n, 10)
}

// checkSize refuses a synthetic machine of too many hosts, vertices or links before
// anything is allocated, naming the counts, the limits and the memory it would take.
func checkSize(hosts, switches, links uint64) error {
	c := sizeCount{limit: MaxSyntheticLinks}
	vertices := c.add(hosts, switches)
	if hosts <= MaxSyntheticHosts && vertices <= MaxSyntheticHosts+maxSyntheticSwitches && links <= MaxSyntheticLinks {
		return nil
	}
	mem := fmt.Sprintf("about %d MiB", (links*bytesPerLink+vertices*bytesPerVertex)>>20)
	if links > c.limit || vertices > c.limit {
		mem = fmt.Sprintf("more than %d MiB", (min(links, c.limit)*bytesPerLink+min(vertices, c.limit)*bytesPerVertex)>>20)
	}
	return fmt.Errorf("%s hosts, %s switches and %s links (%s to build) exceed the limits of a synthetic machine: %d hosts, %d switches, %d links",
		countString(hosts, c.limit), countString(switches, c.limit), countString(links, c.limit), mem,
		MaxSyntheticHosts, maxSyntheticSwitches, MaxSyntheticLinks)
}

// maxSyntheticSwitches bounds the switches of a synthetic machine.
const maxSyntheticSwitches = 1 << 20

// ParseMachine parses any machine spec: a grid (ParseSpec), or a synthetic switched
// network built as a Graph whose switches are routing vertices: "fattree:D0,U0:...:DL"
// (FatTree) or "dragonfly:hosts_per_router=P,routers_per_group=A,intergroup_links=L,
// num_groups=G" (Dragonfly).
func ParseMachine(spec string) (Machine, error) {
	return ParseMachineMax(spec, math.MaxInt)
}

// TooLargeError is a machine spec of more nodes than its caller takes
// (ParseMachineMax).
type TooLargeError struct {
	Spec  string // the machine spec as given
	Nodes uint64 // the spec's nodes (hosts)
	Max   int    // the most nodes the caller takes
}

// Error names the spec, its node count and Max.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("machine spec %q has %d nodes; at most %d here", textin.Clip(e.Spec), e.Nodes, e.Max)
}

// CheckMachineSpec checks a machine spec as ParseMachine reads it (kind, sizes,
// options, the synthetic limits) without building the machine: a sweep checks
// its machines before its first item runs.
func CheckMachineSpec(spec string) error {
	_, err := ParseMachineMax(spec, 0) // every machine is too large: found before building
	if tl := (*TooLargeError)(nil); errors.As(err, &tl) {
		return nil
	}
	return err
}

// ParseMachineMax is ParseMachine for a caller that takes at most maxNodes nodes
// (hosts, for a switched network): a larger machine is a *TooLargeError, said
// before anything is built (one beyond the synthetic limits is their error). A grid is built lazily anyway; a fat tree of a million
// hosts took 326 MB and a second to build before netsim (65,536 nodes) refused it.
func ParseMachineMax(spec string, maxNodes int) (Machine, error) {
	return ParseMachineContext(context.Background(), spec, maxNodes)
}

// ParseMachineContext is ParseMachineMax building a fat tree or a dragonfly under
// ctx (0.1-0.3 s at 10^5 hosts): it looks at ctx every few thousand hosts, links
// or switches and returns ctx's cause, unwrapped, when ctx ends first. Grids are
// built lazily and look at nothing.
func ParseMachineContext(ctx context.Context, spec string, maxNodes int) (Machine, error) {
	s := strings.TrimSpace(spec)
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "fattree":
		g, err := fatTree(ctx, rest, maxNodes)
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, synthSpecError(spec, err)
		}
		g.spec = s
		return g, nil
	case "dragonfly":
		g, err := dragonflySpec(ctx, rest, maxNodes)
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, synthSpecError(spec, err)
		}
		g.spec = s
		return g, nil
	}
	if _, _, colon := strings.Cut(s, ":"); colon && kind != "mesh" && kind != "torus" {
		// ParseSpec knows the grids only; this parser knows more kinds.
		return nil, fmt.Errorf("machine spec %q: unknown kind %q (want mesh, torus, fattree or dragonfly)%s", textin.Clip(spec), textin.Clip(kind), textin.DidYouMean(kind, []string{"mesh", "torus", "fattree", "dragonfly"}))
	}
	g, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if g.N() > maxNodes {
		return nil, &TooLargeError{Spec: spec, Nodes: uint64(g.N()), Max: maxNodes}
	}
	return g, nil
}

// synthSpecError is a synthetic machine's construction error as ParseMachineMax
// returns it: a *TooLargeError naming the whole spec, any other error prefixed by it.
func synthSpecError(spec string, err error) error {
	var tl *TooLargeError
	if errors.As(err, &tl) {
		tl.Spec = spec
		return tl
	}
	return fmt.Errorf("machine spec %q: %w", textin.Clip(spec), err)
}

// FatTree builds the fat tree of SST merlin's fattree "shape" (sst-elements
// merlin/topology, pymerlin-topo-fattree.py): levels separated by ':', level i giving
// "Di,Ui" (links down and up per switch; the top level only Di). There are D0*D1*...*DL
// hosts; level 0 has hosts/D0 switches and level i (routers of level i-1) * U(i-1) / Di.
// A group of level i holds the switches above Di groups of level i-1: down link j of
// every switch of a group goes to sub-group j, whose switch r takes the up links
// r, r+R, r+2R, ... (R switches per sub-group), as merlin wires them.
func FatTree(shape string) (*Graph, error) {
	return fatTree(context.Background(), shape, math.MaxInt)
}

// fatTree is FatTree refusing more than maxHosts hosts with a *TooLargeError
// (without its Spec) before anything is allocated, and looking at ctx while it
// builds (its cause returned).
func fatTree(ctx context.Context, shape string, maxHosts int) (*Graph, error) {
	levels := strings.Split(shape, ":")
	var downs, ups []int
	for i, l := range levels {
		parts := strings.Split(l, ",")
		last := i == len(levels)-1
		if (last && len(parts) != 1) || (!last && len(parts) != 2) {
			return nil, fmt.Errorf("fattree shape %q: level %d must be \"DOWN,UP\" (the top level \"DOWN\")", textin.Clip(shape), i)
		}
		for k, p := range parts {
			v, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || v < 1 || v > MaxSyntheticHosts {
				return nil, fmt.Errorf("fattree shape %q: %q is not a positive port count", textin.Clip(shape), textin.Clip(p))
			}
			if k == 0 {
				downs = append(downs, v)
			} else {
				ups = append(ups, v)
			}
		}
	}
	// Count hosts, switches and links before allocating anything.
	c := sizeCount{limit: MaxSyntheticLinks}
	L := len(downs) - 1
	hosts64 := uint64(1)
	for _, d := range downs {
		hosts64 = c.mul(hosts64, uint64(d))
	}
	if hosts64 > MaxSyntheticHosts {
		// Count the switches and links too, so that the message names them all
		// (it said "0 switches").
		sw := hosts64 / uint64(downs[0])
		if hosts64 > c.limit {
			sw = c.limit + 1
		}
		switches, links, r := sw, hosts64, sw
		for i := 1; i <= L; i++ {
			up := c.mul(r, uint64(ups[i-1]))
			links = c.add(links, up)
			if r = up / uint64(downs[i]); up > c.limit {
				r = c.limit + 1
			}
			switches = c.add(switches, r)
		}
		return nil, fmt.Errorf("fattree shape %q: %w", textin.Clip(shape), checkSize(hosts64, switches, links))
	}
	hosts := int(hosts64)
	rpl := make([]int, L+1) // routers per level
	gpl := make([]int, L+1) // groups per level
	start := make([]int, L+1)
	rpl[0] = hosts / downs[0]
	switches, links := uint64(rpl[0]), hosts64
	for i := 1; i <= L; i++ {
		up := c.mul(uint64(rpl[i-1]), uint64(ups[i-1]))
		links = c.add(links, up)
		if up > MaxSyntheticLinks {
			return nil, fmt.Errorf("fattree shape %q: %w", textin.Clip(shape), checkSize(hosts64, switches, links))
		}
		if up%uint64(downs[i]) != 0 {
			return nil, fmt.Errorf("fattree shape %q: level %d: %d up links do not divide into switches of %d down links", textin.Clip(shape), i, up, downs[i])
		}
		rpl[i] = int(up) / downs[i]
		switches = c.add(switches, uint64(rpl[i]))
		start[i] = start[i-1] + rpl[i-1]
	}
	if err := checkSize(hosts64, switches, links); err != nil {
		return nil, fmt.Errorf("fattree shape %q: %w", textin.Clip(shape), err)
	}
	for i := range gpl {
		gpl[i] = 1
	}
	if L > 0 {
		gpl[0] = hosts / downs[0]
		for i := 1; i < L; i++ {
			gpl[i] = gpl[i-1] / downs[i]
		}
	}
	for i := 0; i <= L; i++ {
		if gpl[i] == 0 || rpl[i]%gpl[i] != 0 || rpl[i] < gpl[i] {
			return nil, fmt.Errorf("fattree shape %q: level %d has %d switches for %d groups", textin.Clip(shape), i, rpl[i], gpl[i])
		}
	}
	if hosts64 > uint64(maxHosts) { // within the synthetic limits, checked above
		return nil, &TooLargeError{Nodes: hosts64, Max: maxHosts}
	}
	nsw := start[L] + rpl[L]
	names, err := hostNames(ctx, hosts, hosts+nsw)
	if err != nil {
		return nil, err
	}
	for lv := 0; lv <= L; lv++ {
		rig := rpl[lv] / gpl[lv]
		for id := start[lv]; id < start[lv]+rpl[lv]; id++ {
			rem := id - start[lv]
			names = append(names, "rtr_l"+strconv.Itoa(lv)+"_g"+strconv.Itoa(rem/rig)+"_r"+strconv.Itoa(rem%rig))
		}
	}
	keys := make([]uint64, 0, links)
	// build wires group g of level lv to the parent switches of its up links
	// (switch id is vertex hosts+id); it stops when ctx ends (err).
	var build func(lv, g int, parents []int)
	build = func(lv, g int, parents []int) {
		if err != nil {
			return
		}
		rig := rpl[lv] / gpl[lv]
		id := start[lv] + g*rig
		if lv == 0 {
			if err = stopped(ctx, id+1); err != nil { // every ctxEvery leaf switches
				return
			}
			for i := range downs[0] {
				keys = append(keys, linkKey(id*downs[0]+i, hosts+id))
			}
		} else {
			mine := make([]int, rig)
			for i := range mine {
				mine[i] = id + i
			}
			for j := range downs[lv] {
				build(lv-1, g*downs[lv]+j, mine)
			}
		}
		for i, p := range parents {
			keys = append(keys, linkKey(hosts+id+i%rig, hosts+p))
		}
	}
	build(L, 0, nil)
	if err != nil {
		return nil, err
	}
	g, err := switchedGraph(ctx, names, hosts, keys)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("fattree shape %q: %w", textin.Clip(shape), err)
	}
	span := make([]int, L+1)
	for l := range span {
		span[l] = hosts / gpl[l]
	}
	g.layout = &synthLayout{span: span}
	return g, nil
}

// hostNames returns the names h0..h(hosts-1), with room for capacity names, or
// ctx's cause when it ends first.
func hostNames(ctx context.Context, hosts, capacity int) ([]string, error) {
	names := make([]string, hosts, capacity)
	for h := range names {
		if err := stopped(ctx, h); err != nil {
			return nil, err
		}
		names[h] = "h" + strconv.Itoa(h)
	}
	return names, nil
}

// Dragonfly builds SST merlin's dragonfly (pymerlin-topo-dragonfly.py, global_routes
// "absolute"): numGroups groups of routersPerGroup routers, all-to-all inside a group,
// hostsPerRouter hosts per router, and intergroupLinks links between every pair of
// groups, laid on the routers' global ports in order (router r of a group has global
// ports r*k .. r*k+k-1, k = ceil((groups-1)*links/routers); global port c of group g
// leads to the (c mod (groups-1))-th other group, as link number c div (groups-1)).
// Parallel global links between the same two routers count once.
func Dragonfly(hostsPerRouter, routersPerGroup, intergroupLinks, numGroups int) (*Graph, error) {
	return dragonfly(context.Background(), hostsPerRouter, routersPerGroup, intergroupLinks, numGroups, math.MaxInt)
}

// dragonfly is Dragonfly refusing more than maxHosts hosts with a *TooLargeError
// (without its Spec) before anything is allocated, and looking at ctx while it
// builds (its cause returned).
func dragonfly(ctx context.Context, hostsPerRouter, routersPerGroup, intergroupLinks, numGroups, maxHosts int) (*Graph, error) {
	switch {
	case hostsPerRouter < 1 || routersPerGroup < 1 || numGroups < 1 || intergroupLinks < 0:
		return nil, fmt.Errorf("dragonfly: hosts_per_router, routers_per_group and num_groups must be positive, intergroup_links not negative")
	case numGroups > 1 && intergroupLinks < 1:
		return nil, fmt.Errorf("dragonfly: %d groups need intergroup_links >= 1", numGroups)
	}
	// Count before allocating: hosts, routers, and links to hosts, inside groups and
	// between groups (at most intergroup_links per pair of groups).
	c := sizeCount{limit: MaxSyntheticLinks}
	p, a, l, G := uint64(hostsPerRouter), uint64(routersPerGroup), uint64(intergroupLinks), uint64(numGroups)
	routers := c.mul(a, G)
	hosts64 := c.mul(p, routers)
	local := c.mul(G, c.mul(a, a-1)/2)
	if c.mul(a, a-1) > c.limit {
		local = c.limit + 1
	}
	global := c.mul(l, c.mul(G, G-1)/2)
	if c.mul(G, G-1) > c.limit {
		global = c.limit + 1
	}
	links := c.add(hosts64, c.add(local, global))
	if err := checkSize(hosts64, routers, links); err != nil {
		return nil, fmt.Errorf("dragonfly: %w", err)
	}
	if hosts64 > uint64(maxHosts) { // within the synthetic limits, checked above
		return nil, &TooLargeError{Nodes: hosts64, Max: maxHosts}
	}
	hosts := int(hosts64)
	names, err := hostNames(ctx, hosts, hosts+int(routers))
	if err != nil {
		return nil, err
	}
	for g := range numGroups {
		for r := range routersPerGroup {
			names = append(names, "G"+strconv.Itoa(g)+"R"+strconv.Itoa(r))
		}
	}
	rtr := func(g, r int) int { return hosts + g*routersPerGroup + r }
	keys := make([]uint64, 0, links)
	h := 0
	for g := range numGroups {
		for r := range routersPerGroup {
			if err := stopped(ctx, g*routersPerGroup+r+1); err != nil { // every ctxEvery routers
				return nil, err
			}
			for range hostsPerRouter {
				keys = append(keys, linkKey(h, rtr(g, r)))
				h++
			}
			for q := r + 1; q < routersPerGroup; q++ {
				keys = append(keys, linkKey(rtr(g, r), rtr(g, q)))
			}
		}
	}
	ng := numGroups - 1
	if ng > 0 {
		total := ng * intergroupLinks
		igpr := (total + routersPerGroup - 1) / routersPerGroup
		empty := igpr*routersPerGroup - total
		// Global link (lo group, hi group, number) -> its first end, joined at the second.
		ends := map[[3]int][2]int{}
		for g := range numGroups {
			count := 0
			if err := stopped(ctx, g+1); err != nil {
				return nil, err
			}
			for r := range routersPerGroup {
				end := igpr
				if r >= routersPerGroup-empty {
					end--
				}
				for range end {
					num, dest := count/ng, count%ng
					count++
					if dest >= g {
						dest++
					}
					key := [3]int{min(g, dest), max(g, dest), num}
					if other, ok := ends[key]; ok {
						keys = append(keys, linkKey(rtr(g, r), rtr(other[0], other[1])))
						delete(ends, key)
					} else {
						ends[key] = [2]int{g, r}
					}
				}
			}
		}
	}
	g, err := switchedGraph(ctx, names, hosts, keys)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("dragonfly: %w", err)
	}
	g.layout = &synthLayout{p: hostsPerRouter, a: routersPerGroup, groups: numGroups}
	return g, nil
}

func dragonflySpec(ctx context.Context, rest string, maxHosts int) (*Graph, error) {
	want := []string{"hosts_per_router", "routers_per_group", "intergroup_links", "num_groups"}
	vals := map[string]int{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("want KEY=VALUE pairs %s", strings.Join(want, ", "))
		}
		known := false
		for _, w := range want {
			known = known || w == k
		}
		if !known {
			return nil, fmt.Errorf("unknown parameter %q (want %s)", textin.Clip(k), strings.Join(want, ", "))
		}
		if _, dup := vals[k]; dup {
			return nil, fmt.Errorf("%s given twice", textin.Clip(k))
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s=%s: not a non-negative integer", textin.Clip(k), v)
		}
		vals[k] = n
	}
	for _, w := range want {
		if _, ok := vals[w]; !ok {
			return nil, fmt.Errorf("missing %s (want %s)", w, strings.Join(want, ", "))
		}
	}
	return dragonfly(ctx, vals["hosts_per_router"], vals["routers_per_group"], vals["intergroup_links"], vals["num_groups"], maxHosts)
}
