package sim

import (
	"cmp"
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
)

// replicaStream generates the jobs of Scale.Apply with replication one at a time,
// in the order Apply sorts them, without holding them: a replay of a trace
// replicated R times then holds the trace once (plus R generator states) instead of
// R copies. The replicas' arrival offsets are drawn from Apply's generator in
// Apply's order (replica 1's jobs, then replica 2's, ...): the state at the start of
// each replica is kept, and each replica draws its own in job order. Jobs are
// merged by arrival, ties in Apply's stable order (replica, then job), which needs
// the originals sorted by arrival: every future job arrives at or after the next
// original's arrival, so jobs earlier than it can be passed on.
type replicaStream struct {
	base  []Job // the originals, scaled by Work and Contract, sorted by arrival
	reps  int
	p     int64
	snaps []rand.PCG // the generator at the start of replicas 1..reps-1
	lf    float64    // LoadFactor's contraction after replication (0: none)
}

// newReplicaStream returns the stream of jobs s.Apply(jobs) gives, and then
// contracted by lf (when not 0), or nil when jobs are not sorted by arrival or s
// does not replicate.
func newReplicaStream(jobs []Job, s Scale, lf float64) (*replicaStream, error) {
	if s.Replicate < 2 || len(jobs) == 0 || !slices.IsSortedFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Arrival, b.Arrival) }) {
		return nil, nil
	}
	one := s
	one.Replicate = 1
	base, err := one.Apply(jobs)
	if err != nil {
		return nil, err
	}
	p := s.Perturb
	if p == 0 && len(base) > 1 {
		p = (base[len(base)-1].Arrival - base[0].Arrival) / int64(len(base)-1)
	}
	pcg := rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15)
	rng := rand.New(pcg)
	rs := &replicaStream{base: base, reps: s.Replicate, p: p, lf: lf}
	for r := 1; r < s.Replicate; r++ {
		rs.snaps = append(rs.snaps, *pcg)
		if p > 0 {
			for range base {
				rng.Int64N(p + 1)
			}
		}
	}
	return rs, nil
}

func (rs *replicaStream) len() int { return len(rs.base) * rs.reps }

// replicaIter is one pass over a replicaStream.
type replicaIter struct {
	rs   *replicaStream
	rngs []*rand.Rand // replica r's at rngs[r-1]
	i    int          // next original to expand
	h    candHeap
	id   int
}

type cand struct {
	arr  int64
	r, i int32
}

type candHeap []cand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(a, b int) bool {
	if h[a].arr != h[b].arr {
		return h[a].arr < h[b].arr
	}
	if h[a].r != h[b].r {
		return h[a].r < h[b].r
	}
	return h[a].i < h[b].i
}
func (h candHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (rs *replicaStream) iter() *replicaIter {
	it := &replicaIter{rs: rs}
	for _, st := range rs.snaps {
		pcg := st
		it.rngs = append(it.rngs, rand.New(&pcg))
	}
	return it
}

// next returns the next job (numbered from 1, as Apply renumbers), false at the end.
func (it *replicaIter) next() (Job, bool) {
	rs := it.rs
	for it.i < len(rs.base) && (len(it.h) == 0 || it.h[0].arr >= rs.base[it.i].Arrival) {
		a := rs.base[it.i].Arrival
		for r := range rs.reps {
			off := int64(0)
			if r > 0 && rs.p > 0 {
				off = it.rngs[r-1].Int64N(rs.p + 1)
			}
			heap.Push(&it.h, cand{a + off, int32(r), int32(it.i)})
		}
		it.i++
	}
	if len(it.h) == 0 {
		return Job{}, false
	}
	c := heap.Pop(&it.h).(cand)
	j := rs.base[c.i]
	j.Arrival = c.arr
	if c.r > 0 {
		j.Line = 0
	}
	it.id++
	j.ID = it.id
	if rs.lf != 0 && rs.lf != 1 {
		j.Arrival = int64(math.Round(float64(j.Arrival) * rs.lf))
	}
	return j, true
}
