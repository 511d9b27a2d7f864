package alloc

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// AsRunName is the as-run allocator's family name.
const AsRunName = "as-run"

// IsAsRun reports whether the allocator spec names the as-run allocator (with or
// without an argument, spaces around it ignored): the one place that tells, for the
// replay (it needs an sacct trace) and the commands (batch refuses it).
func IsAsRun(spec string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	return name == AsRunName
}

func init() {
	register(AsRunName, "as production ran it: each job gets the nodes its trace record names (sacct NodeList); with --sched as-run at its recorded start. No ARG",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			if arg != "" {
				return nil, fmt.Errorf("as-run takes no argument, got %q", textin.Clip(arg))
			}
			names, err := opt.nodeNames(m)
			if err != nil {
				return nil, err
			}
			return newAsRun(m, names), nil
		})
}

// Placer is an allocator told which nodes a job ran on: the replay gives it the
// job's recorded node list instead of asking Allocate for k nodes.
type Placer interface {
	// Place marks the listed nodes busy and returns their indices; on an error
	// (a name not on the machine, a node already busy) the state is unchanged.
	Place(nodes hostlist.List) ([]int, error)
}

// ErrNoPlacement is returned by AsRun.Allocate: as-run needs the job's node names.
var ErrNoPlacement = errors.New("as-run replays recorded placements and needs each job's node list (an sacct trace with NodeList)")

// AsRun replays recorded placements (Placer): node names are a graph's host names,
// or node indices on a grid, unless Options.Names gives them.
type AsRun struct {
	m     topo.Machine
	st    *State
	names []string // nil: strconv.Itoa of the index
	index map[string]int
	// node maps the ids of table, the host table of the lists placed last, to
	// nodes (-1: not a host of m), filled as ids are met, so that a name is
	// looked up once per table, not once per job.
	table *hostlist.Table
	node  []int32
	ids   []int32
}

// NewAsRun returns the as-run allocator of m, every node free.
func NewAsRun(m topo.Machine) *AsRun { return newAsRun(m, curves.NodeNames(m)) }

// newAsRun is NewAsRun with the node names (nil: node indices).
func newAsRun(m topo.Machine, names []string) *AsRun {
	a := &AsRun{m: m, st: NewState(m.N()), names: names, index: make(map[string]int, m.N())}
	for i := range m.N() {
		a.index[a.nameOf(i)] = i
	}
	return a
}

// Name returns "as-run", the spec Parse knows it by.
func (a *AsRun) Name() string { return "as-run" }

// Machine returns the machine the allocator was built for.
func (a *AsRun) Machine() topo.Machine { return a.m }

// NumFree returns the number of free nodes.
func (a *AsRun) NumFree() int { return a.st.NumFree() }

// Release marks the nodes free again (Allocator.Release).
func (a *AsRun) Release(nodes []int) error { return a.st.Release(nodes) }

// Occupy marks the nodes busy (Occupier: a replay keeps the nodes outside a
// partition busy with it).
func (a *AsRun) Occupy(nodes []int) error { return a.st.Take(nodes) }

// IsFree reports whether node v is free.
func (a *AsRun) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of set (a bitmap of the nodes) to dst
// (State.AppendFreeIn; Mask's bulk path).
func (a *AsRun) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

// Allocate fails: see ErrNoPlacement.
func (a *AsRun) Allocate(k int) ([]int, error) { return nil, ErrNoPlacement }

// Place takes the nodes of the recorded list; a name the machine lacks, a name
// given twice or a node that is busy is an error naming it.
func (a *AsRun) Place(list hostlist.List) ([]int, error) {
	if list.Len() == 0 {
		return nil, ErrNoPlacement
	}
	if t := list.Table(); t != a.table {
		a.table, a.node = t, a.node[:0]
	}
	a.ids = list.AppendIDs(a.ids[:0])
	nodes := make([]int, len(a.ids))
	for i, id := range a.ids {
		for int(id) >= len(a.node) {
			v, ok := a.index[a.table.Name(int32(len(a.node)))]
			if !ok {
				v = -1
			}
			a.node = append(a.node, int32(v))
		}
		v := a.node[id]
		if v < 0 {
			return nil, fmt.Errorf("recorded node %q is not a host of %s", a.table.Name(id), a.m.Spec())
		}
		nodes[i] = int(v)
	}
	slices.Sort(nodes)
	for i := 1; i < len(nodes); i++ {
		if nodes[i] == nodes[i-1] {
			return nil, fmt.Errorf("recorded node list names %q twice", a.nameOf(nodes[i]))
		}
	}
	for _, v := range nodes {
		if !a.st.IsFree(v) {
			return nil, fmt.Errorf("recorded node %q is still busy in the replay (the replay's schedule differs from production's: use --sched as-run)", a.nameOf(v))
		}
	}
	if err := a.st.Take(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}

func (a *AsRun) nameOf(v int) string {
	if a.names != nil {
		return a.names[v]
	}
	return strconv.Itoa(v)
}
