package topo

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSyntheticHosts bounds the hosts of a synthetic machine (a typo such as
// fattree:1000,1000:1000 must not exhaust memory).
const MaxSyntheticHosts = 1 << 20

// ParseMachine parses any machine spec: a grid (ParseSpec), or a synthetic switched
// network built as a Graph whose switches are routing vertices: "fattree:D0,U0:...:DL"
// (FatTree) or "dragonfly:hosts_per_router=P,routers_per_group=A,intergroup_links=L,
// num_groups=G" (Dragonfly).
func ParseMachine(spec string) (Machine, error) {
	s := strings.TrimSpace(spec)
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "fattree":
		g, err := FatTree(rest)
		if err != nil {
			return nil, fmt.Errorf("machine spec %q: %w", spec, err)
		}
		g.spec = s
		return g, nil
	case "dragonfly":
		g, err := dragonflySpec(rest)
		if err != nil {
			return nil, fmt.Errorf("machine spec %q: %w", spec, err)
		}
		g.spec = s
		return g, nil
	}
	return ParseSpec(spec)
}

// FatTree builds the fat tree of SST merlin's fattree "shape" (sst-elements
// merlin/topology, pymerlin-topo-fattree.py): levels separated by ':', level i giving
// "Di,Ui" (links down and up per switch; the top level only Di). There are D0*D1*...*DL
// hosts; level 0 has hosts/D0 switches and level i (routers of level i-1) * U(i-1) / Di.
// A group of level i holds the switches above Di groups of level i-1: down link j of
// every switch of a group goes to sub-group j, whose switch r takes the up links
// r, r+R, r+2R, ... (R switches per sub-group), as merlin wires them.
func FatTree(shape string) (*Graph, error) {
	levels := strings.Split(shape, ":")
	var downs, ups []int
	for i, l := range levels {
		parts := strings.Split(l, ",")
		last := i == len(levels)-1
		if (last && len(parts) != 1) || (!last && len(parts) != 2) {
			return nil, fmt.Errorf("fattree shape %q: level %d must be \"DOWN,UP\" (the top level \"DOWN\")", shape, i)
		}
		for k, p := range parts {
			v, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || v < 1 || v > MaxSyntheticHosts {
				return nil, fmt.Errorf("fattree shape %q: %q is not a positive port count", shape, p)
			}
			if k == 0 {
				downs = append(downs, v)
			} else {
				ups = append(ups, v)
			}
		}
	}
	hosts := 1
	for _, d := range downs {
		hosts *= d
		if hosts > MaxSyntheticHosts {
			return nil, fmt.Errorf("fattree shape %q: more than %d hosts", shape, MaxSyntheticHosts)
		}
	}
	L := len(downs) - 1
	rpl := make([]int, L+1) // routers per level
	gpl := make([]int, L+1) // groups per level
	start := make([]int, L+1)
	rpl[0] = hosts / downs[0]
	for i := 1; i <= L; i++ {
		if rpl[i-1]*ups[i-1]%downs[i] != 0 {
			return nil, fmt.Errorf("fattree shape %q: level %d: %d up links do not divide into switches of %d down links", shape, i, rpl[i-1]*ups[i-1], downs[i])
		}
		rpl[i] = rpl[i-1] * ups[i-1] / downs[i]
		start[i] = start[i-1] + rpl[i-1]
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
			return nil, fmt.Errorf("fattree shape %q: level %d has %d switches for %d groups", shape, i, rpl[i], gpl[i])
		}
	}
	f := NewFabric()
	for h := range hosts {
		f.AddHost("h" + strconv.Itoa(h))
	}
	rname := make([]string, start[L]+rpl[L])
	for lv := 0; lv <= L; lv++ {
		rig := rpl[lv] / gpl[lv]
		for id := start[lv]; id < start[lv]+rpl[lv]; id++ {
			rem := id - start[lv]
			rname[id] = fmt.Sprintf("rtr_l%d_g%d_r%d", lv, rem/rig, rem%rig)
			f.AddSwitch(rname[id])
		}
	}
	var err error
	link := func(a, b string) {
		if err == nil {
			err = f.Link(a, b)
		}
	}
	// build wires group g of level lv to the parent switches of its up links.
	var build func(lv, g int, parents []int)
	build = func(lv, g int, parents []int) {
		rig := rpl[lv] / gpl[lv]
		id := start[lv] + g*rig
		if lv == 0 {
			for i := range downs[0] {
				link("h"+strconv.Itoa(id*downs[0]+i), rname[id])
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
			link(rname[id+i%rig], rname[p])
		}
	}
	build(L, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("fattree shape %q: %w", shape, err)
	}
	return f.Graph()
}

// Dragonfly builds SST merlin's dragonfly (pymerlin-topo-dragonfly.py, global_routes
// "absolute"): numGroups groups of routersPerGroup routers, all-to-all inside a group,
// hostsPerRouter hosts per router, and intergroupLinks links between every pair of
// groups, laid on the routers' global ports in order (router r of a group has global
// ports r*k .. r*k+k-1, k = ceil((groups-1)*links/routers); global port c of group g
// leads to the (c mod (groups-1))-th other group, as link number c div (groups-1)).
// Parallel global links between the same two routers count once.
func Dragonfly(hostsPerRouter, routersPerGroup, intergroupLinks, numGroups int) (*Graph, error) {
	switch {
	case hostsPerRouter < 1 || routersPerGroup < 1 || numGroups < 1 || intergroupLinks < 0:
		return nil, fmt.Errorf("dragonfly: hosts_per_router, routers_per_group and num_groups must be positive, intergroup_links not negative")
	case numGroups > 1 && intergroupLinks < 1:
		return nil, fmt.Errorf("dragonfly: %d groups need intergroup_links >= 1", numGroups)
	case int64(hostsPerRouter)*int64(routersPerGroup)*int64(numGroups) > MaxSyntheticHosts:
		return nil, fmt.Errorf("dragonfly: more than %d hosts", MaxSyntheticHosts)
	case int64(intergroupLinks)*int64(numGroups) > MaxSyntheticHosts:
		return nil, fmt.Errorf("dragonfly: more than %d global links", MaxSyntheticHosts)
	}
	f := NewFabric()
	rtr := func(g, r int) string { return fmt.Sprintf("G%dR%d", g, r) }
	h := 0
	for range numGroups * routersPerGroup * hostsPerRouter {
		f.AddHost("h" + strconv.Itoa(h))
		h++
	}
	for g := range numGroups {
		for r := range routersPerGroup {
			f.AddSwitch(rtr(g, r))
		}
	}
	var err error
	link := func(a, b string) {
		if err == nil {
			err = f.Link(a, b)
		}
	}
	h = 0
	for g := range numGroups {
		for r := range routersPerGroup {
			for range hostsPerRouter {
				link("h"+strconv.Itoa(h), rtr(g, r))
				h++
			}
			for p := r + 1; p < routersPerGroup; p++ {
				link(rtr(g, r), rtr(g, p))
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
						link(rtr(g, r), rtr(other[0], other[1]))
					} else {
						ends[key] = [2]int{g, r}
					}
				}
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("dragonfly: %w", err)
	}
	return f.Graph()
}

func dragonflySpec(rest string) (*Graph, error) {
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
			return nil, fmt.Errorf("unknown parameter %q (want %s)", k, strings.Join(want, ", "))
		}
		if _, dup := vals[k]; dup {
			return nil, fmt.Errorf("%s given twice", k)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s=%s: not a non-negative integer", k, v)
		}
		vals[k] = n
	}
	for _, w := range want {
		if _, ok := vals[w]; !ok {
			return nil, fmt.Errorf("missing %s (want %s)", w, strings.Join(want, ", "))
		}
	}
	return Dragonfly(vals["hosts_per_router"], vals["routers_per_group"], vals["intergroup_links"], vals["num_groups"])
}
