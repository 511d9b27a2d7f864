package alloc

import (
	"fmt"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
)

// slurm:ring: Slurm's topology/ring selection (Slurm 26.05 on) as Slurm 26.05.3
// has it (tag slurm-26-05-3-1 of SchedMD/slurm: src/plugins/topology/ring/
// eval_nodes_ring.c, eval_nodes_ring and _test_ring; topology_ring.c,
// topology_p_eval_nodes and topology_p_allow_one_node; ring_record.c,
// ring_record_validate), for the jobs and clusters of slurm:consec (whole-node
// jobs of k nodes, no required nodes, no --segment, no GRES). A ring is an
// ordered list of at most 16 nodes (slurm.Rings), position i next to i-1 and
// i+1 and the last next to the first.
//
//   - A job of k nodes takes one segment of a ring: k consecutive positions,
//     wrapping past the last, every node free (in the job's partition). The
//     segment's weight is the highest Weight of its nodes.
//   - Of every segment of every ring the one of lowest weight wins, then the
//     one on the ring with the fewest free nodes (ring_idle_nodes: the tightest
//     ring), then the earliest ring in the file, then the earliest start
//     position (_test_ring replaces the best only when strictly better, rings
//     in file order, starts from 0; its skip past a busy or too heavy node,
//     "step += j", skips only starts whose segment holds that node). A ring
//     with fewer than k positions or fewer than k free nodes is passed over.
//   - No segment: the job waits (ESLURM_TOPO_NO_FIT with EVAL_ACTION_BREAK: no
//     retry with fewer candidates). A job larger than every ring never starts.
//   - No free node of any ring among the job's candidates: Slurm skips the ring
//     plugin and uses its common selection (topology_p_eval_nodes: the plugin
//     is chosen only when rings_nodes_bitmap overlaps the node map); emulated by
//     slurm:consec's rules. While a ring node is free, nodes on no ring are never
//     given to a job of two or more nodes.
//   - One-node jobs skip the plugin (topology_p_allow_one_node is true): the
//     free node of lowest weight, first in node-index order, on a ring or not
//     (select/cons_tres's _get_one_res), as under slurm:block.
//
// A node may be on several rings (Slurm allows it); one named twice in a ring is
// refused by the reader (slurm.yamlRings). Nodes of a ring that are not the
// machine's are an error here (alloc.NewSlurm takes them for a typo; plan
// leaves out the names slurm.conf lacks first, as slurmctld does).

// slurmRings is a SlurmAllocator's topology/ring state: read-only after
// initRings (clones share it).
type slurmRings struct {
	ring  [][]int32 // ring i's nodes (Slurm indices) in ring order
	inAny []bool    // by Slurm index: on some ring (rings_nodes_bitmap)
	onAny []int32   // the Slurm indices on some ring, ascending
	size  int       // the largest ring's size
}

func (a *SlurmAllocator) initRings(cfg *slurm.Rings, names []string) error {
	if len(cfg.Rings) == 0 {
		return fmt.Errorf("topology/ring configuration without rings (Slurm: \"No rings configured\"; use slurm.ParseTopologyYAML)")
	}
	n := len(a.at)
	byName := make(map[string]int32, n)
	for v, nm := range names {
		byName[nm] = int32(v)
	}
	r := &slurmRings{ring: make([][]int32, len(cfg.Rings)), inAny: make([]bool, n)}
	for i, rg := range cfg.Rings {
		if len(rg.Nodes) > slurm.MaxRingSize {
			return fmt.Errorf("topology.yaml line %d: ring %s has %d nodes; Slurm's rings hold at most %d (ring_record.c: \"Ring (%s) is bigger than %d\", fatal)", rg.Line, textin.Clip(rg.Name), len(rg.Nodes), slurm.MaxRingSize, textin.Clip(rg.Name), slurm.MaxRingSize)
		}
		set := make([]int32, len(rg.Nodes))
		seen := map[int32]bool{}
		for j, nm := range rg.Nodes {
			v, ok := byName[nm]
			if !ok {
				return fmt.Errorf("topology.yaml line %d: ring %s lists node %q, which is not a node of the machine", rg.Line, textin.Clip(rg.Name), textin.Clip(nm))
			}
			if seen[v] {
				return fmt.Errorf("topology.yaml line %d: ring %s lists node %q twice", rg.Line, textin.Clip(rg.Name), textin.Clip(nm))
			}
			seen[v] = true
			set[j] = a.idx[v]
			r.inAny[a.idx[v]] = true
		}
		r.ring[i] = set
		r.size = max(r.size, len(set))
	}
	for s, in := range r.inAny {
		if in {
			r.onAny = append(r.onAny, int32(s))
		}
	}
	a.ring = r
	if len(r.onAny) < n {
		// ring_record_validate: warning("Rings lack access to %d nodes: %s").
		a.warnings = append(a.warnings, fmt.Sprintf("%d of the machine's %d nodes are on no ring: slurmctld starts with \"Rings lack access to %d nodes\", and they get a job of two or more nodes only when no node of a ring is free", n-len(r.onAny), n, n-len(r.onAny)))
	}
	return nil
}

// ringSegment is a candidate segment: ring, start position, weight (its
// heaviest node's) and the ring's free nodes.
type ringSegment struct {
	ring, start int
	w           uint32
	idle        int
}

// ringSelect is eval_nodes_ring for a k-node job (see above).
func (a *SlurmAllocator) ringSelect(k int) ([]int32, error) {
	rs := a.ring
	if k == 1 {
		return []int32{a.wo.at[a.wo.kth(1)]}, nil // _get_one_res, as blockSelect
	}
	anyFree := false
	for _, s := range rs.onAny {
		if a.free(s) {
			anyFree = true
			break
		}
	}
	if !anyFree {
		return a.consec(k), nil
	}
	best := ringSegment{ring: -1}
	for i, ring := range rs.ring {
		n := len(ring)
		if n < k {
			continue
		}
		idle := 0
		for _, s := range ring {
			if a.free(s) {
				idle++
			}
		}
		if idle < k {
			continue
		}
		for start := 0; start < n; {
			step, ok := 1, true
			var w uint32
			for j := range k {
				s := ring[(start+j)%n]
				if !a.free(s) || best.ring >= 0 && a.w[s] > best.w {
					ok, step = false, step+j
					break
				}
				w = max(w, a.w[s])
			}
			if ok && (best.ring < 0 || w < best.w || w == best.w && idle < best.idle) {
				best = ringSegment{ring: i, start: start, w: w, idle: idle}
			}
			start += step
		}
	}
	if best.ring < 0 {
		if k > rs.size {
			return nil, fmt.Errorf("request for %d nodes: the largest ring has %d nodes; Slurm leaves the job pending forever while a node of a ring is free: %w", k, rs.size, ErrFragmented)
		}
		return nil, fmt.Errorf("request for %d nodes: no ring has %d consecutive free nodes; Slurm leaves the job pending: %w", k, k, ErrFragmented)
	}
	ring := rs.ring[best.ring]
	picked := make([]int32, k)
	for j := range k {
		picked[j] = ring[(best.start+j)%len(ring)]
	}
	return picked, nil
}
