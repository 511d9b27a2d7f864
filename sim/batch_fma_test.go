package sim

import (
	"math"
	"testing"
)

// The batch statistics are the same bits on every platform: each square of the
// standard deviation's sum is rounded before it is added, as the default amd64 build
// does, so a build that may fuse multiply and add (arm64, GOAMD64=v3: run this test
// with GOAMD64=v3 go test to check) gives the same std and ci95. The reference sum
// rounds every operation explicitly.
func TestBatchStdRoundsLikeEveryBuild(t *testing.T) {
	var runs []*batchRun
	for i := range 40 {
		// completions with long mantissas, so that a fused square-and-add rounds
		// differently from a rounded square then an add
		runs = append(runs, &batchRun{Completion: 1000/3.0 + math.Sqrt(float64(i+2))*7.1})
	}
	res := summarizeBatch(runs)
	var sum float64
	for _, r := range runs {
		sum += r.Completion
	}
	mean := sum / float64(len(runs))
	var ss float64
	for _, r := range runs {
		d := r.Completion - mean
		sq := float64(d * d)
		ss = float64(ss + sq)
	}
	want := math.Sqrt(ss / float64(len(runs)-1))
	if res.Std != want {
		t.Errorf("std %v (bits %x), want %v (bits %x): a square fused into the sum", res.Std, math.Float64bits(res.Std), want, math.Float64bits(want))
	}
}
