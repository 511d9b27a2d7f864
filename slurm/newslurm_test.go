package slurm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// The tests in this file load the writers into a Slurm built from source
// (scripts/slurm-build.sh, Slurm 26.05.3 when written): topology/torus3d and
// topology.yaml need Slurm 26.05, topology/block 23.11, neither of which Debian 12
// ships. They start a 16-node cluster with scripts/slurm-cluster.sh on free ports
// (cluster.start), the build's bin and sbin first on PATH (what the script's --prefix
// does).

// newSlurmCluster returns a cluster of the Slurm in PROCALLOC_SLURM_NEW (default
// /opt/slurm-new), or skips saying why: -short, no such build, not root, no munged.
func newSlurmCluster(t *testing.T, name string) *cluster {
	slurmtest.NeedDaemons(t, "munged")
	prefix, _ := slurmtest.NewSlurm(t)
	script := slurmtest.Script(t)
	dir := filepath.Join(t.TempDir(), name)
	// exec.Command looks commands up in this process's PATH: the prefix's clients
	// first (Debian's 22.05 clients cannot talk to a 26.05 slurmctld).
	t.Setenv("PATH", filepath.Join(prefix, "bin")+":"+filepath.Join(prefix, "sbin")+":"+os.Getenv("PATH"))
	t.Setenv("PROCALLOC_SLURM_NEW", prefix)
	env := append(os.Environ(), "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))
	return &cluster{t: t, script: script, dir: dir, env: env}
}

// torusPredict is Slurm 26.05's torus3d choice (eval_nodes_torus3d.c) for a k-node
// job on one torus of equal node weights: among the anchors of the placement of size
// k whose nodes are all free, the one that overlaps the fewest entirely free anchors of
// the next larger placement (its "fragmentation cost"), ties to the earlier anchor.
// nil when no anchor is free.
func torusPredict(d [3]int, placements []Box, free []bool, k int) []int {
	return torusPredictHoles(d, placements, free, nil, k)
}

// torusPredictHoles is torusPredict on a torus whose positions hole (nil: none)
// hold no node (regions leaving them uncovered), as eval_nodes_torus3d.c reads
// them: an anchor of the job's placement holding one is skipped ("Skip anchors
// where not all cells are occupied by valid nodes"), an anchor of the next
// placement counts as entirely free when the nodes it has are (bit_super_set of
// its bitmap, which holds only its real nodes).
func torusPredictHoles(d [3]int, placements []Box, free, hole []bool, k int) []int {
	var cur, next []int
	var anchors, nextAnchors [][]int
	for i, b := range placements {
		if b.Size() == k && cur == nil {
			cur = []int{i}
			anchors = b.Anchors(d)
		}
		if b.Size() > k {
			next = []int{i}
			nextAnchors = b.Anchors(d)
			break
		}
	}
	allFree := func(a []int, holesFree bool) bool {
		for _, v := range a {
			if hole != nil && hole[v] {
				if !holesFree {
					return false
				}
				continue
			}
			if !free[v] {
				return false
			}
		}
		return true
	}
	var best []int
	bestCost := -1
	for _, a := range anchors {
		if !allFree(a, false) {
			continue
		}
		cost := 0
		if next != nil {
			for _, na := range nextAnchors {
				if allFree(na, true) && slices.ContainsFunc(na, func(v int) bool { return slices.Contains(a, v) }) {
					cost++
				}
			}
		}
		if best == nil || cost < bestCost {
			best, bestCost = a, cost
		}
	}
	return best
}

// The must-show: procalloc's slurm-torus3d file (torus:4x2x2, the default
// placements) loads in Slurm 26.05 as topology.yaml, and every job of a placement
// size starts on one placement box: exactly the box Slurm's torus3d selection
// (torusPredict, read in its source) picks, through a sequence with frees. A job of a
// size with no placement does not start.
func TestTorus3DOnSlurmNew(t *testing.T) {
	c := newSlurmCluster(t, "torus3d")
	g, err := topo.ParseSpec("torus:4x2x2")
	if err != nil {
		t.Fatal(err)
	}
	hosts := slurmtest.NodeNames(16)
	var buf bytes.Buffer
	if err := WriteTorus3D(&buf, g, hosts, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "toruses:") || !strings.Contains(buf.String(), "placements:") {
		t.Fatalf("no toruses/placements in\n%s", buf.String())
	}
	yamlPath := filepath.Join(t.TempDir(), "topology.yaml")
	if err := os.WriteFile(yamlPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c.start(16, withPorts(16, "--topology", yamlPath))
	d, _ := TorusDims(g)
	placements := DefaultPlacements(d)

	free := slices.Repeat([]bool{true}, 16)
	ids := map[int]string{}
	var log []string
	for step, k := range []int{8, -0, 4, 1, 2, -2, 3, 2, -4, 4, 1} {
		if k <= 0 {
			id := ids[-k]
			nl := c.run("squeue", "-h", "-j", id, "-o", "%N")
			names, _ := hostlist.Expand(nl)
			c.cancel(id)
			for _, h := range names {
				free[slices.Index(hosts, h)] = true
			}
			log = append(log, fmt.Sprintf("free %s", nl))
			continue
		}
		want := torusPredict(d, placements, free, k)
		if want == nil {
			// Slurm would keep the job pending: not submitted.
			log = append(log, fmt.Sprintf("%d: no free box", k))
			continue
		}
		id, got := c.allocNow(k)
		ids[step] = id
		wantNames := make([]string, len(want))
		for i, v := range want {
			wantNames[i] = hosts[v]
		}
		slices.SortFunc(wantNames, hostlist.NaturalCompare)
		if !slices.Equal(got, wantNames) {
			t.Fatalf("step %d: %d nodes: Slurm gave %v, torus3d's rule predicts %v", step, k, got, wantNames)
		}
		for _, h := range got {
			free[slices.Index(hosts, h)] = false
		}
		nl, _ := hostlist.Compress(got)
		log = append(log, fmt.Sprintf("%d: %s", k, nl))
	}
	// No placement of 5 nodes: Slurm does not start such a job.
	cmd := exec.Command("salloc", "--no-shell", "-N", "5", "-t", "5", "--immediate=3")
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a 5-node job started on torus3d without a placement of 5:\n%s", out)
	}
	t.Logf("Slurm %s loaded topology.yaml (torus3d); placements %s; a 5-node job: %s",
		c.run("sinfo", "-V"), strings.Join(log, ", "), strings.TrimSpace(string(out)))
}

// The slurm-block writer (blocks of 4 along a Hilbert ordering of a 4x4 mesh) loads
// with topology/block: scontrol show topology lists the blocks in the written order,
// and every job lies inside the smallest aggregation of blocks that can hold it (one
// base block up to 4 nodes, an aligned pair b1+b2 or b3+b4 up to 8).
func TestBlockOnSlurmNew(t *testing.T) {
	c := newSlurmCluster(t, "block")
	m, _ := topo.ParseSpec("mesh:4x4")
	o, err := curves.Generate("hilbert", m)
	if err != nil {
		t.Fatal(err)
	}
	hosts := slurmtest.NodeNames(16)
	var buf bytes.Buffer
	if err := WriteBlock(&buf, o, hosts, 4); err != nil {
		t.Fatal(err)
	}
	confPath := filepath.Join(t.TempDir(), "topology.conf")
	if err := os.WriteFile(confPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c.start(16, withPorts(16, "--topology", confPath))
	shown := c.run("scontrol", "show", "topology")
	var order []string
	for _, l := range strings.Split(shown, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "BlockName=") {
			order = append(order, strings.TrimPrefix(f[0], "BlockName="))
		}
	}
	if !slices.Equal(order[:min(4, len(order))], []string{"b1", "b2", "b3", "b4"}) {
		t.Fatalf("scontrol show topology: blocks %v, written b1..b4\n%s", order, shown)
	}
	// block[b] = the 4 hosts of block b (ranks 4b..4b+3 of the ordering).
	blockOf := map[string]int{}
	for r, v := range o {
		blockOf[hosts[v]] = r / 4
	}
	var log []string
	for _, k := range []int{2, 2, 8, 3, 1} {
		_, got := c.allocNow(k)
		level := 1 // blocks per aggregation: the smallest power of two holding k
		for level*4 < k {
			level *= 2
		}
		agg := blockOf[got[0]] / level
		for _, h := range got {
			if blockOf[h]/level != agg {
				t.Fatalf("%d nodes: %v spans aggregations of %d blocks (blocks %v)", k, got, level, blocksOf(got, blockOf))
			}
		}
		nl, _ := hostlist.Compress(got)
		log = append(log, fmt.Sprintf("%d: %s (blocks %v)", k, nl, blocksOf(got, blockOf)))
	}
	t.Logf("Slurm %s loaded topology/block; %s", c.run("sinfo", "-V"), strings.Join(log, ", "))
}

// allocNow is alloc for a job that must start at once (salloc --immediate): a test
// whose prediction is wrong fails instead of waiting for ever.
func (c *cluster) allocNow(k int) (string, []string) {
	c.t.Helper()
	cmd := exec.Command("salloc", "--no-shell", "--immediate=10", "-N", strconv.Itoa(k), "-t", "5")
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	m := regexp.MustCompile(`Granted job allocation (\d+)`).FindSubmatch(out)
	if err != nil || m == nil {
		c.t.Fatalf("salloc -N %d did not start at once: %v\n%s\n%s", k, err, out, c.run("squeue"))
	}
	nl := c.run("squeue", "-h", "-j", string(m[1]), "-o", "%N")
	nodes, err := hostlist.Expand(nl)
	if err != nil {
		c.t.Fatalf("squeue -o %%N: %q: %v", nl, err)
	}
	return string(m[1]), nodes
}

func blocksOf(names []string, blockOf map[string]int) []string {
	var out []string
	for _, h := range names {
		b := fmt.Sprintf("b%d", blockOf[h]+1)
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// slurm-topology with TopologyParam=SwitchAsNodeRank on Slurm 26.05: the node table
// (scontrol show node) follows the leaf lines, and inside a leaf the order of
// slurm.conf's NodeName lines, not the leaf's Nodes= order (what WriteTopology's
// warning says). With the NodeName lines in the written order, Slurm's node order is
// the ordering grouped by leaf, and 1-node jobs take the written order's first nodes.
func TestSwitchAsNodeRankOnSlurmNew(t *testing.T) {
	c := newSlurmCluster(t, "rank")
	g := sampleTreeGraph(t)
	o, topoPath, extra := rcmTopologyFiles(t, g)
	_, hosts := topo.LeafOrder(g, o)
	var written []string // the hosts as the leaf lines list them
	for _, hs := range hosts {
		for _, v := range hs {
			written = append(written, g.Name(v))
		}
	}
	c.start(16, func(base int) []string {
		conf := c.script1("conf", "--nodes", "16", "--dir", c.dir, "--port-base", strconv.Itoa(base),
			"--topology", topoPath, "--conf-extra", extra)
		data, err := os.ReadFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		// The NodeName lines in the written order, the other lines kept.
		lines := map[string]string{}
		var b strings.Builder
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if strings.HasPrefix(l, "NodeName=") {
				lines[strings.Fields(strings.TrimPrefix(l, "NodeName="))[0]] = l
			} else if !strings.HasPrefix(l, "PartitionName=") {
				b.WriteString(l)
			}
		}
		for _, h := range written {
			b.WriteString(lines[h])
		}
		b.WriteString("PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n")
		if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"--conf", conf}
	})
	var table []string
	for _, l := range strings.Split(c.run("scontrol", "-o", "show", "node"), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			table = append(table, strings.TrimPrefix(f[0], "NodeName="))
		}
	}
	if !slices.Equal(table, written) {
		t.Fatalf("scontrol show node order %v, leaf lines and NodeName lines both %v", table, written)
	}
	var got []string
	for range 2 {
		_, nodes := c.allocNow(1)
		got = append(got, nodes...)
	}
	if !slices.Equal(got, written[:2]) {
		t.Fatalf("two 1-node jobs got %v, want the written order's first two %v", got, written[:2])
	}
	t.Logf("SwitchAsNodeRank: node table %v; two 1-node jobs got %v", table, got)
}

// TestTorus3DRegionsOnSlurmNew: a torus given by regions (topology.yaml(5),
// "regions" in place of nodes; torus3d_record.c, _validate_regions_config) loads in
// Slurm 26.05 and places its nodes where ParseTopologyYAML puts them: the 4x2x2
// torus as three regions (the z = 1 plane whole, the z = 0 plane in two halves),
// their nodes out of name order, the default placements; a seeded sequence of
// jobs and frees, each job's nodes the box torus3d's rule (torusPredict) picks on
// the positions, named by the parsed position map.
func TestTorus3DRegionsOnSlurmNew(t *testing.T) {
	c := newSlurmCluster(t, "regions")
	d := [3]int{4, 2, 2}
	yamlPath, top, placements := regionsTorus(t, d,
		"{anchor: {x: 0, y: 0, z: 1}, dims: {x: 4, y: 2, z: 1}, nodes: \"node[16,03,11,07,01,14,05,09]\"}",
		"{anchor: {x: 0, y: 0, z: 0}, dims: {x: 2, y: 2, z: 1}, nodes: \"node[12,02,15,06]\"}",
		"{anchor: {x: 2, y: 0, z: 0}, dims: {x: 2, y: 2, z: 1}, nodes: \"node[04,13,08,10]\"}")
	at := top.Torus.Nodes // the name at each position, x fastest
	if top.Torus.Empty != 0 || len(at) != 16 || at[0] != "node12" || at[2] != "node04" || at[8] != "node16" {
		t.Fatalf("positions %v (empty %d)", at, top.Torus.Empty)
	}
	c.start(16, withPorts(16, "--topology", yamlPath))
	free := slices.Repeat([]bool{true}, 16) // by position
	running := map[string][]int{}           // job id: positions
	var ids []string
	compared := 0
	seq := []int{2, 4, 1, 2, 8, -1, 4, 2, -3, 1, 2, -2, 4, 8, -1, 1, 2, -4, 2, 4, 1}
	for step, k := range seq {
		if k < 0 {
			i := min(-k, len(ids)) - 1
			if i < 0 {
				continue
			}
			id := ids[i]
			ids = slices.Delete(ids, i, i+1)
			c.cancel(id)
			for _, p := range running[id] {
				free[p] = true
			}
			delete(running, id)
			continue
		}
		want := torusPredict(d, placements, free, k)
		if want == nil {
			continue // Slurm would keep it pending: not submitted
		}
		id, got := c.allocNow(k)
		wantNames := make([]string, len(want))
		for i, p := range want {
			wantNames[i] = at[p]
		}
		slices.SortFunc(wantNames, hostlist.NaturalCompare)
		if !slices.Equal(got, wantNames) {
			t.Fatalf("step %d: %d nodes: Slurm gave %v, the regions' positions and torus3d's rule predict %v", step, k, got, wantNames)
		}
		for _, p := range want {
			free[p] = false
		}
		running[id] = want
		ids = append(ids, id)
		compared++
	}
	if compared < 10 {
		t.Fatalf("only %d placements compared", compared)
	}
	t.Logf("torus3d regions on Slurm 26.05: %d placements compared, 0 differ", compared)
}

// TestTorus3DHolesOnSlurmNew: a torus given by regions that leave positions
// without a node (torus3d_record.c accepts it: the positions stay NO_VAL) places
// as torusPredictHoles says on Slurm 26.05: the 4x2x3 torus of 24 positions with
// 16 nodes, the z = 0 plane whole, z = 1's x 0-1 and z = 2's x 2-3 (8 holes), the
// default placements; a seeded sequence of jobs of the placements' sizes and
// frees, each placement compared, and jobs the rule says must wait (no anchor
// free of holes and busy nodes) submitted with salloc --immediate and not started.
func TestTorus3DHolesOnSlurmNew(t *testing.T) {
	c := newSlurmCluster(t, "holes")
	d := [3]int{4, 2, 3}
	yamlPath, top, placements := regionsTorus(t, d,
		"{anchor: {x: 0, y: 0, z: 0}, dims: {x: 4, y: 2, z: 1}, nodes: \"node[05,13,02,09,16,01,12,07]\"}",
		"{anchor: {x: 0, y: 0, z: 1}, dims: {x: 2, y: 2, z: 1}, nodes: \"node[03,14,06,10]\"}",
		"{anchor: {x: 2, y: 0, z: 2}, dims: {x: 2, y: 2, z: 1}, nodes: \"node[11,04,15,08]\"}")
	at := top.Torus.Nodes // the name at each position, x fastest; "" a hole
	hole := make([]bool, len(at))
	for p, n := range at {
		hole[p] = n == ""
	}
	if top.Torus.Empty != 8 || len(at) != 24 || at[0] != "node05" || at[8] != "node03" || at[10] != "" || at[18] != "node11" {
		t.Fatalf("positions %q (empty %d)", at, top.Torus.Empty)
	}
	c.start(16, withPorts(16, "--topology", yamlPath))
	free := slices.Repeat([]bool{true}, len(at)) // by position
	var sizes []int
	for _, p := range placements {
		if p.Size() <= 8 {
			sizes = append(sizes, p.Size())
		}
	}
	rng := rand.New(rand.NewPCG(31, 7))
	running := map[string][]int{} // job id: positions
	var ids []string
	compared, probes, waits := 0, 0, 0
	for step := 0; compared < 30 && step < 200; step++ {
		if len(ids) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(ids))
			id := ids[i]
			ids = slices.Delete(ids, i, i+1)
			c.cancel(id)
			for _, p := range running[id] {
				free[p] = true
			}
			delete(running, id)
			continue
		}
		k := sizes[rng.IntN(len(sizes))]
		nfree := 0
		for p := range free {
			if free[p] && !hole[p] {
				nfree++
			}
		}
		if k > nfree {
			continue
		}
		want := torusPredictHoles(d, placements, free, hole, k)
		if want == nil {
			if probes < 6 {
				probes++
				cmd := exec.Command("salloc", "--no-shell", "--immediate=5", "-N", strconv.Itoa(k), "-t", "5")
				cmd.Env = c.env
				out, _ := cmd.CombinedOutput()
				if m := regexp.MustCompile(`Granted job allocation (\d+)`).FindSubmatch(out); m != nil {
					nl := c.run("squeue", "-h", "-j", string(m[1]), "-o", "%N")
					t.Fatalf("step %d: %d nodes of %d free: the holes' rule says wait, Slurm started it on %s", step, k, nfree, nl)
				}
				waits++
			}
			continue
		}
		id, got := c.allocNow(k)
		wantNames := make([]string, len(want))
		for i, p := range want {
			wantNames[i] = at[p]
		}
		slices.SortFunc(wantNames, hostlist.NaturalCompare)
		if !slices.Equal(got, wantNames) {
			t.Fatalf("step %d: %d nodes: Slurm gave %v, the holes' rule predicts %v (positions %v)", step, k, got, wantNames, want)
		}
		for _, p := range want {
			free[p] = false
		}
		running[id] = want
		ids = append(ids, id)
		compared++
	}
	if compared < 20 {
		t.Fatalf("only %d placements compared", compared)
	}
	t.Logf("torus3d with 8 holes on Slurm 26.05: %d placements compared, 0 differ; %d jobs both wait", compared, waits)
}

// regionsTorus writes a topology.yaml of one torus of dims given by regions
// (each a flow mapping {anchor, dims, nodes}) with the default placements, and
// returns its path, the topology as parsed and the placements.
func regionsTorus(t *testing.T, d [3]int, regions ...string) (string, *Topology, []Box) {
	t.Helper()
	placements := DefaultPlacements(d)
	var b strings.Builder
	fmt.Fprintf(&b, "- topology: t\n  torus3d:\n    toruses:\n      - name: t1\n        dims: {x: %d, y: %d, z: %d}\n        regions:\n", d[0], d[1], d[2])
	for _, r := range regions {
		fmt.Fprintf(&b, "          - %s\n", r)
	}
	b.WriteString("        placements:\n")
	for _, p := range placements {
		fmt.Fprintf(&b, "          - dims: {x: %d, y: %d, z: %d}\n", p.X, p.Y, p.Z)
	}
	top, err := ParseTopologyYAML(strings.NewReader(b.String()), "t")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "topology.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, top, placements
}
