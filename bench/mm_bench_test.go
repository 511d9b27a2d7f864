package bench

import (
	"context"
	"runtime"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
)

// BenchmarkMMReplayLLNL16x16 is `procalloc sim --trace LLNL-T3D --machine mesh:16x16
// --alloc mm --compat premas` as the command runs it (Replay.Run, no per-job
// records), the replay of issue 32 item 4. Besides the time per decision it reports
// the time inside the allocator (alloc-ns/decision, alloc.Clock), the collections
// per replay (gc/op) and the bytes allocated (B/op with -benchmem): figures that
// stay put on a loaded machine, where times do not. After 4afc44d the replay stopped
// keeping node lists, its live heap shrank and the collector came round 3 times
// during the replay instead of once; with an idle second core each mark phase takes
// that core too, which is how the whole process's CPU grew by 10% with MM's own
// instructions unchanged. gc/op would have shown it.
func BenchmarkMMReplayLLNL16x16(b *testing.B) {
	s := sim.DefaultSpec()
	s.MachineSpec, s.Alloc, s.Trace = "mesh:16x16", "mm", "../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	s.Compat = alloc.CompatPReMAS
	rp, err := s.Prepare()
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	var allocNs, decisions float64
	runtime.ReadMemStats(&before)
	for b.Loop() {
		rep, err := rp.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		allocNs += rep.AllocTime.AllocateSeconds * 1e9
		decisions += float64(rep.AllocTime.Decisions)
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.NumGC-before.NumGC)/float64(b.N), "gc/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/decisions, "ns/decision")
	b.ReportMetric(allocNs/decisions, "alloc-ns/decision")
}
