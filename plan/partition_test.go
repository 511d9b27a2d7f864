package plan

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// partJob is a job of a generated history: its partition, size, times and nodes.
type partJob struct {
	part          string
	k             int
	submit, start int64
	run           int64
	nodes         []int // 1-based node numbers (node01 is 1)
}

// partHistory draws n jobs in the partitions parts (name -> 1-based nodes) and
// places them as a Slurm keeping each in its partition could have: each starts
// at its submission or at the end of an earlier job, on random nodes of its
// partition that are free for its whole run.
func partHistory(rng *rand.Rand, n int, parts map[string][]int, names []string) []partJob {
	var jobs []partJob
	t := int64(0)
	for range n {
		part := names[rng.IntN(len(names))]
		pn := parts[part]
		j := partJob{part: part, k: 1 + rng.IntN(min(len(pn), 6)), submit: t, run: int64(60 + rng.IntN(600))}
		t += int64(rng.IntN(120))
		times := []int64{j.submit}
		for _, o := range jobs {
			if e := o.start + o.run; e > j.submit {
				times = append(times, e)
			}
		}
		slices.Sort(times)
		for _, s := range times {
			var free []int
			for _, v := range pn {
				busy := false
				for _, o := range jobs {
					if o.start < s+j.run && s < o.start+o.run && slices.Contains(o.nodes, v) {
						busy = true
						break
					}
				}
				if !busy {
					free = append(free, v)
				}
			}
			if len(free) >= j.k {
				rng.Shuffle(len(free), func(a, b int) { free[a], free[b] = free[b], free[a] })
				j.start, j.nodes = s, free[:j.k]
				slices.Sort(j.nodes)
				break
			}
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// sacctOf writes jobs as sacct -P output (UTC).
func sacctOf(t testing.TB, jobs []partJob) *sim.Trace {
	t.Helper()
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n")
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	stamp := func(s int64) string { return t0.Add(time.Duration(s) * time.Second).Format("2006-01-02T15:04:05") }
	for i, j := range jobs {
		var names []string
		for _, v := range j.nodes {
			names = append(names, fmt.Sprintf("node%02d", v))
		}
		hl, err := hostlist.Compress(names)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d|%s|%s|%s|%d|60|%d|%d|COMPLETED|%s|%s\n", 1000+i, stamp(j.submit), stamp(j.start), stamp(j.start+j.run), j.run, j.k, j.k, j.part, hl)
	}
	tr, err := sim.ReadTrace(strings.NewReader(b.String()), sim.ReadOptions{Format: "sacct", Location: time.UTC})
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return tr
}

// predictionsOutside returns, for every predictions file of p, the jobs whose
// predicted nodes are not all in want(job id).
func predictionsOutside(t *testing.T, p *Plan, want func(id int) (string, []string)) []string {
	t.Helper()
	var bad []string
	files := 0
	for _, f := range p.Files {
		if !strings.HasPrefix(f.Name, "predictions/") {
			continue
		}
		files++
		// The names deployment predicts under its new names: back to the hosts'.
		d := p.Deployment(Kind(strings.TrimSuffix(strings.TrimPrefix(f.Name, "predictions/"), ".csv")))
		host := map[string]string{}
		for i, n := range d.names {
			host[n] = p.Names[i]
		}
		rows, err := csv.NewReader(bytes.NewReader(f.Data)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows[1:] {
			id, _ := strconv.Atoi(row[0])
			hosts, err := hostlist.Expand(row[6])
			if err != nil {
				t.Fatal(err)
			}
			part, in := want(id)
			for _, h := range hosts {
				if !slices.Contains(in, host[h]) {
					bad = append(bad, fmt.Sprintf("%s: job %d of partition %s on %s", f.Name, id, part, row[6]))
					break
				}
			}
		}
	}
	if files == 0 {
		t.Fatal("no predictions")
	}
	return bad
}

func hostsOf(nodes []int) []string {
	var out []string
	for _, v := range nodes {
		out = append(out, fmt.Sprintf("node%02d", v))
	}
	return out
}

// Two overlapping partitions, main (every node, the default) and debug
// (node[13-16]): the jobs production ran in debug are predicted on debug's nodes
// under every deployment, where the replay over every host put them on the
// deployment's best nodes anywhere (before partitions were read, the weights and
// tree deployments placed the 2-node debug jobs of this history outside debug).
// The report counts the jobs of each partition.
func TestPartitionsOverlapping(t *testing.T) {
	parts := map[string][]int{"main": {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, "debug": {13, 14, 15, 16}}
	var jobs []partJob
	for i := range 12 {
		// debug jobs of 2 nodes alone on the machine, then main jobs of 4
		j := partJob{part: "debug", k: 2, submit: int64(1000 * i), start: int64(1000 * i), run: 100, nodes: []int{13, 14}}
		if i%2 == 1 {
			j.part, j.k, j.nodes = "main", 4, []int{1, 2, 3, 4}
		}
		jobs = append(jobs, j)
	}
	opt := sampleOptions(t, false)
	opt.SlurmConf = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=main Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE\nPartitionName=debug Nodes=node[13-16] OverSubscribe=EXCLUSIVE\n")
	opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
	opt.Version, opt.VersionSource = Version{Major: 26, Minor: 5}, "test"
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	bad := predictionsOutside(t, p, func(id int) (string, []string) {
		j := jobs[id-1000]
		return j.part, hostsOf(parts[j.part])
	})
	if len(bad) > 0 {
		t.Errorf("%d predictions outside the job's partition, e.g. %s", len(bad), bad[0])
	}
	got := p.Report.Workload.Partitions
	want := []PartitionJobs{{"main", 16, 6}, {"debug", 4, 6}}
	if !slices.Equal(got, want) {
		t.Errorf("report's partitions %+v, want %+v", got, want)
	}
	for _, d := range p.Report.Deployments {
		if d.Supported && d.Waited != 0 {
			t.Errorf("%s: %d jobs waited, on a machine that is empty at each start", d.Name, d.Waited)
		}
	}
}

// fourPartitions are four overlapping partitions of node01..node16 (1-based node
// numbers by name), all, debug (node[13-16]), left (node[01-10], the default) and
// right (node[07-16]), their names and their slurm.conf.
func fourPartitions() (parts map[string][]int, names []string, conf string) {
	parts = map[string][]int{"all": nil, "debug": {13, 14, 15, 16}, "left": {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "right": {7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
	for v := 1; v <= 16; v++ {
		parts["all"] = append(parts["all"], v)
	}
	names = []string{"all", "debug", "left", "right"}
	conf = "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\nPartitionName=all Nodes=ALL\n" +
		"PartitionName=debug Nodes=node[13-16]\nPartitionName=left Nodes=node[01-10] Default=YES\nPartitionName=right Nodes=node[07-16]\n"
	return parts, names, conf
}

// Brute force: random histories in four overlapping partitions (one the
// default), on the fat tree and on a torus, Slurm 22.05 and 26.05: under every
// deployment every predicted node list lies in its job's partition.
func TestPartitionsBruteForce(t *testing.T) {
	parts, names, conf := fourPartitions()
	torus, err := topo.ParseSpec("torus:4x2x2")
	if err != nil {
		t.Fatal(err)
	}
	hosts := hostsOf(parts["all"])
	seeds := 6
	if testing.Short() {
		seeds = 3
	}
	kinds := map[string]bool{}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		jobs := partHistory(rng, 40, parts, names)
		for _, ver := range []Version{{Major: 22, Minor: 5}, {Major: 26, Minor: 5}} {
			for _, onTorus := range []bool{false, true} {
				opt := Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: "fattree", SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
					TimeLimit: 10 * time.Second, Seed: 1, Version: ver, VersionSource: "test"}
				if onTorus {
					opt.Machine, opt.Hosts, opt.MachineSource = torus, hosts, "torus:4x2x2"
				}
				opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
				p, err := Make(context.Background(), opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range p.Report.Deployments {
					if d.Supported {
						kinds[d.Name] = true
					}
				}
				bad := predictionsOutside(t, p, func(id int) (string, []string) {
					j := jobs[id-1000]
					return j.part, hostsOf(parts[j.part])
				})
				if len(bad) > 0 {
					t.Fatalf("seed %d, Slurm %s, torus %v: %d predictions outside the job's partition, e.g. %s", seed, ver, onTorus, len(bad), bad[0])
				}
				// And a history that names no partition (SWF, converted): every
				// job in the default partition, left.
				var conv bytes.Buffer
				if err := sim.WriteConverted(&conv, opt.Trace.Jobs); err != nil {
					t.Fatal(err)
				}
				ctr, err := sim.ReadTrace(&conv, sim.ReadOptions{Format: "converted"})
				if err != nil {
					t.Fatal(err)
				}
				var fit []sim.Job
				for _, j := range ctr.Jobs {
					if j.Procs <= len(parts["left"]) {
						fit = append(fit, j)
					}
				}
				ctr.Jobs = fit
				opt.Trace = ctr
				p, err = Make(context.Background(), opt)
				if err != nil {
					t.Fatal(err)
				}
				bad = predictionsOutside(t, p, func(int) (string, []string) { return "left", hostsOf(parts["left"]) })
				if len(bad) > 0 {
					t.Fatalf("seed %d, Slurm %s, torus %v, no partitions: %d predictions outside the default partition, e.g. %s", seed, ver, onTorus, len(bad), bad[0])
				}
				if !slices.ContainsFunc(p.Report.Notes, func(s string) bool { return strings.Contains(s, "default partition left (10 compute hosts)") }) {
					t.Errorf("no note of the default partition: %q", p.Report.Notes)
				}
			}
		}
	}
	for _, k := range kinds_() {
		if !kinds[k] {
			t.Errorf("deployment %s never replayed", k)
		}
	}
}

func kinds_() []string {
	var out []string
	for _, k := range kinds {
		out = append(out, string(k))
	}
	return out
}

// A job whose recorded nodes are not in its partition is an input error naming its
// line; one whose partition slurm.conf lacks goes to the default partition with a
// warning counting it, unless its nodes are not there.
func TestPartitionsBadHistory(t *testing.T) {
	conf := []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=main Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE\nPartitionName=debug Nodes=node[13-16] OverSubscribe=EXCLUSIVE\n")
	mk := func(part string, nodes []int) (*Plan, error) {
		opt := sampleOptions(t, false)
		opt.SlurmConf = conf
		jobs := []partJob{{part: "main", k: 2, start: 0, run: 60, nodes: []int{1, 2}}, {part: part, k: len(nodes), submit: 100, start: 100, run: 60, nodes: nodes}}
		opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
		return Make(context.Background(), opt)
	}
	_, err := mk("debug", []int{12, 13})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "sacct.txt" || !strings.Contains(err.Error(), "line 3: job 1001 ran on node12, which is not in its partition debug") {
		t.Errorf("recorded node outside the partition: %v", err)
	}
	p, err := mk("gone", []int{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(p.Report.Warnings, func(s string) bool {
		return strings.Contains(s, "1 jobs of the history ran in partitions testdata/slurm.conf does not have (gone (line 3))")
	}) {
		t.Errorf("no warning of the unknown partition: %q", p.Report.Warnings)
	}
	// The default partition is debug now: the unknown partition's job ran outside it.
	conf = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=main Nodes=ALL OverSubscribe=EXCLUSIVE\nPartitionName=debug Nodes=node[13-16] Default=YES OverSubscribe=EXCLUSIVE\n")
	if _, err := mk("gone", []int{3, 4}); err == nil || !strings.Contains(err.Error(), "line 3: job 1001 ran in partition gone") {
		t.Errorf("unknown partition outside the default one: %v", err)
	}
}

// A history all in one partition smaller than the machine (its outside occupied
// for the whole replay, as-run's recorded placements included): every prediction
// in it.
func TestPartitionsOneSmall(t *testing.T) {
	opt := sampleOptions(t, false)
	opt.SlurmConf = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=main Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE\nPartitionName=debug Nodes=node[09-16] OverSubscribe=EXCLUSIVE\n")
	rng := rand.New(rand.NewPCG(5, 5))
	debug := []int{9, 10, 11, 12, 13, 14, 15, 16}
	jobs := partHistory(rng, 30, map[string][]int{"debug": debug}, []string{"debug"})
	opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
	opt.Version, opt.VersionSource = Version{Major: 26, Minor: 5}, "test"
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if bad := predictionsOutside(t, p, func(int) (string, []string) { return "debug", hostsOf(debug) }); len(bad) > 0 {
		t.Errorf("%d predictions outside debug, e.g. %s", len(bad), bad[0])
	}
	if got := p.Report.Workload.Partitions; !slices.Equal(got, []PartitionJobs{{"main", 16, 0}, {"debug", 8, 30}}) {
		t.Errorf("report's partitions %+v", got)
	}
}
