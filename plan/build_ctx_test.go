package plan

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// buildSite is a fat tree of 32,768 hosts (4,096 in -short) named n000001...,
// every one in slurm.conf, with a partition that lists them (the names build
// renames the list), its inputs checked and an ordering that is not name order
// (reversed, so that the tree's build for Slurm 23.11 rewrites the NodeName lines
// too), and its current configuration built.
func buildSite(t *testing.T) (*Plan, *Deployment) {
	t.Helper()
	spec, m := largeFatTree(t)
	names := make([]string, m.N())
	for v := range names {
		names[v] = fmt.Sprintf("n%06d", v+1)
	}
	hl, err := hostlist.Compress(names)
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("NodeName=%s CPUs=1\nPartitionName=all Nodes=%s OverSubscribe=EXCLUSIVE\n", hl, hl)
	p := &Plan{opt: Options{Machine: m, MachineSource: spec, Hosts: names, SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
		Weights: DefaultWeights(), Version: V2311, VersionSource: "test"}}
	if err := p.checkInputs(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.Order = make(curves.Order, len(p.Names))
	for i := range p.Order {
		p.Order[i] = len(p.Order) - 1 - i
	}
	cur := &Deployment{Kind: KindCurrent, plan: p, names: p.Names, Supported: true}
	if err := p.build(context.Background(), cur, nil); err != nil {
		t.Fatal(err)
	}
	return p, cur
}

// The names, tree and block builds looked at their context once, as they
// started: at 10^5 hosts a build the time limit (or Ctrl-C) abandoned ran on to
// its end in the background (the tree's 1.3 s; 13 s before its NodeName lines'
// rewrite was made linear, below). Each now looks every 4,096 nodes or names of
// the files it writes and reads back: ended before it or at any of its looks, it
// returns the context's cause; live, it builds.
func TestBuildsStopWhenCancelled(t *testing.T) {
	p, cur := buildSite(t)
	n := int64(len(p.Names))
	for _, k := range []Kind{KindWeights, KindNames, KindTree, KindBlock} {
		count := ctxtest.NewCounting()
		d := &Deployment{Kind: k, plan: p, names: p.Names, Supported: true}
		if err := p.build(count, d, cur); err != nil || !d.Supported || d.SlurmConf == nil {
			t.Fatalf("%s: %v, supported %v (%s), slurm.conf written %v", k, err, d.Supported, d.Why, d.SlurmConf != nil)
		}
		looks := count.Looks()
		// Beside the first, at least a look per 4,096 nodes of slurm.conf's
		// edit (the weights' in MergeWeightsConf), and for names and tree one
		// more per 4,096 of their other steps over every node (the names chosen;
		// the topology.conf written and read back).
		want := 1 + n/ctxEvery
		if k == KindNames || k == KindTree {
			want += n / ctxEvery
		}
		if looks < want {
			t.Errorf("%s: %d looks at its context for %d hosts, want at least %d", k, looks, n, want)
		}
		for at, stop := range ctxtest.Stops(looks, 20) {
			d := &Deployment{Kind: k, plan: p, names: p.Names, Supported: true}
			if err := p.build(stop, d, cur); !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: ended at its look %d of %d: %v, want context.Canceled", k, at+1, looks, err)
			}
		}
	}
}

// reachedAt is a build context that the plan's time limit ends (really: its Done
// closes) at the look at of the build of kind k, counted from that build's start.
type reachedAt struct {
	context.Context
	stop    context.CancelCauseFunc
	looks   atomic.Int64
	counted atomic.Bool
	at      int64
}

func (c *reachedAt) Err() error {
	if c.counted.Load() && c.looks.Add(1) == c.at {
		c.stop(timelimit.Reached{Name: "plan time limit", Limit: time.Minute})
	}
	return c.Context.Err()
}

// A build the time limit abandons stops too: ended in the middle of the tree's
// build, Make returns at once with the tree "not built ... during its build",
// and the abandoned build returns the limit's cause soon after (before, it ran
// on to its end: the tree was built, 13 s at 131,072 hosts, the limit unseen),
// leaving no goroutine of plan's behind.
func TestAbandonedBuildStops(t *testing.T) {
	p, cur := buildSite(t)
	count := ctxtest.NewCounting()
	if err := p.build(count, &Deployment{Kind: KindTree, plan: p, names: p.Names, Supported: true}, cur); err != nil {
		t.Fatal(err)
	}
	at := count.Looks() / 2
	opt := p.opt
	opt.TimeLimit, opt.SyntheticJobs = -1, 100 // no deadline: the hook ends the builds
	ended := make(chan error, len(kinds))
	bctx := &reachedAt{at: at}
	buildContext = func(ctx context.Context) (context.Context, context.CancelFunc) {
		bctx.Context, bctx.stop = context.WithCancelCause(ctx)
		return bctx, func() { bctx.stop(context.Canceled) }
	}
	replayContext = func(context.Context) (context.Context, context.CancelFunc) { return bctx, func() {} } // one deadline
	buildStarted = func(k Kind) { bctx.counted.Store(k == KindTree) }
	buildEnded = func(k Kind, err error) {
		if k == KindTree {
			ended <- err
		}
	}
	defer func() { buildContext, replayContext, buildStarted, buildEnded = nil, nil, nil, nil }()
	before := ctxtest.Goroutines()
	plan, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	reached := timelimit.Reached{Name: "plan time limit", Limit: time.Minute}
	if d := plan.Deployment(KindTree); d.Supported || d.Why != "not built: "+reached.Error()+" during its build" {
		t.Fatalf("tree: supported %v, %q; want not built during its build (the limit at its look %d)", d.Supported, d.Why, at)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, reached) {
			t.Errorf("the abandoned tree's build returned %v, want the time limit's cause", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the abandoned tree's build still running 20 s after Make returned")
	}
	if left := ctxtest.Leaked(before, 5*time.Second); len(left) > 0 {
		t.Errorf("%d goroutines left after Make:\n%s", len(left), strings.Join(left, "\n"))
	}
	if !slices.Equal(plan.unbuilt, []Kind{KindTree, KindBlock}) {
		t.Errorf("not built: %v, want tree, block", plan.unbuilt)
	}
}

// Checking the inputs was outside the time limit (a second or two at 10^5
// hosts, more under load: a plan given --time-limit 6s ran 9.4 s). It stops at
// the limit now, and that is an error: nothing can be planned without them, so
// Make returns no plan and an error that says the limit came while the inputs
// were checked and that nothing was planned, the limit's cause (a deadline, not
// an interruption).
func TestPlanTimeLimitWhileCheckingInputs(t *testing.T) {
	opt, _ := interruptMachine(t)
	opt.TimeLimit = time.Hour
	count := ctxtest.NewCounting()
	if err := (&Plan{opt: opt}).checkInputs(count); err != nil {
		t.Fatal(err)
	}
	looks := count.Looks()
	for _, at := range []int64{1, 2, looks / 2, looks - 1, looks} {
		c := &reachedAt{at: at}
		c.counted.Store(true)
		checkContext = func(ctx context.Context) (context.Context, context.CancelFunc) {
			c.Context, c.stop = context.WithCancelCause(ctx)
			return c, func() { c.stop(context.Canceled) }
		}
		p, err := Make(context.Background(), opt)
		checkContext = nil
		want := "plan time limit 1m0s reached while checking the inputs (slurm.conf's nodes, the hosts matched to them, the compute hosts' network, the history): nothing planned"
		if p != nil || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("the limit at look %d of %d: plan %v, error %v; want no plan and %q", at, looks, p != nil, err, want)
		}
	}
}

// Options.Start is the moment the time limit counts from (procalloc plan gives the
// moment it began to read the input files): a Start whose limit has passed while
// the caller read the inputs ends Make in the inputs' checks, with their error,
// not a plan whose limit restarts at Make.
func TestPlanTimeLimitCountsFromStart(t *testing.T) {
	opt, _ := interruptMachine(t)
	opt.TimeLimit = time.Minute
	opt.Start = time.Now().Add(-2 * time.Minute)
	p, err := Make(context.Background(), opt)
	want := "plan time limit 1m0s reached while checking the inputs"
	if p != nil || !errors.Is(err, context.DeadlineExceeded) || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Start 2m before Make, limit 1m: plan %v, error %v; want no plan and %q", p != nil, err, want)
	}
}

// rankedTree (the tree deployment's SwitchAsNodeRank names, 0.2 s at 196,608
// hosts under load) looked at no context. It looks at least once per 4,096 nodes
// of each of its four passes (the leaves' nodes, the nodes' ranks, the new names,
// the leaves renamed) and its sort's; ended at any look, or cancelled before, it
// returns context.Canceled; live, the names and tree of a context that never ends.
func TestRankedTreeStopsWhenCancelled(t *testing.T) {
	n := 32768
	if testing.Short() {
		n = 8192
	}
	var conf strings.Builder
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%06d", i)
	}
	for l := 0; l < n/32; l++ {
		fmt.Fprintf(&conf, "SwitchName=l%d Nodes=n[%06d-%06d]\n", l, 32*l, 32*l+31)
	}
	fmt.Fprintf(&conf, "SwitchName=top Switches=l[0-%d]\n", n/32-1)
	tr, err := slurm.ParseTree(strings.NewReader(conf.String()))
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]int, n) // NodeName lines in reverse name order
	for i := range lines {
		lines[i] = n - 1 - i
	}
	p := &Plan{Names: names}
	want := &Deployment{}
	if err := p.rankedTree(context.Background(), want, tr, lines); err != nil {
		t.Fatal(err)
	}
	count := ctxtest.NewCounting()
	got := &Deployment{}
	if err := p.rankedTree(count, got, tr, lines); err != nil || !slices.Equal(got.cfg.Names, want.cfg.Names) || !reflect.DeepEqual(got.cfg.Tree, want.cfg.Tree) {
		t.Fatalf("live: %v, or names and tree not those of context.Background()", err)
	}
	looks := count.Looks()
	if min := int64(5 * n / ctxEvery); looks < min {
		t.Fatalf("%d looks for %d hosts, want at least %d (each pass and the sort)", looks, n, min)
	}
	for at, stop := range ctxtest.Stops(looks, 20) {
		if err := p.rankedTree(stop, &Deployment{}, tr, lines); !errors.Is(err, context.Canceled) {
			t.Fatalf("ended at its look %d of %d: %v, want context.Canceled", at+1, looks, err)
		}
	}
}

// largeFatTree is the tests' large fabric: a 32,768-host fat tree (4,096 with
// -short), and its spec.
func largeFatTree(t *testing.T) (string, *topo.Graph) {
	t.Helper()
	spec := "fattree:16,16:16,16:16,16:8"
	if testing.Short() {
		spec = "fattree:16,16:16,16:16"
	}
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	return spec, m.(*topo.Graph)
}
