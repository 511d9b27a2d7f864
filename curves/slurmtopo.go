package curves

import (
	"bufio"
	"fmt"
	"io"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Network formats that carry an ordering through a Slurm topology file rather than a
// ranking; they are written from the machine and an ordering (curve --format).
const (
	// FormatSlurmTopology: topology.conf for topology/tree with the leaf switches in the
	// order the ordering first reaches them and each leaf's nodes in ordering order;
	// with TopologyParam=SwitchAsNodeRank Slurm ranks nodes by leaf switch order.
	FormatSlurmTopology Format = "slurm-topology"
	// FormatSlurmTorus3D: topology.yaml for topology/torus3d: the torus's dimensions and
	// its nodes in x-fastest coordinate order.
	FormatSlurmTorus3D Format = "slurm-torus3d"
)

// NetworkFormats are the formats above.
var NetworkFormats = []Format{FormatSlurmTopology, FormatSlurmTorus3D}

// WriteSlurmTopology writes a tree topology.conf of graph g (a switched network)
// whose leaf switches follow ordering o: leaf lines first, in the order o first
// reaches a host of each, nodes in o's order (a hostlist keeping that order), then the
// upper switches (topo.UpperSwitches) with their children one level down. Links
// between switches of one level (a dragonfly's) cannot be said in a tree file; they
// are counted in a comment. Slurm ranks nodes leaf by leaf, so an ordering that
// interleaves leaves (Slurm's own name order on round-robin cabling) comes out
// grouped by leaf.
func WriteSlurmTopology(w io.Writer, g *topo.Graph, o Order) error {
	if err := o.Validate(g.N()); err != nil {
		return err
	}
	if g.Vertices() == g.N() {
		return fmt.Errorf("%s has no switches; a tree topology.conf lists switches (read the network from ibnetdiscover, topology.conf or a %%switch edge list)", g.Spec())
	}
	leaves, hosts := topo.LeafOrder(g, o)
	inTree := 0
	for _, hs := range hosts {
		inTree += len(hs)
	}
	if inTree != g.N() {
		return fmt.Errorf("%d of %d hosts hang on no switch; topology.conf needs every node under a switch", g.N()-inTree, g.N())
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# topology.conf (topology/tree) written by procalloc: leaf switches in ordering order.")
	fmt.Fprintln(bw, "# In slurm.conf: TopologyPlugin=topology/tree and TopologyParam=SwitchAsNodeRank,")
	fmt.Fprintln(bw, "# so that Slurm ranks nodes by the order of the leaf switches below.")
	for i, leaf := range leaves {
		names := make([]string, len(hosts[i]))
		for j, v := range hosts[i] {
			names[j] = g.Name(v)
		}
		hl, err := hostlist.Compress(names)
		if err != nil {
			return err
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
			return err
		}
		fmt.Fprintf(bw, "SwitchName=%s Switches=%s\n", g.Name(s), hl)
	}
	if lost := sameLevelLinks(g); lost > 0 {
		fmt.Fprintf(bw, "# %d links between switches of one level are not expressible in a tree and left out\n", lost)
	}
	return bw.Flush()
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

// WriteSlurmTorus3D writes a topology.yaml with one torus3d topology for a torus of at
// most three dimensions (missing dimensions are 1): dims and the node names in
// x-fastest coordinate order (node index order), as Slurm's torus3d plugin maps them.
// hosts names the nodes (nil: node indices). The ordering does not enter: torus3d
// places jobs by coordinates.
func WriteSlurmTorus3D(w io.Writer, g *topo.Grid, hosts []string) error {
	dims := g.Dims()
	if len(dims) > 3 {
		return fmt.Errorf("torus3d describes at most three dimensions, not %d", len(dims))
	}
	for j, wr := range g.Wrap() {
		if !wr && dims[j] > 2 {
			return fmt.Errorf("%s is not a torus (dimension %d has no wraparound); torus3d describes tori", g.Spec(), j)
		}
	}
	if hosts != nil && len(hosts) != g.N() {
		return fmt.Errorf("%d host names for %d nodes", len(hosts), g.N())
	}
	d := [3]int{1, 1, 1}
	copy(d[:], dims)
	names := make([]string, g.N())
	for i := range names {
		names[i] = hostName(hosts, i)
	}
	hl, err := hostlist.Compress(names)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# topology.yaml (topology/torus3d) written by procalloc; nodes in x-fastest order.")
	fmt.Fprintln(bw, "- topology: torus")
	fmt.Fprintln(bw, "  cluster_default: true")
	fmt.Fprintln(bw, "  torus3d:")
	fmt.Fprintln(bw, "    name: torus")
	fmt.Fprintf(bw, "    dims: {x: %d, y: %d, z: %d}\n", d[0], d[1], d[2])
	fmt.Fprintf(bw, "    nodes: %q\n", hl)
	return bw.Flush()
}
