package slurm

import (
	"fmt"
	"io"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Tree is a topology.conf of Slurm's topology/tree plugin the way slurmctld holds it
// (src/plugins/topology/tree/topology_tree.c, _validate_switches): the switch table in
// file order, each switch's level, parent and children, the leaves' node names. The
// selection code (cons_tres _eval_nodes_topo) walks this table in index order and
// breaks ties by it, so the order of the lines is part of the model; procalloc's
// ReadTopologyConf, which builds a network graph, does not keep it.
type Tree struct {
	Switches []Switch
	byName   map[string]int
	adj      [][]int // switch links, both ways
}

// Switch is one SwitchName= line.
type Switch struct {
	Name string
	Line int
	// Nodes are the expanded Nodes= of a leaf switch, in the file's order (Slurm keeps
	// only the set: a leaf's nodes are taken in node-index order).
	Nodes []string
	// Children are the switches of Switches=, as indices into Tree.Switches, in the
	// file's order.
	Children []int
	// Level is 0 for a leaf, else one more than the highest level of its children
	// (Slurm's rule: a switch over a leaf and a level-1 switch is at level 2).
	Level int
	// Parent is the index of the parent switch as slurmctld 22.05 sets it:
	// the last switch in file order whose Switches= lists this one; a switch that no
	// line lists keeps the zeroed field, 0: the first switch of the file, not itself.
	// The leaf comparison climbs these links (see alloc's slurm:tree).
	Parent int
}

// ParseTree reads a tree topology.conf: lines "SwitchName=S Nodes=HOSTLIST" or
// "SwitchName=S Switches=HOSTLIST", optional LinkSpeed=N, keys in any case, '#'
// comments. Errors name the line; they are what slurmctld refuses (fatal at
// startup): a switch defined twice, with both or neither of Nodes= and Switches=, a
// child switch not defined or the switch itself, switches that do not form a tree
// (a cycle), an unknown key, no switch at all; a BlockName= line (topology/block)
// is refused too. Hostlists are read as Slurm reads them (topo/hostlist). A node on
// two leaves is accepted, as Slurm accepts it with a warning.
func ParseTree(r io.Reader) (*Tree, error) {
	t := &Tree{byName: map[string]int{}}
	var childNames [][]string
	ls := textin.NewLines(r)
	for ls.Next() {
		line, fields := ls.Line(), ls.Fields()
		var s Switch
		s.Line = line
		var children []string
		named, hasNodes, hasSwitches := false, false, false
		for _, f := range fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return nil, fmt.Errorf("topology.conf line %d: %q is not KEY=VALUE", line, f)
			}
			var err error
			switch strings.ToLower(k) {
			case "switchname":
				if named {
					return nil, fmt.Errorf("topology.conf line %d: two SwitchName= on one line", line)
				}
				named, s.Name = true, v
			case "nodes":
				hasNodes = true
				if s.Nodes, err = hostlist.Expand(v); err != nil {
					return nil, fmt.Errorf("topology.conf line %d: Nodes=%s: %w", line, v, err)
				}
			case "switches":
				hasSwitches = true
				if children, err = hostlist.Expand(v); err != nil {
					return nil, fmt.Errorf("topology.conf line %d: Switches=%s: %w", line, v, err)
				}
			case "linkspeed":
			case "blockname", "blocksizes":
				return nil, fmt.Errorf("topology.conf line %d: %s= is topology/block, not a tree", line, k)
			default:
				return nil, fmt.Errorf("topology.conf line %d: unknown key %q (want SwitchName, Nodes, Switches, LinkSpeed)", line, k)
			}
		}
		switch {
		case !named || s.Name == "":
			return nil, fmt.Errorf("topology.conf line %d: no SwitchName=", line)
		case hasNodes && hasSwitches:
			return nil, fmt.Errorf("topology.conf line %d: switch %s has both Nodes= and Switches=", line, s.Name)
		case !hasNodes && !hasSwitches:
			return nil, fmt.Errorf("topology.conf line %d: switch %s has neither Nodes= nor Switches=", line, s.Name)
		}
		if prev, dup := t.byName[s.Name]; dup {
			return nil, fmt.Errorf("topology.conf line %d: switch %s already defined on line %d", line, s.Name, t.Switches[prev].Line)
		}
		if hasSwitches {
			s.Level = -1
		}
		t.byName[s.Name] = len(t.Switches)
		t.Switches = append(t.Switches, s)
		childNames = append(childNames, children)
	}
	if err := ls.Err(); err != nil {
		return nil, fmt.Errorf("topology.conf: %w", err)
	}
	if len(t.Switches) == 0 {
		return nil, fmt.Errorf("topology.conf: no SwitchName= lines")
	}
	for i, names := range childNames {
		for _, c := range names {
			j, ok := t.byName[c]
			if !ok || j == i {
				return nil, fmt.Errorf("topology.conf line %d: switch %s has invalid child switch %q", t.Switches[i].Line, t.Switches[i].Name, c)
			}
			t.Switches[i].Children = append(t.Switches[i].Children, j)
			t.Switches[j].Parent = i // the last line listing it wins, as in slurmctld
		}
	}
	t.adj = make([][]int, len(t.Switches))
	for i, s := range t.Switches {
		for _, c := range s.Children {
			t.adj[i] = append(t.adj[i], c)
			t.adj[c] = append(t.adj[c], i)
		}
	}
	// Levels as slurmctld resolves them: passes until every upper switch has all its
	// children resolved; a pass that resolves nothing means a cycle.
	for {
		left, progress := 0, false
		for i := range t.Switches {
			s := &t.Switches[i]
			if s.Level >= 0 {
				continue
			}
			lv := 0
			for _, c := range s.Children {
				cl := t.Switches[c].Level
				if cl < 0 {
					lv = -1
					break
				}
				lv = max(lv, cl+1)
			}
			if lv < 0 {
				left++
				continue
			}
			s.Level, progress = lv, true
		}
		if left == 0 {
			break
		}
		if !progress {
			for _, s := range t.Switches {
				if s.Level < 0 {
					return nil, fmt.Errorf("topology.conf line %d: switch %s is on a cycle of Switches= (not a tree)", s.Line, s.Name)
				}
			}
		}
	}
	return t, nil
}

// Index returns the index of the switch named name.
func (t *Tree) Index(name string) (int, bool) {
	i, ok := t.byName[name]
	return i, ok
}

// Distances returns the hop counts from switch from to every switch along the
// parent-child links of Switches= (slurmctld's switches_dist), -1 for a switch not
// connected to it. dst is reused when large enough.
func (t *Tree) Distances(from int, dst []int) []int {
	n := len(t.Switches)
	if cap(dst) < n {
		dst = make([]int, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = -1
	}
	dst[from] = 0
	queue := []int{from}
	for h := 0; h < len(queue); h++ {
		v := queue[h]
		for _, w := range t.adj[v] {
			if dst[w] < 0 {
				dst[w] = dst[v] + 1
				queue = append(queue, w)
			}
		}
	}
	return dst
}
