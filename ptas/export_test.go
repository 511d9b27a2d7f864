package ptas

// ImproveForBench is improve, MM+Inc's swap phase alone, for the external
// benchmark of the swaps on issue 32's workload (inc_sdsc_bench_test.go).
func ImproveForBench(pts [][]int, k int, start []int) []int {
	pr, err := newProblem(pts, k)
	if err != nil {
		panic(err)
	}
	return improve(pr, start)
}
