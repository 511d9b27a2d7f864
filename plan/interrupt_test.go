package plan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

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
	for k, stop := range ctxtest.Stops(looks, 40) {
		if _, err := computeMachine(stop, opt.Machine, opt.Hosts, compute); !errors.Is(err, context.Canceled) {
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

// A deployment's build (the tree's topology.conf written and read back, the
// weights' slurm.conf: a second or two each at 10^5 hosts, in the slurm package's
// writers and readers, which take no context) did not stop on Ctrl-C: Make
// returned only once the build was over. Here the tree's build is held until the
// test lets it go, and the context is cancelled while it is held: buildDeployments
// must return context.Canceled meanwhile, with the deployments before the tree
// built and the tree not among them (before, it waited for the build: here for
// ever, so the test gives it 20 s).
func TestBuildDeploymentsStopsDuringABuild(t *testing.T) {
	p := &Plan{opt: sampleOptions(t, false)}
	p.opt.Weights, p.opt.Version = DefaultWeights(), DefaultVersion
	if err := p.checkInputs(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.order(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held, release := make(chan struct{}), make(chan struct{})
	buildStarted = func(k Kind) {
		if k == KindTree {
			close(held)
			<-release
		}
	}
	defer func() { buildStarted = nil }()
	returned := make(chan error, 1)
	go func() { returned <- p.buildDeployments(ctx, ctx) }()
	<-held
	cancel()
	select {
	case err := <-returned:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("buildDeployments still running 20 s after the context ended, waiting for the tree's build")
	}
	buildStarted = nil
	close(release)
	var built []Kind
	for _, d := range p.Deployments {
		built = append(built, d.Kind)
	}
	if want := kinds[:slices.Index(kinds, KindTree)]; !slices.Equal(built, want) {
		t.Errorf("built %v, want %v", built, want)
	}
	// Uncancelled, the builds run as before: every deployment.
	q := &Plan{opt: p.opt}
	if err := q.checkInputs(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := q.order(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if err := q.buildDeployments(ctx2, ctx2); err != nil || len(q.Deployments) != len(kinds) || !q.Deployment(KindTree).Supported {
		t.Fatalf("%v, %d deployments", err, len(q.Deployments))
	}
}

// Ctrl-C while a replay sets up (its emulator, its names' sort: about half a
// second at 10^5 hosts, in code that takes no context) ends the replays at once
// with the context's cause.
func TestReplayStopsDuringItsSetup(t *testing.T) {
	p := &Plan{opt: sampleOptions(t, true)}
	p.opt.Weights, p.opt.Version = DefaultWeights(), V2311
	ctx := context.Background()
	if err := p.checkInputs(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.order(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := p.buildDeployments(ctx, ctx); err != nil {
		t.Fatal(err)
	}
	for _, limited := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		held, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		hook := func(k Kind) {
			if k == KindTree {
				once.Do(func() { close(held) })
				<-release
			}
		}
		replaySetup.Store(&hook)
		rctx := ctx
		if limited { // with a deadline: every replay at once, in lockstep
			var c2 context.CancelFunc
			rctx, c2 = context.WithTimeout(ctx, time.Hour)
			defer c2()
		}
		returned := make(chan error, 1)
		go func() { returned <- p.replay(ctx, rctx) }()
		<-held
		cancel()
		select {
		case err := <-returned:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("limited %v: %v, want context.Canceled", limited, err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("limited %v: replay still running 20 s after the context ended, waiting for the tree's setup", limited)
		}
		replaySetup.Store(nil)
		close(release)
	}
}
