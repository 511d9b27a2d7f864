package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// ResolveContext stops reading a GraphFile when its context ends (a topology.conf
// of 10^5 hosts took 1-2 s: sim and compare --graph waited for the CLI's watchdog),
// returns the cause and leaves the spec as it was; a live context resolves it.
func TestResolveContextStopsReadingTheGraph(t *testing.T) {
	var b strings.Builder
	for l := range 1024 {
		fmt.Fprintf(&b, "SwitchName=leaf%d Nodes=n[%05d-%05d]\n", l, 16*l, 16*l+15)
	}
	b.WriteString("SwitchName=top Switches=leaf[0-1023]\n")
	path := filepath.Join(t.TempDir(), "topology.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	s := Spec{GraphFile: path}
	if _, err := s.ResolveContext(ctx); !errors.Is(err, stop) {
		t.Fatalf("ResolveContext with a cancelled context: %v, want its cause", err)
	}
	var fe *FileError
	if _, err := s.ResolveContext(ctx); errors.As(err, &fe) {
		t.Fatalf("an interrupt reported as the file's fault: %v", err)
	}
	if s.Machine != nil || s.GraphFile != path {
		t.Fatalf("a stopped ResolveContext changed the spec: machine %v, GraphFile %q", s.Machine, s.GraphFile)
	}
	if _, err := s.ResolveContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Machine == nil || s.Machine.N() != 16384 || s.GraphFile != "" {
		t.Fatalf("resolved: machine %v, GraphFile %q", s.Machine, s.GraphFile)
	}
}

// A MachineSpec's fat tree or dragonfly is built under the context too: a
// cancelled one returns its cause, not a *FieldError blaming the spec, and
// leaves the spec as it was.
func TestResolveContextStopsBuildingTheMachine(t *testing.T) {
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	for _, spec := range []string{"fattree:16,16:16,16:32", "dragonfly:hosts_per_router=4,routers_per_group=16,intergroup_links=2,num_groups=64"} {
		s := Spec{MachineSpec: spec}
		_, err := s.ResolveContext(ctx)
		var fe *FieldError
		if !errors.Is(err, stop) || errors.As(err, &fe) {
			t.Fatalf("%s: ResolveContext with a cancelled context: %v, want its cause alone", spec, err)
		}
		if s.Machine != nil || s.MachineSpec != spec {
			t.Fatalf("%s: a stopped ResolveContext changed the spec", spec)
		}
		if _, err := s.ResolveContext(context.Background()); err != nil || s.Machine == nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
}

// The trace is read under the context: a cancelled one returns its cause, not
// an error naming the file; a live one reads the trace ReadTrace reads.
func TestReadTraceContextStops(t *testing.T) {
	s := Spec{Trace: "testdata/sacct-fattree.txt"}
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if tr, err := s.ReadTraceContext(ctx); err != stop || tr != nil {
		t.Fatalf("a cancelled context: trace %v, error %v; want none and the cause alone", tr != nil, err)
	}
	want, err := s.ReadTrace()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ReadTraceContext(context.Background())
	if err != nil || len(got.Jobs) != len(want.Jobs) || len(got.Jobs) == 0 {
		t.Fatalf("%v: %d jobs, want %d", err, len(got.Jobs), len(want.Jobs))
	}
}

// The replay's meter (a network's adjacency and each host's one switch, a grid's
// coordinates and neighbours: a tenth of a second or more at 10^5 hosts) is
// built under the replay's context: ended before or at any of its looks, it
// returns context.Canceled.
func TestNewMeterStopsWhenCancelled(t *testing.T) {
	ft, err := topo.FatTree("16,16:16,16:32")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []topo.Machine{ft, topo.Torus(128, 128)} {
		count := ctxtest.NewCounting()
		if mt, err := newMeter(count, m, alloc.CompatDefault, nil, true); err != nil || mt == nil {
			t.Fatalf("%s: %v", m.Spec(), err)
		}
		looks := count.Looks()
		if min := int64(m.N() / meterEvery); looks < min {
			t.Fatalf("%s: %d looks, want at least %d", m.Spec(), looks, min)
		}
		for k := range looks {
			if mt, err := newMeter(ctxtest.StopAfter(k), m, alloc.CompatDefault, nil, true); !errors.Is(err, context.Canceled) || mt != nil {
				t.Fatalf("%s: ended at look %d of %d: meter %v, error %v", m.Spec(), k+1, looks, mt != nil, err)
			}
		}
	}
}

// A Hostlist is expanded under the context (10^5 names took 60-70 ms with no look):
// a cancelled one returns its cause, not a *FileError blaming the expression (which
// the CLI reports as a usage error), and leaves the spec as it was.
func TestResolveContextStopsExpandingTheHostlist(t *testing.T) {
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	m, err := topo.ParseMachine("torus:64x64x32")
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{Machine: m, Hostlist: "n[000001-131072]"}
	_, err = s.ResolveContext(ctx)
	var fe *FileError
	if !errors.Is(err, stop) || errors.As(err, &fe) {
		t.Fatalf("ResolveContext with a cancelled context: %v, want its cause alone", err)
	}
	if s.Hosts != nil || s.Hostlist == "" {
		t.Fatalf("a stopped ResolveContext changed the spec: %d hosts, Hostlist %q", len(s.Hosts), s.Hostlist)
	}
	if _, err := s.ResolveContext(context.Background()); err != nil || len(s.Hosts) != 131072 || s.Hosts[131071] != "n131072" {
		t.Fatalf("resolved: %d hosts, %v", len(s.Hosts), err)
	}
}

// Replay.Run builds its allocator under its context (bf:rcm's curve on the
// 131,072-host fat tree took a tenth of a second or more with no look): a
// cancelled one returns alloc.Parse's error, naming the allocator and wrapping
// the cause, and no report, not a *FieldError blaming the spec; Config, without a
// context, builds it as before.
func TestRunStopsBuildingTheAllocator(t *testing.T) {
	s := DefaultSpec()
	s.MachineSpec, s.Alloc, s.Trace = "mesh:16x16", "bf:rcm", "testdata/LLNL-T3D-1996-2.converted.txt.gz"
	rp, err := s.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	rep, err := rp.Run(ctx)
	var fe *FieldError
	if !errors.Is(err, stop) || errors.As(err, &fe) || rep != nil || !strings.Contains(err.Error(), `allocator "bf:rcm"`) {
		t.Fatalf("Run with a cancelled context: report %v, error %v; want none and the allocator's error wrapping the cause", rep != nil, err)
	}
	if _, err := rp.Config(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// compare checked every allocator with Replay.Config, which built it without a
// context, and the files slurm:tree:FILE, slurm:block:FILE and a ranking file name
// were read without one (1.7 s for slurm:tree on a 131,072-host fat tree). Config
// with a cancelled context returns an error that wraps the cause and names the
// allocator, not a *FieldError (the spec is not at fault), for each of these
// specs; with a live one the configuration it gave before.
func TestConfigStopsReadingTheAllocatorsFiles(t *testing.T) {
	dir := t.TempDir()
	m, err := topo.ParseMachine("fattree:8,4:8")
	if err != nil {
		t.Fatal(err)
	}
	o := curves.Order(make([]int, m.N()))
	for i := range o {
		o[i] = m.N() - 1 - i
	}
	names := curves.NodeNames(m)
	var tree, block, ranking bytes.Buffer
	if _, err := slurm.WriteTopology(&tree, m, o, names); err != nil {
		t.Fatal(err)
	}
	if err := slurm.WriteBlock(&block, o, names, 8); err != nil {
		t.Fatal(err)
	}
	if err := curves.WriteRanking(&ranking, curves.FormatHosts, o, curves.RankingMeta{}, names); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tree.conf": tree.Bytes(), "block.conf": block.Bytes(), "r.hosts": ranking.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, spec := range []string{"slurm:tree:tree.conf", "slurm:block:block.conf", "bf:r.hosts", "slurm:consec:r.hosts"} {
		s := DefaultSpec()
		s.MachineSpec, s.Alloc, s.Dir = "fattree:8,4:8", spec, dir
		s.Trace, _ = filepath.Abs("testdata/LLNL-T3D-1996-2.converted.txt.gz")
		s.DropLarger = true
		rp, err := s.Prepare()
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		stop := errors.New("interrupted")
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(stop)
		_, err = rp.Config(ctx)
		var fe *FieldError
		if !errors.Is(err, stop) || errors.As(err, &fe) || !strings.Contains(err.Error(), `allocator "`+spec+`"`) {
			t.Fatalf("%s: Config with a cancelled context: %v; want the allocator's error wrapping the cause", spec, err)
		}
		if cfg, err := rp.Config(context.Background()); err != nil || cfg.Alloc == nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
}
