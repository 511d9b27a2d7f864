package sim

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// guaranteeEASY is EASY written the way PReMAS's EASYScheduler keeps its state
// (reference-simulators.md): the head's guaranteed start is set only when a job
// arrives at the head of the queue, when a job departs and when the head starts;
// backfilling checks a job against that stored guarantee. The replay's easy scheduler
// recomputes the reservation at every decision instead; TestEASYMatchesGuarantee shows
// the two start every job at the same time.
type guaranteeEASY struct {
	res        *jobTable
	queue      []int
	guaranteed int64
}

func (s *guaranteeEASY) sorted(running *runSet) []runJob {
	r := slices.Clone(running.jobs)
	slices.SortStableFunc(r, func(a, b runJob) int { return cmp.Compare(a.estEnd, b.estEnd) })
	return r
}

func (s *guaranteeEASY) give(now int64, free int, running *runSet) {
	if len(s.queue) == 0 {
		return
	}
	need := s.res.at(s.queue[0]).Procs
	if free >= need {
		s.guaranteed = now
		return
	}
	for _, r := range s.sorted(running) {
		free += r.procs
		if free >= need {
			s.guaranteed = r.estEnd
			return
		}
	}
	panic("no reservation")
}

func (s *guaranteeEASY) arrive(i int, now int64, free int, running *runSet) {
	s.queue = append(s.queue, i)
	if len(s.queue) == 1 {
		s.give(now, free, running)
	}
}

func (s *guaranteeEASY) depart(now int64, free int, running *runSet) { s.give(now, free, running) }

func (s *guaranteeEASY) next(now int64, free int, running *runSet, p *placer) (int, []int, error) {
	i := s.pick(now, free, running)
	if i < 0 {
		return -1, nil, nil
	}
	nodes, err := p.place(i)
	if err == nil && nodes == nil {
		panic("a count-based allocator refused a job that fits")
	}
	return i, nodes, err
}

func (s *guaranteeEASY) pick(now int64, free int, running *runSet) int {
	if len(s.queue) == 0 {
		return -1
	}
	if head := s.queue[0]; s.res.at(head).Procs <= free {
		s.queue = s.queue[1:]
		// The head starts: the replay adds it to running after next returns, so
		// include it here for the new head's guarantee.
		with := &runSet{jobs: append(slices.Clone(running.jobs), runJob{head, now + s.res.at(head).EstimateUsed, s.res.at(head).Procs, nil})}
		s.give(now, free-s.res.at(head).Procs, with)
		return head
	}
	avail := free
	for _, r := range s.sorted(running) {
		if r.estEnd <= s.guaranteed {
			avail += r.procs
		}
	}
	for qi := 1; qi < len(s.queue); qi++ {
		i := s.queue[qi]
		r := s.res.at(i)
		if r.Procs > free {
			continue
		}
		if now+r.EstimateUsed <= s.guaranteed || avail-r.Procs >= s.res.at(s.queue[0]).Procs {
			s.queue = slices.Delete(s.queue, qi, qi+1)
			return i
		}
	}
	return -1
}

func TestEASYMatchesGuarantee(t *testing.T) {
	schedulers["easy-guarantee"] = func(res *jobTable, _ *partitions) scheduler { return &guaranteeEASY{res: res} }
	defer delete(schedulers, "easy-guarantee")
	rng := rand.New(rand.NewPCG(11, 12))
	g := topo.Mesh(8, 8)
	traces := [][]Job{loadTrace(t, "testdata/KTH-SP2-1996-2.converted.txt.gz").Jobs[:4000]}
	for range 20 {
		traces = append(traces, randomJobs(rng, 300, g.N()))
	}
	for n, jobs := range traces {
		m := g
		if n == 0 {
			m = topo.Mesh(10, 10)
		}
		var starts [2][]int64
		for v, sched := range []string{"easy", "easy-guarantee"} {
			a, _ := alloc.Parse("bf:snake", m, alloc.Options{Compat: alloc.CompatPReMAS})
			r, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: a, Sched: Sched(sched), Compat: alloc.CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range r.PerJob {
				starts[v] = append(starts[v], j.Start)
			}
		}
		if i := slices.Compare(starts[0], starts[1]); i != 0 {
			for j := range starts[0] {
				if starts[0][j] != starts[1][j] {
					t.Fatalf("trace %d: job %d starts at %d (recomputed reservation) vs %d (stored guarantee)", n, j+1, starts[0][j], starts[1][j])
				}
			}
		}
	}
}
