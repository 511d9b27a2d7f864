package netsim

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// Route meters on one shared router (NewRouteMeter of one NewRouter, as the
// Router doc allows engines to share it) measure concurrently and each gets the
// loads a meter of its own router gets: no meter writes its scratch into the
// router. On a dragonfly the all-to-all count is per router and group; under -race
// a shared scratch is a data race.
func TestRouteMetersShareOneRouter(t *testing.T) {
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range append([]string{"mesh:6x6", "torus:6x6"}, smallDragonflies...) {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := NewRouter(m)
		if err != nil {
			t.Fatal(err)
		}
		n := m.N()
		rng := rand.New(rand.NewPCG(91, uint64(n)))
		jobs := make([][]int, 40)
		for i := range jobs {
			jobs[i] = rng.Perm(n)[:2+rng.IntN(n-1)]
		}
		want := make([]RouteLoad, len(jobs))
		alone, err := NewMachineRouteMeter(m, pat, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, nodes := range jobs {
			want[i] = mustMeasure(t, alone, i, nodes)
		}
		const meters = 4
		got := make([][]RouteLoad, meters)
		errs := make([]error, meters)
		var wg sync.WaitGroup
		for w := range meters {
			rm := NewRouteMeter(shared, pat, 1)
			got[w] = make([]RouteLoad, len(jobs))
			wg.Go(func() {
				for rep := range 5 {
					for i := range jobs {
						j := (i + w*7 + rep) % len(jobs)
						if got[w][j], errs[w] = rm.Measure(j, jobs[j]); errs[w] != nil {
							return
						}
					}
				}
			})
		}
		wg.Wait()
		for w := range meters {
			if errs[w] != nil {
				t.Fatalf("%s: meter %d: %v", spec, w, errs[w])
			}
			for i := range jobs {
				if got[w][i] != want[i] {
					t.Fatalf("%s: meter %d job %d on the shared router: %+v, alone %+v", spec, w, i, got[w][i], want[i])
				}
			}
		}
	}
}
