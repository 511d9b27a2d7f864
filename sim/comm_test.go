package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

func commConfig(t *testing.T, spec, allocSpec, pattern string) Config {
	t.Helper()
	g, err := topo.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	a, err := alloc.Parse(allocSpec, g, alloc.Options{Ranking: curves.ReadMachineRanking})
	if err != nil {
		t.Fatal(err)
	}
	pat, err := netsim.ParsePattern(pattern)
	if err != nil {
		t.Fatal(err)
	}
	p := netsim.Params{MessageFlits: 31, RouterDelay: 2, FlitBytes: 8}
	return Config{Machine: g, Alloc: a, Comm: &Comm{Pattern: pat, Params: p, MessagesPerSecond: 1, CycleSeconds: 1, Seed: 1}}
}

func TestCommRunTimeIsTheNetworks(t *testing.T) {
	// Two neighbours (row-major free list on 4x4 takes nodes 0 and 1) exchange 10
	// messages: 5 all-to-all phases of one message each way, R + S = 33 cycles each.
	cfg := commConfig(t, "mesh:4x4", "freelist:rowmajor", "all-to-all")
	jobs := []Job{{ID: 1, Procs: 2, Runtime: 10, Estimate: -1}, {ID: 2, Arrival: 1000, Procs: 1, Runtime: 3, Estimate: -1}, {ID: 3, Arrival: 2000, Procs: 3, Runtime: 0, Estimate: -1}}
	res, err := Run(context.Background(), jobs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{5 * 33, 3 * 31, 0} // a lone processor sends to itself: S each
	for i, r := range res.PerJob {
		if got := r.End - r.Start; got != want[i] {
			t.Errorf("job %d ran %d s, want %d", r.ID, got, want[i])
		}
		if r.Runtime != jobs[i].Runtime {
			t.Errorf("job %d: trace run time changed to %d", r.ID, r.Runtime)
		}
	}
	if res.PerJob[0].Messages != 10 || res.PerJob[0].MessageDistance != 1 {
		t.Errorf("job 1: %d messages at distance %v, want 10 at 1", res.PerJob[0].Messages, res.PerJob[0].MessageDistance)
	}
	if res.Comm == nil || res.Comm.Messages != 13 {
		t.Fatalf("comm summary %+v, want 13 messages", res.Comm)
	}
}

func TestCommContentionSlowsJobs(t *testing.T) {
	// On a 16-node line, a free list along an interleaving ranking gives job 1 the
	// even nodes and job 2 the odd ones: their routes share links, so each runs
	// longer together than alone. With the row-major order they get halves of the
	// line, share nothing, and run exactly as long as alone.
	ranking := filepath.Join(t.TempDir(), "interleave.pairs")
	var b strings.Builder
	for i := range 16 {
		fmt.Fprintf(&b, "%d %d\n", i, i/2+8*(i%2))
	}
	if err := os.WriteFile(ranking, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	one := []Job{{ID: 1, Procs: 8, Runtime: 700, Estimate: -1}}
	two := append(slices.Clone(one), Job{ID: 2, Procs: 8, Runtime: 700, Estimate: -1})
	dur := func(jobs []Job, allocSpec string) int64 {
		res, err := Run(context.Background(), jobs, commConfig(t, "mesh:16x1", allocSpec, "all-to-all"))
		if err != nil {
			t.Fatal(err)
		}
		return res.PerJob[0].End - res.PerJob[0].Start
	}
	if a, b := dur(one, "freelist:rowmajor"), dur(two, "freelist:rowmajor"); a != b {
		t.Errorf("disjoint halves: %d s together, %d alone", b, a)
	}
	if a, b := dur(one, "freelist:"+ranking), dur(two, "freelist:"+ranking); b <= a {
		t.Errorf("interleaved jobs: %d s together, not longer than %d alone", b, a)
	}
}

func TestCommDeterministicAndComplete(t *testing.T) {
	jobs := []Job{}
	for i := range 60 {
		jobs = append(jobs, Job{ID: i + 1, Line: i + 1, Arrival: int64(i * 37), Procs: 1 + (i*7)%13, Runtime: int64((i * 53) % 400), Estimate: -1})
	}
	// A job of several processors with no run time has a quota of 0: it sends
	// nothing, and its message figures must say so (they kept one static cycle
	// of the pattern: 30 messages for all-to-all on 6 processors).
	jobs[10].Runtime = 0
	for _, spec := range []string{"mesh:6x6", "torus:6x6"} {
		for _, a := range []string{"mc1x1", "bf:hilbert-trunc", "genalg", "mm"} {
			for _, pat := range netsim.Patterns() {
				r1, err := Run(context.Background(), jobs, commConfig(t, spec, a, pat))
				if err != nil {
					t.Fatalf("%s %s %s: %v", spec, a, pat, err)
				}
				r2, err := Run(context.Background(), jobs, commConfig(t, spec, a, pat))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(r1.Summary, r2.Summary) {
					t.Fatalf("%s %s %s: two runs differ", spec, a, pat)
				}
				var msgs int64
				for i, r := range r1.PerJob {
					if r.Start < r.Arrival || r.End < r.Start {
						t.Fatalf("job %d: arrival %d start %d end %d", r.ID, r.Arrival, r.Start, r.End)
					}
					if r.Messages != jobs[i].Runtime {
						t.Fatalf("%s %s %s: job %d sent %d messages, quota %d", spec, a, pat, r.ID, r.Messages, jobs[i].Runtime)
					}
					// Hops, hop-bytes and distance are those of the messages sent.
					if r.HopBytes != r.MessageHops*31*8 || (r.Messages == 0 && (r.MessageHops != 0 || r.MessageDistance != 0)) ||
						(r.Messages > 0 && r.MessageDistance != float64(r.MessageHops)/float64(r.Messages)) {
						t.Fatalf("%s %s %s: job %d: %d messages, %d hops, hop-bytes %d, distance %g", spec, a, pat, r.ID, r.Messages, r.MessageHops, r.HopBytes, r.MessageDistance)
					}
					msgs += r.Messages
				}
				if r1.Comm.Messages != msgs {
					t.Fatalf("engine delivered %d, jobs %d", r1.Comm.Messages, msgs)
				}
			}
		}
	}
}

func TestCommRejectsBadSettings(t *testing.T) {
	jobs := []Job{{ID: 1, Procs: 2, Runtime: 10}}
	for _, mod := range []func(*Comm){
		func(c *Comm) { c.MessagesPerSecond = 0 },
		func(c *Comm) { c.CycleSeconds = -1 },
		func(c *Comm) { c.Params.MessageFlits = 0 },
		func(c *Comm) { c.Pattern = nil },
	} {
		cfg := commConfig(t, "mesh:4x4", "mc1x1", "n-body")
		mod(cfg.Comm)
		if _, err := Run(context.Background(), jobs, cfg); err == nil {
			t.Errorf("%+v accepted", *cfg.Comm)
		}
	}
}

func TestStaticRouteMetricsWithoutComm(t *testing.T) {
	g, _ := topo.ParseSpec("mesh:8x8")
	a, _ := alloc.Parse("freelist:rowmajor", g, alloc.Options{})
	nbody, _ := netsim.ParsePattern("n-body")
	res, err := Run(context.Background(), []Job{{ID: 1, Procs: 8, Runtime: 5}, {ID: 2, Procs: 16, Runtime: 5}}, Config{Machine: g, Alloc: a, Pattern: nbody})
	if err != nil {
		t.Fatal(err)
	}
	// Job 1 is row 0 in order: ring messages go 1 hop except 7->0 (7 hops); the
	// chordal ones 4 hops. 4 ring phases + 1 chordal of 8 messages.
	r := res.PerJob[0]
	wantHops := int64(4*(7+7) + 8*4)
	if r.Messages != 40 || r.MessageHops != wantHops {
		t.Fatalf("job 1: %d messages %d hops, want 40 and %d", r.Messages, r.MessageHops, wantHops)
	}
	if res.RoutePattern != "n-body" || r.HopBytes != wantHops*256 {
		t.Fatalf("pattern %q hop-bytes %d", res.RoutePattern, r.HopBytes)
	}
}

func TestCommDeadlockSaysWhatToDo(t *testing.T) {
	// On a 5-ring the shortest routes of i -> i+2 wait for each other in a cycle
	// over one channel a link (netsim's TestDeadlockReported); a 5-node all-to-all
	// job sends them together. The message engine gives the ring's links distance
	// classes, so the replay runs to its end; the flit engine with one virtual
	// channel and no --hop-classes deadlocks, and its error says so once, with the
	// cycle, and names the ways out: the message engine or --hop-classes.
	g, err := topo.ReadGraph(strings.NewReader("n0 n1\nn1 n2\nn2 n3\nn3 n4\nn4 n0\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := alloc.Parse("bf:rcm", g, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pat, err := netsim.ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	comm := Comm{Pattern: pat, Params: netsim.Params{MessageFlits: 50, RouterDelay: 1, FlitBytes: 8}, MessagesPerSecond: 1, CycleSeconds: 1, Seed: 1}
	cfg := Config{Machine: g, Alloc: a, TaskOrder: TaskOrderSorted, Comm: &comm}
	jobs := []Job{{ID: 1, Procs: 5, Runtime: 100, Estimate: -1}}
	res, err := Run(context.Background(), jobs, cfg)
	if err != nil {
		t.Fatalf("message engine: %v, want the replay to finish (distance classes)", err)
	}
	if got := res.PerJob[0].Messages; got != 100 {
		t.Fatalf("message engine: %d messages delivered, want the quota 100", got)
	}
	if c := res.Comm.DistanceClasses; c != 2 {
		t.Fatalf("message engine: %d distance classes reported, want 2 (a 5-ring's longest route)", c)
	}
	fc := netsim.DefaultFlitConfig(g)
	fc.PacketFlits = 50
	flit := comm
	flit.Engine, flit.Flit = EngineFlit, fc
	cfg.Comm = &flit
	_, err = Run(context.Background(), jobs, cfg)
	if !errors.Is(err, netsim.ErrDeadlock) {
		t.Fatalf("flit engine, one VC: err = %v, want a deadlock", err)
	}
	// The library's error names the library's fields (Comm's and Spec's), not the
	// command's flags; a command names its flags by setting Name.
	msg := err.Error()
	if strings.Count(msg, "at cycle") != 1 || !strings.Contains(msg, "(Engine message, the default)") || !strings.Contains(msg, "with Flit.HopClasses and Flit.VCs at least") || strings.Contains(msg, "--") {
		t.Errorf("deadlock error %q: want the cycle once and the ways out by field name (Engine message, Flit.HopClasses and Flit.VCs), no flag", msg)
	}
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatalf("deadlock error %T, want a *DeadlockError", err)
	}
	flags := map[string]string{"Engine": "--engine", "Flit.HopClasses": "--hop-classes", "Flit.VCs": "--vcs"}
	named := (&DeadlockError{Err: de.Err, WayOut: de.WayOut, Name: func(f string) string { return flags[f] }}).Error()
	if !strings.HasPrefix(named, de.Err.Error()+"; ") || !strings.Contains(named, "(--engine message, the default)") || !strings.Contains(named, "with --hop-classes and --vcs at least") || strings.Contains(named, "Flit.") || strings.Contains(named, "{") {
		t.Errorf("deadlock error named by flags %q: want the cycle, then --engine message, --hop-classes and --vcs, no field", named)
	}
	// With hop classes but one VC a class is shared by every hop: the advice is
	// to raise the VCs.
	flit.Flit.HopClasses = true
	if cfg.Alloc, err = alloc.Parse("bf:rcm", g, alloc.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), jobs, cfg)
	if !errors.As(err, &de) {
		t.Fatalf("flit engine, hop classes, one VC: err = %v, want a deadlock", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "with Flit.HopClasses, raise Flit.VCs to at least") || strings.Contains(msg, "--") {
		t.Errorf("hop classes, one VC: deadlock error %q: want Flit.VCs raised, by field name", msg)
	}
}

// TestCommDragonflyRunsToTheEnd: KTH-SP2's first 869 jobs (docs/comm.md's window
// to 1996-10-08 has as many) on a 104-host dragonfly under bf:rcm deadlocked the
// message engine under all-to-all and random (one channel a link, minimal routes
// waiting in a cycle); with distance classes the replays run to their end, every
// job sends its whole quota, and the summary reports the 3 classes.
func TestCommDragonflyRunsToTheEnd(t *testing.T) {
	tr, err := ReadTraceFile("testdata/KTH-SP2-1996-2.converted.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobs := tr.Jobs[:869]
	m, err := topo.ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"all-to-all", "random"} {
		a, err := alloc.Parse("bf:rcm", m, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pat, err := netsim.ParsePattern(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Machine: m, Alloc: a, TaskOrder: TaskOrderSorted,
			Comm: &Comm{Pattern: pat, Params: netsim.DefaultParams(), MessagesPerSecond: 1, CycleSeconds: DefaultCycleSeconds, Seed: 1}}
		res, err := Run(context.Background(), jobs, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var msgs int64
		for i, r := range res.PerJob {
			if want := jobs[i].Runtime; r.Messages != want {
				t.Fatalf("%s: job %d sent %d messages, quota %d", name, r.ID, r.Messages, want)
			}
			msgs += r.Messages
		}
		if len(res.PerJob) != len(jobs) || res.Comm.Messages != msgs || res.Comm.DistanceClasses != 3 {
			t.Fatalf("%s: %d of %d jobs, %d messages delivered (jobs: %d), %d classes", name, len(res.PerJob), len(jobs), res.Comm.Messages, msgs, res.Comm.DistanceClasses)
		}
	}
}
