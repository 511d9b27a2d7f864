package plan

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// interruptMachine is a 32,768-host fat tree named n000001... with slurm.conf
// defining all but every 97th host: big enough that building the compute hosts'
// network takes a while (a second or more at 10^5 hosts under load), quick in -short.
func interruptMachine(t *testing.T) (Options, []int) {
	t.Helper()
	const spec = "fattree:16,16:16,16:16,16:8"
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, m.N())
	var compute []int
	var nodes []string
	for v := range names {
		names[v] = fmt.Sprintf("n%06d", v+1)
		if v%97 != 0 {
			compute = append(compute, v)
			nodes = append(nodes, names[v])
		}
	}
	hl, err := hostlist.Compress(nodes)
	if err != nil {
		t.Fatal(err)
	}
	conf := []byte("NodeName=" + hl + " CPUs=1\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE\n")
	return Options{Machine: m, MachineSource: spec, Hosts: names, SlurmConf: conf, SlurmConfPath: "slurm.conf",
		Weights: DefaultWeights(), Version: V2311, VersionSource: "test"}, compute
}

// Building the compute hosts' network (a --machine renamed by --hostlist, or a
// fabric with hosts slurm.conf lacks) looked at no context: at 10^5 hosts Ctrl-C
// there waited for procalloc's watchdog. Ended before it or at any of its looks,
// it returns context.Canceled; otherwise it builds the same network.
func TestComputeMachineStopsWhenCancelled(t *testing.T) {
	opt, compute := interruptMachine(t)
	count := ctxtest.NewCounting()
	want, err := computeMachine(count, opt.Machine, opt.Hosts, compute)
	if err != nil {
		t.Fatal(err)
	}
	if want.N() != len(compute) || want.Name(0) != opt.Hosts[compute[0]] {
		t.Fatalf("%d hosts, the first %s: want %d, %s", want.N(), want.Name(0), len(compute), opt.Hosts[compute[0]])
	}
	looks := count.Looks()
	if looks < 4 {
		t.Fatalf("computeMachine looked at its context %d times", looks)
	}
	for k := int64(0); k < looks; k += max(1, looks/40) {
		if _, err := computeMachine(ctxtest.StopAfter(k), opt.Machine, opt.Hosts, compute); !errors.Is(err, context.Canceled) {
			t.Fatalf("context ended at its look %d of %d: %v, want context.Canceled", k+1, looks, err)
		}
	}
	got, err := computeMachine(context.Background(), opt.Machine, opt.Hosts, compute)
	if err != nil {
		t.Fatal(err)
	}
	if got.Vertices() != want.Vertices() || got.Edges() != want.Edges() {
		t.Fatalf("%s, want %s", got.Spec(), want.Spec())
	}
}

// checkInputs (slurm.conf's nodes matched to the hosts, the compute hosts'
// network, the history) stops with context.Canceled wherever its context ends.
func TestCheckInputsStopsWhenCancelled(t *testing.T) {
	opt, _ := interruptMachine(t)
	count := ctxtest.NewCounting()
	if err := (&Plan{opt: opt}).checkInputs(count); err != nil {
		t.Fatal(err)
	}
	looks := count.Looks()
	if looks < 8 {
		t.Fatalf("checkInputs looked at its context %d times", looks)
	}
	// The looks before the compute hosts' network, two in it, the last four after.
	for _, k := range []int64{0, 1, 2, looks / 2, looks - 4, looks - 3, looks - 2, looks - 1} {
		if err := (&Plan{opt: opt}).checkInputs(ctxtest.StopAfter(k)); !errors.Is(err, context.Canceled) {
			t.Fatalf("context ended at its look %d of %d: %v, want context.Canceled", k+1, looks, err)
		}
	}
}
