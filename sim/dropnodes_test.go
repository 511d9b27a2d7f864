package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// DropNodes forgets the node lists of finished jobs and changes nothing else.
func TestDropNodesKeepsTheSummary(t *testing.T) {
	g := topo.Mesh(8, 8)
	jobs := randomJobs(rand.New(rand.NewPCG(5, 6)), 200, g.N())
	run := func(drop bool) *Result {
		a, err := alloc.Parse("mc1x1", g, alloc.Options{Compat: alloc.CompatPReMAS})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: "fcfs", Compat: alloc.CompatPReMAS, DropNodes: drop})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	keep, drop := run(false), run(true)
	if keep.Summary.MeanTotalPairwiseL1 != drop.Summary.MeanTotalPairwiseL1 || keep.Summary.MeanWait != drop.Summary.MeanWait {
		t.Fatalf("summaries differ: %+v and %+v", keep.Summary, drop.Summary)
	}
	for i := range drop.PerJob {
		if drop.PerJob[i].Nodes != nil {
			t.Fatalf("job %d still holds its nodes", drop.PerJob[i].ID)
		}
		if len(keep.PerJob[i].Nodes) != keep.PerJob[i].Procs || drop.PerJob[i].TotalL1 != keep.PerJob[i].TotalL1 {
			t.Fatalf("job %d: kept %d nodes of %d, total %d vs %d", keep.PerJob[i].ID, len(keep.PerJob[i].Nodes), keep.PerJob[i].Procs, drop.PerJob[i].TotalL1, keep.PerJob[i].TotalL1)
		}
	}
}

// JobDone sees every job once, in trace order, after it and every job before it
// finished, with its final result and nodes, under every scheduler and with the
// communication model; the replay's results do not change, and with DropNodes no
// node list outlives the replay.
func TestJobDoneInTraceOrder(t *testing.T) {
	g := topo.Mesh(8, 8)
	jobs := randomJobs(rand.New(rand.NewPCG(7, 8)), 150, g.N())
	pat, err := netsim.ParsePattern("n-body")
	if err != nil {
		t.Fatal(err)
	}
	for _, sched := range []string{"fcfs", "easy", "cplant", "comm"} {
		t.Run(sched, func(t *testing.T) {
			cfg := func() Config {
				a, err := alloc.Parse("mc1x1", g, alloc.Options{})
				if err != nil {
					t.Fatal(err)
				}
				c := Config{Machine: g, Alloc: a, Sched: Sched(sched)}
				if sched == "comm" {
					c.Sched = "easy"
					c.Comm = &Comm{Pattern: pat, Params: netsim.DefaultParams(), MessagesPerSecond: 0.01, CycleSeconds: 10, Seed: 1}
				}
				return c
			}
			keep, err := Run(context.Background(), jobs, cfg())
			if err != nil {
				t.Fatal(err)
			}
			c := cfg()
			c.DropNodes = true
			var seen []JobResult
			during := 0 // calls while some job still ran: rows are passed on as the replay goes
			c.JobDone = func(r *JobResult) error {
				if c.Alloc.NumFree() < g.N() {
					during++
				}
				if len(r.Nodes) != r.Procs {
					return fmt.Errorf("%d nodes for %d processors", len(r.Nodes), r.Procs)
				}
				seen = append(seen, *r)
				return nil
			}
			got, err := Run(context.Background(), jobs, c)
			if err != nil {
				t.Fatal(err)
			}
			if sched != "comm" && during == 0 {
				t.Error("every call came after the replay")
			}
			if len(seen) != len(jobs) {
				t.Fatalf("JobDone called %d times for %d jobs", len(seen), len(jobs))
			}
			for i, r := range seen {
				want := keep.PerJob[i]
				if r.ID != want.ID || r.Start != want.Start || r.End != want.End || r.TotalL1 != want.TotalL1 || !slices.Equal(r.Nodes, want.Nodes) {
					t.Fatalf("call %d: job %d start %d end %d L1 %d, want job %d start %d end %d L1 %d", i, r.ID, r.Start, r.End, r.TotalL1,
						want.ID, want.Start, want.End, want.TotalL1)
				}
				if got.PerJob[i].Nodes != nil {
					t.Fatalf("job %d still holds its nodes", r.ID)
				}
			}
			if got.Summary.MeanTotalPairwiseL1 != keep.Summary.MeanTotalPairwiseL1 || got.Summary.MeanWait != keep.Summary.MeanWait {
				t.Fatalf("summaries differ: %+v and %+v", got.Summary, keep.Summary)
			}
		})
	}
	// An error from JobDone stops the replay and says which job.
	a, _ := alloc.Parse("mc1x1", g, alloc.Options{})
	_, err = Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: "fcfs", JobDone: func(r *JobResult) error {
		if r.ID == 3 {
			return errors.New("disk full")
		}
		return nil
	}})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "job 3") {
		t.Fatalf("error %v, want job 3's disk full", err)
	}
}
