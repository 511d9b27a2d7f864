package ilp
import ("context";"testing";"os";"strings";"time";"github.com/procalloc/procalloc/curves";"github.com/procalloc/procalloc/topo")
func TestDbg(t *testing.T) {
	for _, spec := range strings.Split(os.Getenv("SPECS"), ",") {
		ring := strings.HasSuffix(spec, "/ring")
		spec = strings.TrimSuffix(spec, "/ring")
		m, _ := topo.ParseSpec(spec)
		w := curves.Weights{1, 0.5, 0.25}
		q, _ := OrderingQAP(m, w, ring)
		res, _ := SolveQAP(context.Background(), q, StartOrders(m), nil, Options{NoMIP: true, Cyclic: ring})
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		r, err := BranchAndBoundOrdering(ctx, q, ring, res.Assignment, BBOptions{Workers: 2})
		cancel()
		t.Logf("%s ring=%v start %v (bound %v) -> %v %s bound %v root %v nodes %d %.1fs err %v", spec, ring, res.Objective, res.Bound, r.Objective, r.Status, r.Bound, r.RootBound, r.Nodes, r.Seconds, err)
	}
}
