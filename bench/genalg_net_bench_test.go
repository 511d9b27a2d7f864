package bench

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/topo"
)

// genalgNetworks are the networks BenchmarkGenAlgNetworkDecision times: fat trees of
// merlin's shape at 4,096, 32,768 and 131,072 hosts (16 hosts a leaf, 16 leaves a
// pod) and dragonflies of 10,240 hosts (2,560 routers: the hop index's key table) and
// 100,352 hosts (12,544 routers: no table), then both at 2 x 10^5 hosts (196,608
// and 199,680), and the 131,072-host fat tree read from an ibnetdiscover dump;
// "scattered:SPEC" is SPEC with a random half of its hosts free (scatteredFree)
// instead of a stream's (fragmentedFree).
var genalgNetworks = []string{
	"fattree:16,16:16,16:16",
	"fattree:16,16:16,16:128",
	"fattree:16,16:16,16:16,16:32",
	"dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=4,num_groups=80",
	"dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=196",
	"fattree:16,16:16,16:16,16:48",
	"dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=390",
	"dump:fattree:16,16:16,16:16,16:32",
	"scattered:dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=4,num_groups=80",
	"scattered:dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=196",
}

// genalgMachine is the network of spec; "dump:SPEC" is SPEC written as an
// ibnetdiscover dump (hosts n000000...) and read back: a fat tree on the generic
// key-table path, its hosts in the file's (name) order.
func genalgMachine(b *testing.B, spec string) topo.Machine {
	spec, _ = strings.CutPrefix(spec, "scattered:")
	inner, dump := strings.CutPrefix(spec, "dump:")
	m, err := topo.ParseMachine(inner)
	if err != nil {
		b.Fatal(err)
	}
	if !dump {
		return m
	}
	var buf bytes.Buffer
	d := fabrictest.Dump{Graph: m.(*topo.Graph), Ports: 40, HostName: func(v int) string { return fmt.Sprintf("n%06d", v) }}
	if err := fabrictest.WriteDump(&buf, d, fabrictest.IBNetDiscover); err != nil {
		b.Fatal(err)
	}
	g, err := topo.ReadIBNetDiscover(&buf, nil)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// fragmentedFree is the free set a stream of jobs leaves: jobs of log-uniform sizes
// 1..n/64 placed by freelist:rcm (consecutive along the network's RCM order) until
// 75% of the hosts are busy, then a random half of them ended (seeded): a few
// hundred jobs, the free hosts scattered over most leaves and routers.
func fragmentedFree(b *testing.B, m topo.Machine) ([]int, int) {
	fl, err := alloc.Parse("freelist:rcm", m, alloc.Options{})
	if err != nil {
		b.Fatal(err)
	}
	n := m.N()
	rng := rand.New(rand.NewPCG(3, 4))
	maxLog := bits.Len(uint(n/64)) - 1
	var jobs [][]int
	for fl.NumFree() > n/4 {
		size := 1 << rng.IntN(maxLog+1)
		size = min(size+rng.IntN(size), fl.NumFree()-n/4)
		nodes, err := fl.Allocate(max(size, 1))
		if err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, nodes)
	}
	rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs[:len(jobs)/2] {
		if err := fl.Release(j); err != nil {
			b.Fatal(err)
		}
	}
	free, err := fl.Allocate(fl.NumFree())
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(free)
	return free, len(jobs)
}

// scatteredFree is a random half of the hosts (seeded): every router with about
// half its hosts free and few with all, the state least favourable to genalg's
// per-router bound on a dragonfly (a router's candidate then spans many routers,
// none of them whole), where fragmentedFree leaves runs of whole free routers.
func scatteredFree(m topo.Machine) []int {
	rng := rand.New(rand.NewPCG(5, 6))
	free := rng.Perm(m.N())[:m.N()/2]
	slices.Sort(free)
	return free
}

// BenchmarkGenAlgNetworkDecision times one genalg decision (Allocate(k) and the
// Release of its hosts) on a network at 50% occupancy after a stream of jobs
// (fragmentedFree) or at random (scatteredFree), the state the same before every
// iteration.
//
//	go test -run '^$' -bench GenAlgNetworkDecision -benchtime 3x ./bench
func BenchmarkGenAlgNetworkDecision(b *testing.B) {
	for _, spec := range genalgNetworks {
		for _, k := range []int{16, 256, 4096, 10000} {
			b.Run(fmt.Sprintf("%s/k=%d", spec, k), func(b *testing.B) {
				m := genalgMachine(b, spec)
				var free []int
				var jobs int
				if strings.HasPrefix(spec, "scattered:") {
					free = scatteredFree(m)
				} else {
					free, jobs = fragmentedFree(b, m)
				}
				a, err := alloc.Parse("genalg", m, alloc.Options{NoMemo: true})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := a.Allocate(m.N()); err != nil { // every host, then the free ones back
					b.Fatal(err)
				}
				if err := a.Release(free); err != nil {
					b.Fatal(err)
				}
				if k > len(free) {
					b.Skip("more hosts than free")
				}
				// The looks at the context in one decision (ns/op / looks: the mean
				// time between them, how soon Ctrl-C stops a decision).
				counting := ctxtest.NewCounting()
				nodes, err := a.(alloc.ContextAllocator).AllocateContext(counting, k)
				if err != nil {
					b.Fatal(err)
				}
				if err := a.Release(nodes); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				cpu0 := cpuNanos(syscall.RUSAGE_SELF)
				for b.Loop() {
					nodes, err := a.Allocate(k)
					if err != nil {
						b.Fatal(err)
					}
					if err := a.Release(nodes); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuNanos(syscall.RUSAGE_SELF)-cpu0)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(len(free)), "free")
				b.ReportMetric(float64(jobs), "jobs")
				b.ReportMetric(float64(counting.Looks()), "looks")
			})
		}
	}
}

// cpuNanos is the user and system CPU time, in nanoseconds, of the process
// (syscall.RUSAGE_SELF: every thread, the collector's too) or of the calling
// thread (syscall.RUSAGE_THREAD, with runtime.LockOSThread): on the shared VM the
// CPU the code took, which the wall time mixes with other processes' load.
func cpuNanos(who int) int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(who, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
