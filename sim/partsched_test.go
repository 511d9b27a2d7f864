package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// Jobs of several partitions under FCFS, Cplant and EASY (sched.go): the fast
// schedulers against a reference written plainly from their definitions, the
// invariants on their output, the one-partition replays unchanged, the
// refusals.

// refSched replays jobs under sched (fcfs, cplant or easy) on m with a fresh
// allocator of spec (slurm:consec, or slurm:tree or slurm:block of
// waitAllocator, which may refuse a job that fits by count), plainly: node owners in a slice, every count by a walk over the
// nodes, every decision through alloc.AllocateWithout with the nodes the job
// may not have listed, a pass over the whole queue for each start. It returns
// each job's start and nodes (sorted). tiers is the partitions' PriorityTier
// (missing: 1): the queue is sorted by tier, the higher first, then by its
// order, as Slurm's sort_job_queue2 sorts by the partition's tier before the
// job's priority.
//
// EASY's reservations are counted with slurm:consec; with an allocator that
// may refuse a job that fits by count they are placed: a job whose partition
// has the free nodes starts if the allocator places it off its partition's
// outside and off the nodes of every reservation ahead whose window its run
// overlaps; the first job of each partition that does not start is reserved
// the nodes a fresh allocator gives it at the first time (now, an estimated
// end, a reservation's end) at which it places it on the nodes of its
// partition free then (no job estimated to run then), off the nodes of the
// reservations ahead whose window overlaps its own.
func refSched(t *testing.T, m topo.Machine, spec string, parts map[string][]int, tiers map[string]int, jobs []Job, sched Sched) ([]int64, [][]int) {
	t.Helper()
	tier := func(i int) int {
		if x, ok := tiers[jobs[i].Partition]; ok {
			return x
		}
		return 1
	}
	tierOf := func(name string) int {
		if x, ok := tiers[name]; ok {
			return x
		}
		return 1
	}
	n := m.N()
	a := refAlloc(t, spec, m)
	f, frag := a.(alloc.Fragmenting)
	frag = frag && f.MayFragment()
	in := map[string][]bool{}
	for name, nodes := range parts {
		in[name] = make([]bool, n)
		for _, v := range nodes {
			in[name][v] = true
		}
	}
	// Partitions of the same nodes and tier are one: each job's is named by
	// the first name (sorted) of its nodes and tier.
	canon := map[string]string{}
	for _, x := range slices.Sorted(func(yield func(string) bool) {
		for k := range parts {
			if !yield(k) {
				return
			}
		}
	}) {
		canon[x] = x
		for y, c := range canon {
			if y < x && c == y && slices.Equal(in[x], in[y]) && tierOf(x) == tierOf(y) && canon[x] == x {
				canon[x] = y
			}
		}
	}
	overlap := func(x, y string) int {
		c := 0
		for v := range n {
			if in[x][v] && in[y][v] {
				c++
			}
		}
		return c
	}
	est := func(i int) int64 { return max(jobs[i].Estimate, jobs[i].Runtime) }
	owner := make([]int, n)
	for v := range owner {
		owner[v] = -1
	}
	start := make([]int64, len(jobs))
	nodesOf := make([][]int, len(jobs))
	started := make([]bool, len(jobs))
	arrived := make([]bool, len(jobs))
	var queue []int // arrival order: (arrival, index)
	var times []int64
	for _, j := range jobs {
		times = append(times, j.Arrival)
	}
	place := func(i int, blocked []bool) []int {
		var away []int
		for v := range n {
			if !in[jobs[i].Partition][v] || (blocked != nil && blocked[v]) {
				away = append(away, v)
			}
		}
		nodes, _, err := alloc.AllocateWithout(context.Background(), a, jobs[i].Procs, away, nil)
		if errors.Is(err, alloc.ErrNotEnoughFree) || errors.Is(err, alloc.ErrFragmented) {
			return nil
		}
		if err != nil {
			t.Fatalf("reference: job %d: %v", jobs[i].ID, err)
		}
		return nodes
	}
	unplace := func(nodes []int) {
		if err := a.Release(nodes); err != nil {
			t.Fatal(err)
		}
	}
	freeIn := func(x string, blocked []bool) int {
		c := 0
		for v := range n {
			if in[x][v] && owner[v] < 0 && (blocked == nil || !blocked[v]) {
				c++
			}
		}
		return c
	}
	type resv struct {
		part       string
		k          int
		start, end int64
	}
	// placedPass is EASY's pass with placed reservations.
	wa := refAlloc(t, spec, m) // the will-run test's, empty between tests
	placedPass := func(now int64, order []int, estEnd func(v int) int64) (int, []int) {
		type presv struct {
			start, end int64
			nodes      []int
		}
		var rs []presv
		has := map[string]bool{}
		for _, i := range order {
			x, k := canon[jobs[i].Partition], jobs[i].Procs
			if k <= freeIn(x, nil) {
				blocked := make([]bool, n)
				for _, h := range rs {
					if h.start < now+est(i) && now < h.end {
						for _, v := range h.nodes {
							blocked[v] = true
						}
					}
				}
				if nodes := place(i, blocked); nodes != nil {
					return i, nodes
				}
			}
			if has[x] {
				continue
			}
			has[x] = true
			window := max(est(i), 1)
			cands := []int64{now}
			for v := range n {
				if owner[v] >= 0 {
					cands = append(cands, estEnd(v))
				}
			}
			for _, h := range rs {
				cands = append(cands, h.end)
			}
			slices.Sort(cands)
			found := false
			for _, c := range cands {
				var away []int
				for v := range n {
					kept := false
					for _, h := range rs {
						if h.start < c+window && c < h.end && slices.Contains(h.nodes, v) {
							kept = true
						}
					}
					if !in[jobs[i].Partition][v] || (owner[v] >= 0 && estEnd(v) > c) || kept {
						away = append(away, v)
					}
				}
				nodes, _, err := alloc.AllocateWithout(context.Background(), wa, k, away, nil)
				if errors.Is(err, alloc.ErrNotEnoughFree) || errors.Is(err, alloc.ErrFragmented) {
					continue
				}
				if err != nil {
					t.Fatalf("reference: will-run test of job %d: %v", jobs[i].ID, err)
				}
				if err := wa.Release(nodes); err != nil {
					t.Fatal(err)
				}
				rs = append(rs, presv{c, c + window, nodes})
				found = true
				break
			}
			if !found {
				t.Fatalf("reference: no reservation for job %d", jobs[i].ID)
			}
		}
		return -1, nil
	}
	// pass returns the job to start now and its nodes, or -1.
	pass := func(now int64) (int, []int) {
		order := slices.Clone(queue)
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(tier(b), tier(a)) })
		if sched == SchedCplant {
			slices.SortStableFunc(order, func(a, b int) int {
				if c := cmp.Compare(tier(b), tier(a)); c != 0 {
					return c
				}
				if c := cmp.Compare(jobs[a].Procs, jobs[b].Procs); c != 0 {
					return c
				}
				return cmp.Compare(est(a), est(b))
			})
		}
		if sched != SchedEASY {
			failed := map[string]bool{}
			blocked := make([]bool, n)
			for _, i := range order {
				x := canon[jobs[i].Partition]
				if failed[x] {
					continue
				}
				if jobs[i].Procs <= freeIn(x, blocked) {
					if nodes := place(i, blocked); nodes != nil {
						return i, nodes
					}
				}
				failed[x] = true
				for v := range n {
					if in[x][v] {
						blocked[v] = true
					}
				}
			}
			return -1, nil
		}
		var rs []resv
		estEnd := func(v int) int64 { return max(start[owner[v]]+est(owner[v]), now) }
		if frag {
			return placedPass(now, order, estEnd)
		}
		// avail: the nodes of x free now or of a job ending by t, less what the
		// reservations running at t may take of x.
		avail := func(x string, t int64) int {
			c := 0
			for v := range n {
				if in[x][v] && (owner[v] < 0 || estEnd(v) <= t) {
					c++
				}
			}
			for _, h := range rs {
				if h.start <= t && t < h.end {
					c -= min(h.k, overlap(h.part, x))
				}
			}
			return c
		}
		// ok: a job taking use[y] of each partition y, from t for window
		// seconds, leaves every reservation starting then its k nodes (and has
		// its own k at t when own is set).
		ok := func(t, window int64, own string, k int, use map[string]int) bool {
			if own != "" && avail(own, t) < k {
				return false
			}
			if window <= 0 {
				return true
			}
			for _, h := range rs {
				if h.start >= t && h.start < t+window && avail(h.part, h.start) < use[h.part] {
					return false
				}
			}
			return true
		}
		has := map[string]bool{}
		for _, i := range order {
			x, k := canon[jobs[i].Partition], jobs[i].Procs
			if k <= freeIn(x, nil) {
				nodes := place(i, nil)
				if nodes == nil {
					t.Fatalf("reference: job %d fits by count and is refused", jobs[i].ID)
				}
				use := map[string]int{}
				for y := range canon {
					for _, v := range nodes {
						if in[y][v] {
							use[y]++
						}
					}
				}
				if ok(now, est(i), "", 0, use) {
					return i, nodes
				}
				unplace(nodes)
			}
			if has[x] {
				continue
			}
			has[x] = true
			window := max(est(i), 1)
			use := map[string]int{}
			for y := range canon {
				use[y] = min(k, overlap(x, y))
			}
			cands := []int64{now}
			for v := range n {
				if owner[v] >= 0 && estEnd(v) > now {
					cands = append(cands, estEnd(v))
				}
			}
			for _, h := range rs {
				if h.end > now {
					cands = append(cands, h.end)
				}
			}
			slices.Sort(cands)
			found := false
			for _, c := range cands {
				if ok(c, window, x, k, use) {
					rs = append(rs, resv{x, k, c, c + window})
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("reference: no reservation for job %d", jobs[i].ID)
			}
		}
		return -1, nil
	}
	done := 0
	for done < len(jobs) {
		slices.Sort(times)
		now := times[0]
		for len(times) > 0 && times[0] == now {
			times = times[1:]
		}
		for i := range jobs { // departures first
			if started[i] && start[i]+jobs[i].Runtime == now && nodesOf[i] != nil && owner[nodesOf[i][0]] == i {
				for _, v := range nodesOf[i] {
					owner[v] = -1
				}
				unplace(nodesOf[i])
				done++
			}
		}
		for i := range jobs {
			if jobs[i].Arrival == now && !arrived[i] {
				arrived[i] = true
				queue = append(queue, i)
			}
		}
		for {
			i, nodes := pass(now)
			if i < 0 {
				break
			}
			start[i], nodesOf[i], started[i] = now, nodes, true
			for _, v := range nodes {
				owner[v] = i
			}
			queue = slices.DeleteFunc(queue, func(q int) bool { return q == i })
			times = append(times, now+jobs[i].Runtime)
			if jobs[i].Runtime == 0 { // ends now: the next pass of now sees it gone
				times = append(times, now)
			}
		}
		if len(times) == 0 && done < len(jobs) {
			t.Fatalf("reference: %d of %d jobs done, nothing left to happen", done, len(jobs))
		}
	}
	for i := range nodesOf {
		nodesOf[i] = slices.Sorted(slices.Values(nodesOf[i]))
	}
	return start, nodesOf
}

// randomParts draws 2 to 4 overlapping partitions of m's n nodes.
func randomParts(rng *rand.Rand, n int) map[string][]int {
	parts := map[string][]int{}
	for p := range 2 + rng.IntN(3) {
		var nodes []int
		switch rng.IntN(3) {
		case 0: // a range
			lo := rng.IntN(n / 2)
			hi := lo + n/4 + rng.IntN(n-lo-n/4+1)
			for v := lo; v < hi; v++ {
				nodes = append(nodes, v)
			}
		case 1: // every node
			for v := range n {
				nodes = append(nodes, v)
			}
		default: // scattered
			for v := range n {
				if rng.IntN(2) == 0 {
					nodes = append(nodes, v)
				}
			}
		}
		if len(nodes) == 0 {
			nodes = []int{rng.IntN(n)}
		}
		parts[fmt.Sprintf("p%d", p)] = nodes
	}
	return parts
}

// refAlloc is a fresh allocator of spec: slurm:consec, or one of
// waitAllocator's (slurm:tree:t.conf, slurm:block:b.conf) with leaves or blocks
// of 4 nodes.
func refAlloc(t *testing.T, spec string, m topo.Machine) alloc.Allocator {
	t.Helper()
	if spec == "slurm:consec" {
		a, err := alloc.Parse(spec, m, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	return waitAllocator(t, spec, m, 4)
}

// placeable keeps the jobs that an allocator of spec places on their empty
// partition (the others would never start: Run refuses them, ErrNeverFits).
func placeable(t *testing.T, spec string, m topo.Machine, parts map[string][]int, jobs []Job) []Job {
	t.Helper()
	a := refAlloc(t, spec, m)
	var kept []Job
	for _, j := range jobs {
		var away []int
		for v := range m.N() {
			if !slices.Contains(parts[j.Partition], v) {
				away = append(away, v)
			}
		}
		nodes, _, err := alloc.AllocateWithout(context.Background(), a, j.Procs, away, nil)
		if err != nil {
			continue
		}
		if err := a.Release(nodes); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, j)
	}
	return kept
}

// randomPartJobs draws jobs in parts, arriving in bursts so that queues form;
// exact makes every estimate the run time.
func randomPartJobs(rng *rand.Rand, parts map[string][]int, count int, exact bool) []Job {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range parts {
			if !yield(k) {
				return
			}
		}
	})
	var jobs []Job
	at := int64(0)
	for i := range count {
		at += int64(rng.IntN(4)) * int64(rng.IntN(8))
		x := names[rng.IntN(len(names))]
		k := 1 + rng.IntN(min(len(parts[x]), 6))
		rt := int64(1 + rng.IntN(40))
		if rng.IntN(10) == 0 {
			rt = 0
		}
		est := rt + int64(rng.IntN(30))
		if exact {
			est = rt
		}
		jobs = append(jobs, Job{ID: i + 1, Line: i + 1, Arrival: at, Procs: k, Runtime: rt, Estimate: est, Partition: x})
	}
	return jobs
}

// TestPartitionSchedsMatchReference: hundreds of random histories of 2 to 4
// overlapping partitions on 16 nodes, each under FCFS, Cplant and EASY, started
// job by job at the reference's times on its nodes. The partitions have random
// PriorityTiers (1 to 3) in two histories of three, the same tier (1, Slurm's
// default, or another) in the third, each with the reference's tier-less replay.
func TestPartitionSchedsMatchReference(t *testing.T) {
	m := topo.Mesh(4, 4)
	rng := rand.New(rand.NewPCG(41, 42))
	histories := 300
	if testing.Short() {
		histories = 120
	}
	differ := 0 // histories whose tiers change a start
	refused := map[string]int{}
	for h := range histories {
		parts := randomParts(rng, m.N())
		jobs := randomPartJobs(rng, parts, 30+rng.IntN(50), rng.IntN(2) == 0)
		tiers := map[string]int{}
		same := 1 + rng.IntN(2)*4
		for name := range parts {
			tiers[name] = same
			if h%3 != 0 {
				tiers[name] = 1 + rng.IntN(3)
			}
		}
		changed := false
		for _, sched := range []Sched{SchedFCFS, SchedCplant, SchedEASY} {
			refTiers := tiers
			if h%3 == 0 {
				refTiers = nil // all equal: the replay without tiers
			}
			wantStart, wantNodes := refSched(t, m, "slurm:consec", parts, refTiers, jobs, sched)
			plainStart, _ := refSched(t, m, "slurm:consec", parts, nil, jobs, sched)
			changed = changed || !slices.Equal(wantStart, plainStart)
			a, _ := alloc.Parse("slurm:consec", m, alloc.Options{})
			res, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: a, Sched: sched, Metrics: MetricsSched, Partitions: parts, PartitionTiers: tiers})
			if err != nil {
				t.Fatalf("history %d, %s: %v", h, sched, err)
			}
			for i, r := range res.PerJob {
				got := slices.Sorted(slices.Values(r.Nodes))
				if r.Start != wantStart[i] || !slices.Equal(got, wantNodes[i]) {
					t.Fatalf("history %d (%v, tiers %v), %s: job %d (%s, %d nodes) starts at %d on %v, the reference at %d on %v", h, parts, tiers, sched, r.ID, r.Partition, r.Procs, r.Start, got, wantStart[i], wantNodes[i])
				}
			}
		}
		if changed {
			differ++
		}
		// Allocators that may refuse a job that fits by count, on the jobs
		// they place on their empty partition.
		for _, spec := range []string{"slurm:tree:t.conf", "slurm:block:b.conf"} {
			fj := placeable(t, spec, m, parts, jobs)
			for _, sched := range []Sched{SchedFCFS, SchedCplant, SchedEASY} {
				refTiers := tiers
				if h%3 == 0 {
					refTiers = nil
				}
				wantStart, wantNodes := refSched(t, m, spec, parts, refTiers, fj, sched)
				res, err := Run(context.Background(), fj, Config{Machine: m, Alloc: refAlloc(t, spec, m), Sched: sched, Metrics: MetricsSched, Partitions: parts, PartitionTiers: tiers})
				if err != nil {
					t.Fatalf("history %d, %s, %s: %v", h, spec, sched, err)
				}
				for i, r := range res.PerJob {
					got := slices.Sorted(slices.Values(r.Nodes))
					if r.Start != wantStart[i] || !slices.Equal(got, wantNodes[i]) {
						t.Fatalf("history %d (%v, tiers %v), %s, %s: job %d (%s, %d nodes) starts at %d on %v, the reference at %d on %v", h, parts, tiers, spec, sched, r.ID, r.Partition, r.Procs, r.Start, got, wantStart[i], wantNodes[i])
					}
					if sched == SchedEASY && r.WaitedForBlock {
						refused[spec]++
					}
				}
			}
		}
	}
	// The allocators must refuse jobs that fit by count under EASY, or the
	// placed reservations are little tested.
	for _, spec := range []string{"slurm:tree:t.conf", "slurm:block:b.conf"} {
		if refused[spec] < histories {
			t.Errorf("%s refuses %d jobs that fit by count under EASY in %d histories", spec, refused[spec], histories)
		}
	}
	t.Logf("jobs refused though they fit by count under EASY: %v", refused)
	// The tiers must matter in most histories of random tiers, or the test
	// checks little.
	if differ < histories/3 {
		t.Errorf("tiers change a start in %d of %d histories", differ, histories)
	}
	t.Logf("tiers change a start in %d of %d histories", differ, histories)
}

// TestPartitionSchedsInvariants: on random histories of overlapping
// partitions, no job runs on a node outside its partition or on a node another
// running job has; under FCFS no job starts before an earlier job of its
// partition; under EASY with exact run times the first waiting job of the
// queue always starts by the shadow time counted from the jobs running then
// (nothing started later delays it).
func TestPartitionSchedsInvariants(t *testing.T) {
	m := topo.Mesh(4, 4)
	n := m.N()
	rng := rand.New(rand.NewPCG(43, 44))
	for h := range 150 {
		parts := randomParts(rng, n)
		jobs := randomPartJobs(rng, parts, 60, true)
		for _, sched := range []Sched{SchedFCFS, SchedCplant, SchedEASY} {
			a, _ := alloc.Parse("slurm:consec", m, alloc.Options{})
			res, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: a, Sched: sched, Metrics: MetricsSched, Partitions: parts})
			if err != nil {
				t.Fatal(err)
			}
			rs := res.PerJob
			checkInPartitionsAlone(t, fmt.Sprintf("history %d, %s", h, sched), rs, parts)
			for i, r := range rs {
				for _, o := range rs[:i] {
					if sched == SchedFCFS && o.Partition == r.Partition && r.Start < o.Start {
						t.Fatalf("history %d, fcfs: job %d of %s starts at %d, before the earlier job %d at %d", h, r.ID, r.Partition, r.Start, o.ID, o.Start)
					}
				}
			}
			if sched != SchedEASY {
				continue
			}
			var times []int64
			for _, r := range rs {
				times = append(times, r.Arrival, r.Start, r.End)
			}
			slices.Sort(times)
			for _, now := range slices.Compact(times) {
				first := -1
				for i, r := range rs {
					if r.Arrival <= now && now < r.Start {
						first = i
						break
					}
				}
				if first < 0 {
					continue
				}
				hd := rs[first]
				// The head's shadow: the earliest end (or now) by which its
				// partition has its nodes, counting the jobs running at now.
				shadow := int64(-1)
				cands := []int64{now}
				for _, r := range rs {
					if r.Start <= now && now < r.End {
						cands = append(cands, r.End)
					}
				}
				slices.Sort(cands)
				for _, c := range cands {
					busy := 0
					for _, r := range rs {
						if r.Start <= now && now < r.End && r.End > c {
							for _, v := range r.Nodes {
								if slices.Contains(parts[hd.Partition], v) {
									busy++
								}
							}
						}
					}
					if len(parts[hd.Partition])-busy >= hd.Procs {
						shadow = c
						break
					}
				}
				if hd.Start > shadow {
					t.Fatalf("history %d, easy: job %d (first waiting at %d, %d nodes of %s) starts at %d, after its shadow time %d", h, hd.ID, now, hd.Procs, hd.Partition, hd.Start, shadow)
				}
			}
		}
	}
}

// TestPartitionSchedsOnePartition: every job in one partition (of some nodes
// or of all), replayed through the machinery of several partitions (a
// partition's queue, counts and mask), is the replay of one partition byte for
// byte, per job and summary, under FCFS, Cplant and EASY, on the first 3,000
// jobs of KTH-SP2 on 100 nodes and on LLNL-T3D's first 2,000 on 128; and the
// jobs split between two partitions of the same nodes give that replay too (partitions of the same nodes are one).
// With slurm:consec and with slurm:tree (waitAllocator's, leaves of 4 nodes;
// the jobs it places on the empty partition): EASY's placed
// reservations of several partitions (easy.passPlaced) are, with one, the one
// partition's will-run test and backfilling (backfillPlaced).
func TestPartitionSchedsOnePartition(t *testing.T) {
	for _, c := range []struct {
		trace string
		jobs  int
		m     topo.Machine
	}{
		{"testdata/KTH-SP2-1996-2.converted.txt.gz", 3000, topo.Mesh(10, 10)},
		{"testdata/LLNL-T3D-1996-2.converted.txt.gz", 2000, topo.Mesh(16, 8)},
	} {
		jobs := slices.Clone(loadTrace(t, c.trace).Jobs[:c.jobs])
		n := c.m.N()
		all := make([]int, n)
		for v := range all {
			all[v] = v
		}
		for _, c2 := range []struct {
			nodes []int
			spec  string
		}{{all, "slurm:consec"}, {all[n/8:], "slurm:consec"}, {all, "slurm:tree:t.conf"}, {all[n/8:], "slurm:tree:t.conf"}} {
			nodes, spec := c2.nodes, c2.spec
			part := map[string][]int{"batch": nodes}
			var in []Job
			for _, j := range jobs {
				if j.Procs <= len(nodes) {
					j.Partition = "batch"
					in = append(in, j)
				}
			}
			in = placeable(t, spec, c.m, part, in)
			split := slices.Clone(in)
			for i := range split {
				if i%3 == 0 {
					split[i].Partition = "long"
				}
			}
			var tiers map[string]int
			lastWaited := 0
			replay := func(sched Sched, jobs []Job, parts map[string][]int, perJob bool) []byte {
				a := refAlloc(t, spec, c.m)
				res, err := Run(context.Background(), jobs, Config{Machine: c.m, Alloc: a, Sched: sched, Partitions: parts, PartitionTiers: tiers, perJob: perJob})
				if err != nil {
					t.Fatalf("%s, %s: %v", c.trace, sched, err)
				}
				lastWaited = 0
				for i := range res.PerJob {
					res.PerJob[i].Partition = "" // the split's names
					if res.PerJob[i].WaitedForBlock {
						lastWaited++
					}
				}
				b, err := json.Marshal(struct {
					R     *Result
					Nodes [][]int
				}{res, nodesOf(res)})
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			waited := 0
			for _, sched := range []Sched{SchedFCFS, SchedCplant, SchedEASY} {
				want := replay(sched, in, part, false)
				if sched == SchedEASY {
					waited = lastWaited
				}
				if got := replay(sched, in, part, true); string(got) != string(want) {
					t.Errorf("%s on %d of %d nodes, %s, %s: the several-partition machinery changes the replay", c.trace, len(nodes), n, spec, sched)
				}
				two := map[string][]int{"batch": nodes, "long": nodes}
				if got := replay(sched, split, two, false); string(got) != string(want) {
					t.Errorf("%s on %d of %d nodes, %s, %s: two partitions of the same nodes change the replay", c.trace, len(nodes), n, spec, sched)
				}
				// Of one tier (not the default 1) too.
				tiers = map[string]int{"batch": 4, "long": 4}
				if got := replay(sched, split, two, false); string(got) != string(want) {
					t.Errorf("%s on %d of %d nodes, %s, %s: two partitions of the same nodes and tier change the replay", c.trace, len(nodes), n, spec, sched)
				}
				tiers = nil
			}
			if spec != "slurm:consec" {
				// The allocator refuses jobs that fit by count, or EASY's
				// will-run test is not exercised.
				if waited == 0 {
					t.Errorf("%s on %d of %d nodes, %s: no job of %d refused by EASY although it fit by count", c.trace, len(nodes), n, spec, len(in))
				}
				t.Logf("%s on %d of %d nodes, %s: %d jobs, %d refused by EASY although they fit by count", c.trace, len(nodes), n, spec, len(in), waited)
			}
		}
	}
}

func nodesOf(res *Result) [][]int {
	var out [][]int
	for _, r := range res.PerJob {
		out = append(out, r.Nodes)
	}
	return out
}

// TestPartitionSchedsRefusals: a job of a partition the replay lacks, or larger
// than its partition, is an error naming its line under every queue scheduler.
func TestPartitionSchedsRefusals(t *testing.T) {
	m := topo.Mesh(4, 4)
	parts := map[string][]int{"lower": {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "upper": {6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}
	jobs := []Job{
		{ID: 1, Line: 12, Procs: 2, Runtime: 5, Estimate: -1, Partition: "lower"},
		{ID: 2, Line: 13, Procs: 2, Runtime: 5, Estimate: -1, Partition: "upper"},
	}
	for _, sched := range []Sched{SchedFCFS, SchedCplant, SchedEASY} {
		a, _ := alloc.Parse("slurm:consec", m, alloc.Options{})
		bad := slices.Clone(jobs)
		bad[1].Partition = "gpu"
		if _, err := Run(context.Background(), bad, Config{Machine: m, Alloc: a, Sched: sched, Partitions: parts}); err == nil || !strings.Contains(err.Error(), `job 2 (line 13): partition "gpu" is not one of the replay's partitions (lower, upper)`) {
			t.Errorf("%s, unknown partition: %v", sched, err)
		}
		bad = slices.Clone(jobs)
		bad[1].Procs = 11
		if _, err := Run(context.Background(), bad, Config{Machine: m, Alloc: a, Sched: sched, Partitions: parts}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "job 2 (line 13) needs 11 processors, its partition upper has 10") {
			t.Errorf("%s, job larger than its partition: %v", sched, err)
		}
	}
}

// TestPartitionTiersByHand: two partitions of every node of 4, "low" of tier 1
// and "high" of tier 2. Job 1 (low, 4 nodes) runs from 0 to 10; job 2 (low, 2
// nodes) and job 3 (high, 4 nodes) wait. At 10 Slurm takes the higher tier
// first: job 3 runs from 10 to 20, then job 2 (under FCFS and Cplant, job 2
// would otherwise start at 10, being ahead by arrival; under EASY too, job 3's
// reservation being behind job 2). Without the tiers (or with equal ones) job 2
// starts at 10.
func TestPartitionTiersByHand(t *testing.T) {
	m := topo.Mesh(2, 2)
	all := []int{0, 1, 2, 3}
	parts := map[string][]int{"low": all, "high": all}
	jobs := []Job{
		{ID: 1, Line: 1, Arrival: 0, Procs: 4, Runtime: 10, Estimate: 10, Partition: "low"},
		{ID: 2, Line: 2, Arrival: 1, Procs: 2, Runtime: 10, Estimate: 10, Partition: "low"},
		{ID: 3, Line: 3, Arrival: 2, Procs: 4, Runtime: 10, Estimate: 10, Partition: "high"},
	}
	for _, sched := range []Sched{SchedFCFS, SchedCplant, SchedEASY} {
		for _, c := range []struct {
			tiers  map[string]int
			starts []int64
		}{
			{map[string]int{"low": 1, "high": 2}, []int64{0, 20, 10}},
			{map[string]int{"low": 2, "high": 2}, []int64{0, 10, 20}},
			{nil, []int64{0, 10, 20}},
		} {
			a, _ := alloc.Parse("slurm:consec", m, alloc.Options{})
			res, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: a, Sched: sched, Partitions: parts, PartitionTiers: c.tiers})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range res.PerJob {
				got = append(got, r.Start)
			}
			if !slices.Equal(got, c.starts) {
				t.Errorf("%s, tiers %v: starts %v, want %v", sched, c.tiers, got, c.starts)
			}
		}
	}
}

// TestPartitionSchedsPlacedHeadStartsByShadow: EASY of several partitions with
// slurm:tree and slurm:block (placed reservations, easy.passPlaced), on random
// histories of 2 to 4 overlapping partitions with exact estimates: every job
// runs on its partition's nodes, no node is given to two running jobs, and at
// every event the first waiting job starts by its shadow time, the first time
// (the event's or the end of a job running then) at which a fresh allocator
// places it on the nodes of its partition not held then: no job started later,
// of its partition or another, delays it.
func TestPartitionSchedsPlacedHeadStartsByShadow(t *testing.T) {
	m := topo.Mesh(4, 4)
	n := m.N()
	rng := rand.New(rand.NewPCG(45, 46))
	for h := range 60 {
		parts := randomParts(rng, n)
		jobs := randomPartJobs(rng, parts, 60, true)
		for _, spec := range []string{"slurm:tree:t.conf", "slurm:block:b.conf"} {
			fj := placeable(t, spec, m, parts, jobs)
			res, err := Run(context.Background(), fj, Config{Machine: m, Alloc: refAlloc(t, spec, m), Sched: SchedEASY, Metrics: MetricsSched, Partitions: parts})
			if err != nil {
				t.Fatalf("history %d, %s: %v", h, spec, err)
			}
			rs := res.PerJob
			checkInPartitionsAlone(t, fmt.Sprintf("history %d, %s", h, spec), rs, parts)
			wa := refAlloc(t, spec, m)
			var times []int64
			for _, r := range rs {
				times = append(times, r.Arrival, r.Start, r.End)
			}
			slices.Sort(times)
			for _, now := range slices.Compact(times) {
				first := slices.IndexFunc(rs, func(r JobResult) bool { return r.Arrival <= now && now < r.Start })
				if first < 0 {
					continue
				}
				hd := rs[first]
				cands := []int64{now}
				for _, r := range rs {
					if r.Start <= now && now < r.End {
						cands = append(cands, r.End)
					}
				}
				slices.Sort(cands)
				shadow := int64(-1)
				for _, c := range cands {
					var away []int
					for v := range n {
						held := !slices.Contains(parts[hd.Partition], v)
						for _, r := range rs {
							if r.Start <= now && now < r.End && r.End > c && slices.Contains(r.Nodes, v) {
								held = true
							}
						}
						if held {
							away = append(away, v)
						}
					}
					nodes, _, err := alloc.AllocateWithout(context.Background(), wa, hd.Procs, away, nil)
					if err == nil {
						if err := wa.Release(nodes); err != nil {
							t.Fatal(err)
						}
						shadow = c
						break
					}
				}
				if hd.Start > shadow {
					t.Fatalf("history %d, %s: job %d (first waiting at %d, %d nodes of %s) starts at %d, after its shadow time %d", h, spec, hd.ID, now, hd.Procs, hd.Partition, hd.Start, shadow)
				}
			}
		}
	}
}

// checkInPartitionsAlone checks that every job of a replay ran on nodes of its
// partition and that no two jobs that ran at once shared a node.
func checkInPartitionsAlone(t *testing.T, what string, rs []JobResult, parts map[string][]int) {
	t.Helper()
	for i, r := range rs {
		for _, v := range r.Nodes {
			if !slices.Contains(parts[r.Partition], v) {
				t.Fatalf("%s: job %d on node %d, outside its partition %s", what, r.ID, v, r.Partition)
			}
		}
		for _, o := range rs[:i] {
			if o.Start < r.End && r.Start < o.End && o.Start < o.End && r.Start < r.End {
				for _, v := range r.Nodes {
					if slices.Contains(o.Nodes, v) {
						t.Fatalf("%s: jobs %d and %d both on node %d", what, o.ID, r.ID, v)
					}
				}
			}
		}
	}
}

// TestWillRunInMemoIsTheTest: EASY of several partitions with slurm:tree and
// slurm:block reuses a front's placed reservation while its memo holds
// (placer.willRunIn, willRunInMemo.holds); on random histories of 2 to 4
// overlapping partitions, every reuse is checked against the will-run test run
// anew (checkRunInMemo: a difference fails the replay), and the memo must be
// used.
func TestWillRunInMemoIsTheTest(t *testing.T) {
	checkRunInMemo, runInMemoHits = true, 0
	defer func() { checkRunInMemo = false }()
	m := topo.Mesh(4, 4)
	rng := rand.New(rand.NewPCG(43, 44))
	histories := 200
	if testing.Short() {
		histories = 80
	}
	for h := range histories {
		parts := randomParts(rng, m.N())
		jobs := randomPartJobs(rng, parts, 30+rng.IntN(50), rng.IntN(2) == 0)
		tiers := map[string]int{}
		for name := range parts {
			tiers[name] = 1 + rng.IntN(2)
		}
		for _, spec := range []string{"slurm:tree:t.conf", "slurm:block:b.conf"} {
			fj := placeable(t, spec, m, parts, jobs)
			if _, err := Run(context.Background(), fj, Config{Machine: m, Alloc: refAlloc(t, spec, m), Sched: SchedEASY, Metrics: MetricsSched, Partitions: parts, PartitionTiers: tiers}); err != nil {
				t.Fatalf("history %d (%v, tiers %v), %s: %v", h, parts, tiers, spec, err)
			}
		}
	}
	if runInMemoHits < histories {
		t.Errorf("the memo was used %d times in %d histories", runInMemoHits, histories)
	}
	t.Logf("reservations reused and checked: %d", runInMemoHits)
}

// EASY's pass ends when the jobs left can neither start (their partition lacks
// the free nodes) nor reserve (their partition has its reservation): passEnd,
// from the queued jobs counted by size. Every pass that ends early checks each
// job it skips (checkPassEnd; an error fails the replay), on random histories
// of 2-4 overlapping partitions with tiers, and of one, with slurm:consec
// (counted reservations) and slurm:tree (placed ones, passPlaced; with one
// partition backfillPlaced). TestPartitionSchedsMatchReference checks the
// schedules against the reference that walks the whole queue.
func TestEASYPassEndSkipsNothing(t *testing.T) {
	checkPassEnd, passEndStops, passEndJobsLeft = true, 0, 0
	defer func() { checkPassEnd = false }()
	m := topo.Mesh(4, 4)
	rng := rand.New(rand.NewPCG(45, 46))
	histories := 120
	if testing.Short() {
		histories = 40
	}
	for h := range histories {
		parts := randomParts(rng, m.N())
		if h%4 == 0 {
			parts = map[string][]int{"all": parts[slices.Sorted(maps.Keys(parts))[0]]}
		}
		jobs := randomPartJobs(rng, parts, 30+rng.IntN(50), rng.IntN(2) == 0)
		tiers := map[string]int{}
		for _, name := range slices.Sorted(maps.Keys(parts)) { // the same histories every run
			tiers[name] = 1 + rng.IntN(2)
		}
		for _, spec := range []string{"slurm:consec", "slurm:tree:t.conf"} {
			fj := placeable(t, spec, m, parts, jobs)
			if _, err := Run(context.Background(), fj, Config{Machine: m, Alloc: refAlloc(t, spec, m), Sched: SchedEASY, Metrics: MetricsSched, Partitions: parts, PartitionTiers: tiers}); err != nil {
				t.Fatalf("history %d (%v, tiers %v), %s: %v", h, parts, tiers, spec, err)
			}
		}
	}
	if passEndStops < histories || passEndJobsLeft < histories {
		t.Errorf("%d passes ended early, %d jobs skipped in %d histories", passEndStops, passEndJobsLeft, histories)
	}
	t.Logf("passes ended early: %d, jobs skipped and checked: %d", passEndStops, passEndJobsLeft)
}
