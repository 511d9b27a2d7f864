package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// TaskOrder says which processor of a job gets which task: a job's nodes, in this
// order, are its tasks 0, 1, 2, ... of the communication pattern (Comm, and the
// static route metrics of Pattern). It never changes which nodes a job gets, only
// the mapping of tasks onto them, and so only what depends on the mapping:
// message distances, contention, run times under Comm. Bunde, Leung and Mache 2004
// (§5) explain MC1x1's and Gen-Alg's n-body results by the order of their
// processors; the task order makes that testable. The values:
//
//   - "" (TaskOrderReturned, the default): the order Allocate returns. This is
//     what every replay did before task orders existed, and it differs by
//     allocator: curve order for the curve allocators, MC's shells, node index
//     for MC1x1, MM and Gen-Alg.
//   - "sorted": node index order (row-major on a grid).
//   - "allocator": the order the allocator collected the nodes in
//     (alloc.CollectionOrder): along the curve, MC's and MC1x1's shells around
//     the center, L1 distance from the center for MM and Gen-Alg.
//   - "curve:NAME": the rank order of curve NAME (a built-in curve or, with
//     Spec.Ranking, a ranking file), e.g. curve:hilbert.
//   - "random": a uniformly random permutation, seeded by Spec.CommSeed and the
//     job's number.
//
// PReMAS's task mappers (long1710/Network-Topology, mapping/) do the same for
// its simulator: a mapping of MPI ranks onto the allocated nodes, chosen apart
// from the allocation.
type TaskOrder string

// The task orders without an argument; curve orders are TaskOrderCurve + NAME.
const (
	TaskOrderReturned  TaskOrder = ""
	TaskOrderSorted    TaskOrder = "sorted"
	TaskOrderAllocator TaskOrder = "allocator"
	TaskOrderRandom    TaskOrder = "random"
	TaskOrderCurve     TaskOrder = "curve:"
)

// String returns the order's name, "returned" for the zero value.
func (o TaskOrder) String() string {
	if o == TaskOrderReturned {
		return "returned"
	}
	return string(o)
}

// Curve returns the curve of a "curve:NAME" order, else "".
func (o TaskOrder) Curve() string {
	name, ok := strings.CutPrefix(string(o), string(TaskOrderCurve))
	if !ok {
		return ""
	}
	return name
}

// ParseTaskOrder reads a task order: returned (or ""), sorted, allocator, random or
// curve:NAME (the curve is resolved with the machine, Spec.Config).
func ParseTaskOrder(s string) (TaskOrder, error) {
	switch TaskOrder(s) {
	case TaskOrderReturned, "returned":
		return TaskOrderReturned, nil
	case TaskOrderSorted, TaskOrderAllocator, TaskOrderRandom:
		return TaskOrder(s), nil
	}
	if c := TaskOrder(s).Curve(); c != "" {
		return TaskOrder(s), nil
	}
	return "", fmt.Errorf("%q: want returned, sorted, allocator, random or curve:NAME", textin.Clip(s))
}

// taskOrdering is a task order made ready for a replay: the curve's ranks.
type taskOrdering struct {
	order TaskOrder
	rank  []int32 // curve: node -> rank
	seed  uint64
}

func newTaskOrdering(o TaskOrder, m topo.Machine, seed uint64, ranking func(string, topo.Machine) (curves.Order, error)) (*taskOrdering, error) {
	if _, err := ParseTaskOrder(string(o)); err != nil {
		return nil, err
	}
	if o == TaskOrderReturned || o == "returned" {
		return nil, nil
	}
	t := &taskOrdering{order: o, seed: seed}
	if name := o.Curve(); name != "" {
		var ord curves.Order
		var err error
		if curves.Summary(name) != "" || ranking == nil {
			ord, err = curves.Generate(name, m)
		} else {
			ord, err = ranking(name, m)
		}
		if err != nil {
			return nil, err
		}
		if err := ord.Validate(m.N()); err != nil {
			return nil, fmt.Errorf("curve %s: %w", name, err)
		}
		t.rank = make([]int32, m.N())
		for r, v := range ord {
			t.rank[v] = int32(r)
		}
	}
	return t, nil
}

// apply returns job id's nodes (as the allocator returned them) in task order.
func (t *taskOrdering) apply(a alloc.Allocator, id int, nodes []int) ([]int, error) {
	if t == nil {
		return nodes, nil
	}
	switch {
	case t.order == TaskOrderSorted:
		return slices.Sorted(slices.Values(nodes)), nil
	case t.order == TaskOrderAllocator:
		return alloc.CollectionOrder(a, nodes)
	case t.order == TaskOrderRandom:
		out := slices.Clone(nodes)
		rand.New(rand.NewPCG(t.seed, uint64(id))).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out, nil
	case t.rank != nil:
		out := slices.Clone(nodes)
		slices.SortFunc(out, func(p, q int) int { return int(t.rank[p]) - int(t.rank[q]) })
		return out, nil
	}
	return nil, fmt.Errorf("sim: internal error: task order %q", textin.Clip(string(t.order)))
}
