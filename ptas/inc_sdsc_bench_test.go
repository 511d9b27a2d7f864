package ptas_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/bench"
	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/ptas"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// swapCase is one fresh decision of an mminc replay: k, the free set (a bitmap
// over the nodes) and MM's answer, the swaps' start.
type swapCase struct {
	K     int
	Free  []uint64
	Start []int
}

// recordSwapCases replays w as the mminc allocator does (free nodes in free-list
// order, MM under TiesByIndex with the lattice floor, then the swaps; a request on
// a free set met before is answered from memory) and returns the fresh decisions
// with MM's answers, and the number of decisions in all.
func recordSwapCases(b *testing.B, g *topo.Grid, w bench.Workload) ([]swapCase, int) {
	b.Helper()
	n := g.N()
	order := alloc.FreeListOrder(g)
	coord := make([][]int, n)
	for i := range coord {
		coord[i] = []int(g.Coord(i, nil))
	}
	st := alloc.NewState(n)
	held := make([][]int, w.Jobs)
	seen := map[string][]int{}
	var cases []swapCase
	decisions := 0
	var fl []int
	for _, op := range w.Ops {
		if op.Release {
			if err := st.Release(held[op.Job]); err != nil {
				b.Fatal(err)
			}
			continue
		}
		k := int(op.Procs)
		decisions++
		fl = st.AppendFreeInOrder(fl[:0], order)
		bits := make([]uint64, (n+63)/64)
		for _, v := range fl {
			bits[v/64] |= 1 << (v % 64)
		}
		key := make([]byte, 0, 8+8*len(bits))
		key = binary.LittleEndian.AppendUint64(key, uint64(k))
		for _, x := range bits {
			key = binary.LittleEndian.AppendUint64(key, x)
		}
		nodes, ok := seen[string(key)]
		if !ok {
			if k == len(fl) {
				nodes = slices.Clone(fl)
			} else {
				pts := make([][]int, len(fl))
				for i, v := range fl {
					pts[i] = coord[v]
				}
				opt := ptas.Options{Ties: ptas.TiesByIndex}
				if f, ok := exact.LatticeOptimum(len(g.Dims()), k); ok {
					opt.Floor = float64(f)
				}
				res, err := ptas.MM(pts, k, opt)
				if err != nil {
					b.Fatal(err)
				}
				cases = append(cases, swapCase{K: k, Free: bits, Start: slices.Clone(res.Indices)})
				idx := ptas.ImproveForBench(pts, k, res.Indices)
				nodes = make([]int, k)
				for i, p := range idx {
					nodes[i] = fl[p]
				}
			}
			slices.Sort(nodes)
			seen[string(key)] = nodes
		}
		nodes = slices.Clone(nodes)
		if err := st.Take(nodes); err != nil {
			b.Fatal(err)
		}
		held[op.Job] = nodes
	}
	return cases, decisions
}

// cachedSwapCases is recordSwapCases, kept in the directory named by
// PROCALLOC_SWAPS_CACHE when it is set (MM's answers do not change with the
// swaps: a rerun after a change to them skips the minutes of recording).
func cachedSwapCases(b *testing.B, spec string, g *topo.Grid, w bench.Workload) ([]swapCase, int) {
	dir := os.Getenv("PROCALLOC_SWAPS_CACHE")
	if dir == "" {
		return recordSwapCases(b, g, w)
	}
	type record struct {
		Cases     []swapCase
		Decisions int
	}
	path := filepath.Join(dir, "mminc-swaps-"+strings.ReplaceAll(spec, ":", "-")+".gob")
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		var r record
		if err := gob.NewDecoder(f).Decode(&r); err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		return r.Cases, r.Decisions
	}
	cases, decisions := recordSwapCases(b, g, w)
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(record{cases, decisions}); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return cases, decisions
}

// BenchmarkMMIncSwapsSDSC times MM+Inc's swap phase alone on issue 32's workload
// (the first 3,000 SDSC Paragon jobs, sizes times n/416, arrivals contracted by
// 0.35, FCFS order): one mminc replay records MM's answer at every fresh decision
// (minutes from 65,536 nodes), then each iteration runs only the swaps from those
// answers. cpu-µs/decision is the replaying thread's CPU time in the swaps over
// every decision of the replay (memo hits included, as BenchmarkCenterScaleSDSC
// counts them), so it is the difference between mminc's and mm's figures there;
// the logged hash of every answer shows two builds agree. Run with -benchtime 1x;
// PROCALLOC_SWAPS_CACHE=DIR keeps the recordings (cachedSwapCases).
func BenchmarkMMIncSwapsSDSC(b *testing.B) {
	path, err := shared.Find("traces/SDSC-Par-1996-3.1-cln.swf.gz")
	if err != nil {
		b.Skipf("a shared trace is needed: %v", err)
	}
	tr, err := sim.ReadTraceFile(path, sim.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, ms := range []string{"mesh:64x64", "mesh:128x128", "mesh:256x256", "torus:16x16x16", "torus:25x25x25"} {
		b.Run(ms, func(b *testing.B) {
			m, err := topo.ParseMachine(ms)
			if err != nil {
				b.Fatal(err)
			}
			g := m.(*topo.Grid)
			n := g.N()
			w, err := bench.ScaledSDSC(context.Background(), tr.Jobs, m)
			if err != nil {
				b.Fatal(err)
			}
			cases, decisions := cachedSwapCases(b, ms, g, w)
			order := alloc.FreeListOrder(g)
			coord := make([][]int, n)
			for i := range coord {
				coord[i] = []int(g.Coord(i, nil))
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			var sum uint64
			iters := 0
			for b.Loop() {
				h := fnv.New64a()
				for _, c := range cases {
					var pts [][]int
					for _, v := range order {
						if c.Free[v/64]>>(v%64)&1 != 0 {
							pts = append(pts, coord[v])
						}
					}
					var ru0, ru1 syscall.Rusage
					_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru0)
					idx := ptas.ImproveForBench(pts, c.K, slices.Clone(c.Start))
					_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru1)
					cpu += time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
					for _, p := range idx {
						_ = binary.Write(h, binary.LittleEndian, int32(p))
					}
				}
				sum = h.Sum64()
				iters++
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(iters*decisions), "cpu-µs/decision")
			b.ReportMetric(float64(len(cases)), "fresh")
			b.ReportMetric(float64(decisions), "decisions")
			b.Logf("%s: answers' hash %016x", ms, sum)
		})
	}
}
