package slurm

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Network formats that carry an ordering through a Slurm topology file rather than a
// ranking; they are written from the machine and an ordering (curve --format).
const (
	// FormatTopology: topology.conf for topology/tree with the leaf switches in the
	// order the ordering first reaches them and each leaf's nodes in ordering order;
	// with TopologyParam=SwitchAsNodeRank (Slurm 23.02 and later) Slurm ranks nodes
	// by leaf switch order.
	FormatTopology curves.Format = "slurm-topology"
	// FormatTorus3D: topology.yaml for topology/torus3d (Slurm 26.05 and later): the
	// torus's dimensions, its nodes in x-fastest coordinate order and the placements
	// (job shapes) Slurm may start.
	FormatTorus3D curves.Format = "slurm-torus3d"
	// FormatBlock: topology.conf for topology/block: BlockName lines cutting the
	// ordering into consecutive blocks, and BlockSizes.
	FormatBlock curves.Format = "slurm-block"
)

// NetworkFormats are the formats above.
var NetworkFormats = []curves.Format{FormatTopology, FormatTorus3D, FormatBlock}

// WriteTopology writes a tree topology.conf of graph g (a switched network) whose
// leaf switches follow ordering o: leaf lines first, in the order o first reaches a
// host of each, nodes in o's order (a hostlist keeping that order), then the upper
// switches (topo.UpperSwitches) with their children one level down. Links between
// switches of one level (a dragonfly's) cannot be said in a tree file; they are
// counted in a comment.
//
// It returns warnings about what Slurm will not obey (measured on Slurm 22.05.8 and
// 26.05.3, read in 26.11's source, docs in package slurm): Slurm keeps no node order
// inside a leaf (it takes a leaf's nodes in its node-index order: natural name order,
// or with SwitchAsNodeRank the order of slurm.conf's NodeName lines, because
// slurmctld sorts its node table by leaf rank with glibc's stable qsort; measured on
// 26.05.3 with the lines reversed), so a leaf whose nodes o visits in another order is
// named; an ordering that interleaves leaves comes out grouped by leaf;
// TopologyParam=SwitchAsNodeRank, which makes the leaf order the node rank, exists
// only from Slurm 23.02 (22.05 accepts and ignores it, and the leaf order then only
// breaks ties between equally good leaves).
func WriteTopology(w io.Writer, g *topo.Graph, o curves.Order) (warnings []string, err error) {
	if err := o.Validate(g.N()); err != nil {
		return nil, err
	}
	if g.Vertices() == g.N() {
		return nil, fmt.Errorf("%s has no switches; a tree topology.conf lists switches (read the network from ibnetdiscover, topology.conf or a %%switch edge list)", g.Spec())
	}
	leaves, hosts := topo.LeafOrder(g, o)
	inTree := 0
	for _, hs := range hosts {
		inTree += len(hs)
	}
	if inTree != g.N() {
		return nil, fmt.Errorf("%d of %d hosts hang on no switch; topology.conf needs every node under a switch", g.N()-inTree, g.N())
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# topology.conf (topology/tree) written by procalloc: leaf switches in ordering order.")
	fmt.Fprintln(bw, "# In slurm.conf: TopologyPlugin=topology/tree and TopologyParam=SwitchAsNodeRank,")
	fmt.Fprintln(bw, "# so that Slurm ranks nodes by the order of the leaf switches below (Slurm 23.02+;")
	fmt.Fprintln(bw, "# inside a leaf in the order of slurm.conf's NodeName lines, not the order written).")
	var reordered []string
	for i, leaf := range leaves {
		names := make([]string, len(hosts[i]))
		for j, v := range hosts[i] {
			names[j] = g.Name(v)
		}
		if !slices.IsSortedFunc(names, hostlist.NaturalCompare) {
			reordered = append(reordered, g.Name(leaf))
		}
		hl, err := hostlist.Compress(names)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(bw, "SwitchName=%s Nodes=%s\n", g.Name(leaf), hl)
	}
	sws, children := topo.UpperSwitches(g)
	for i, s := range sws {
		if len(children[i]) == 0 {
			continue
		}
		names := make([]string, len(children[i]))
		for j, c := range children[i] {
			names[j] = g.Name(c)
		}
		hl, err := hostlist.Compress(names)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(bw, "SwitchName=%s Switches=%s\n", g.Name(s), hl)
	}
	if lost := sameLevelLinks(g); lost > 0 {
		fmt.Fprintf(bw, "# %d links between switches of one level are not expressible in a tree and left out\n", lost)
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if len(reordered) > 0 {
		warnings = append(warnings, fmt.Sprintf("Slurm keeps no node order inside a leaf switch: it takes a leaf's nodes in natural name order, not in the order written (with TopologyParam=SwitchAsNodeRank, Slurm 23.02+, in the order of slurm.conf's NodeName lines: list those in ordering order too); %d leaves (%s) list their nodes in another order", len(reordered), clipList(reordered, 5)))
	}
	if grouped := slices.Concat(hosts...); !slices.Equal(grouped, []int(o)) {
		warnings = append(warnings, "the ordering goes back and forth between leaf switches; a tree topology keeps each leaf's nodes together, so Slurm follows the ordering grouped by leaf")
	}
	warnings = append(warnings, "TopologyParam=SwitchAsNodeRank (node rank = leaf line order, then slurm.conf's NodeName line order inside a leaf) exists from Slurm 23.02; Slurm 22.05 accepts it and ignores it, and there the leaf order only breaks ties between equally good leaves; with node weights as well, the weights win")
	return warnings, nil
}

func sameLevelLinks(g *topo.Graph) int {
	lv := topo.SwitchLevels(g)
	n, count := g.N(), 0
	var nb []int
	for v := n; v < g.Vertices(); v++ {
		for _, w := range g.Neighbors(v, nb[:0]) {
			if w > v && lv[w-n] == lv[v-n] {
				count++
			}
		}
	}
	return count
}

// Box is the shape of a torus3d placement: X x Y x Z nodes.
type Box struct{ X, Y, Z int }

// Size is the number of nodes of b.
func (b Box) Size() int { return b.X * b.Y * b.Z }

func (b Box) String() string { return fmt.Sprintf("%dx%dx%d", b.X, b.Y, b.Z) }

// CompactBox returns the most compact box of k nodes that fits in a torus of dims
// (three sizes): the smallest sum of sides (surface), ties to the box longest in x,
// then y. ok is false when no box of k nodes fits.
func CompactBox(dims [3]int, k int) (b Box, ok bool) {
	best := 0
	for x := 1; x <= dims[0] && x <= k; x++ {
		if k%x != 0 {
			continue
		}
		for y := 1; y <= dims[1] && y <= k/x; y++ {
			if (k/x)%y != 0 {
				continue
			}
			z := k / x / y
			if z > dims[2] {
				continue
			}
			if s := x + y + z; !ok || s < best || s == best && (x > b.X || x == b.X && y > b.Y) {
				b, best, ok = Box{x, y, z}, s, true
			}
		}
	}
	return b, ok
}

// DefaultPlacements returns one placement per job size a torus of dims can hold as a
// box (every size whose CompactBox exists), smallest first: torus3d starts only jobs
// whose size matches a placement, so this lets every size that has a box run.
func DefaultPlacements(dims [3]int) []Box {
	var out []Box
	for k := 1; k <= dims[0]*dims[1]*dims[2]; k++ {
		if b, ok := CompactBox(dims, k); ok {
			out = append(out, b)
		}
	}
	return out
}

// ParsePlacements reads a --placements list: comma-separated job sizes (each becomes
// its CompactBox) or box shapes XxYxZ, for a torus of dims. A size with no box, a
// shape larger than the torus and a size given twice are errors naming the item.
func ParsePlacements(s string, dims [3]int) ([]Box, error) {
	var out []Box
	seen := map[int]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		var b Box
		if strings.Contains(item, "x") {
			var rest string
			n, err := fmt.Sscanf(item, "%dx%dx%d%s", &b.X, &b.Y, &b.Z, &rest)
			if (err != nil && n != 3) || n == 4 || b.X < 1 || b.Y < 1 || b.Z < 1 {
				return nil, fmt.Errorf("placement %q: want a job size or a shape XxYxZ", item)
			}
			if b.X > dims[0] || b.Y > dims[1] || b.Z > dims[2] {
				return nil, fmt.Errorf("placement %s does not fit in the %dx%dx%d torus", b, dims[0], dims[1], dims[2])
			}
		} else {
			var k int
			if _, err := fmt.Sscanf(item, "%d", &k); err != nil || k < 1 || fmt.Sprint(k) != item {
				return nil, fmt.Errorf("placement %q: want a job size or a shape XxYxZ", item)
			}
			var ok bool
			if b, ok = CompactBox(dims, k); !ok {
				return nil, fmt.Errorf("placement %d: no box of %d nodes fits in the %dx%dx%d torus", k, k, dims[0], dims[1], dims[2])
			}
		}
		if prev, dup := seen[b.Size()]; dup {
			return nil, fmt.Errorf("placement %q: size %d already given by %q (Slurm would overlap them)", item, b.Size(), prev)
		}
		seen[b.Size()] = item
		out = append(out, b)
	}
	slices.SortStableFunc(out, func(a, b Box) int { return a.Size() - b.Size() })
	return out, nil
}

// TorusDims returns the three torus3d dimensions of grid g (missing dimensions are
// 1), or an error when g is not a torus of at most three dimensions.
func TorusDims(g *topo.Grid) ([3]int, error) {
	dims := g.Dims()
	if len(dims) > 3 {
		return [3]int{}, fmt.Errorf("torus3d describes at most three dimensions, not %d", len(dims))
	}
	for j, wr := range g.Wrap() {
		if !wr && dims[j] > 2 {
			return [3]int{}, fmt.Errorf("%s is not a torus (dimension %d has no wraparound); torus3d describes tori", g.Spec(), j)
		}
	}
	d := [3]int{1, 1, 1}
	copy(d[:], dims)
	return d, nil
}

// WriteTorus3D writes a topology.yaml with one torus3d topology for a torus of at
// most three dimensions, in the schema of Slurm 26.05's topology.yaml(5):
//
//	torus3d: {toruses: [{name, dims: {x, y, z}, nodes: HOSTLIST, placements: [{dims: {x, y, z}}, ...]}]}
//
// nodes in x-fastest coordinate order (node index order), as Slurm's
// torus3d_record.c maps them; hosts names the nodes (nil: node indices). Slurm starts
// only jobs whose size matches a placement: placements nil means DefaultPlacements.
// The ordering does not enter: torus3d places jobs by coordinates.
func WriteTorus3D(w io.Writer, g *topo.Grid, hosts []string, placements []Box) error {
	d, err := TorusDims(g)
	if err != nil {
		return err
	}
	if hosts != nil && len(hosts) != g.N() {
		return fmt.Errorf("%d host names for %d nodes", len(hosts), g.N())
	}
	if placements == nil {
		placements = DefaultPlacements(d)
	}
	for _, b := range placements {
		if b.X < 1 || b.Y < 1 || b.Z < 1 || b.X > d[0] || b.Y > d[1] || b.Z > d[2] {
			return fmt.Errorf("placement %s does not fit in the %dx%dx%d torus", b, d[0], d[1], d[2])
		}
	}
	names := make([]string, g.N())
	for i := range names {
		names[i] = curves.HostName(hosts, i)
	}
	hl, err := hostlist.Compress(names)
	if err != nil {
		return err
	}
	sizes := make([]string, len(placements))
	for i, b := range placements {
		sizes[i] = fmt.Sprint(b.Size())
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# topology.yaml (topology/torus3d, Slurm 26.05 and later) written by procalloc;")
	fmt.Fprintln(bw, "# nodes in x-fastest order. Slurm starts only jobs of the placement sizes:")
	fmt.Fprintf(bw, "# %s nodes.\n", strings.Join(sizes, ", "))
	fmt.Fprintln(bw, "- topology: torus")
	fmt.Fprintln(bw, "  cluster_default: true")
	fmt.Fprintln(bw, "  torus3d:")
	fmt.Fprintln(bw, "    toruses:")
	fmt.Fprintln(bw, "      - name: torus")
	fmt.Fprintf(bw, "        dims: {x: %d, y: %d, z: %d}\n", d[0], d[1], d[2])
	fmt.Fprintf(bw, "        nodes: %q\n", hl)
	fmt.Fprintln(bw, "        placements:")
	for _, b := range placements {
		fmt.Fprintf(bw, "          - dims: {x: %d, y: %d, z: %d}\n", b.X, b.Y, b.Z)
	}
	return bw.Flush()
}
