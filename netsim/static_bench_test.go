package netsim

import (
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// benchMeter measures all-to-all route loads of jobs shaped like LANL-CM5's (32 to
// 1,024 hosts, mostly small), each on a run of consecutive hosts at a random offset
// (as a curve allocator on an idle machine places them) or, every fourth job, on
// random hosts.
func benchMeter(b *testing.B, spec string) {
	m, err := topo.ParseMachine(spec)
	if err != nil {
		b.Fatal(err)
	}
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		b.Fatal(err)
	}
	meter, err := NewMachineRouteMeter(m, pat, 1)
	if err != nil {
		b.Fatal(err)
	}
	n := m.N()
	sizes := []int{32, 32, 32, 32, 32, 64, 64, 128, 128, 256, 512, 1024}
	rng := rand.New(rand.NewPCG(1, 2))
	var jobs [][]int
	for j := range 64 {
		k := min(n, sizes[rng.IntN(len(sizes))])
		var nodes []int
		if j%4 == 3 {
			nodes = rng.Perm(n)[:k]
		} else {
			off := rng.IntN(n - k + 1)
			for i := range k {
				nodes = append(nodes, off+i)
			}
		}
		jobs = append(jobs, nodes)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		meter.memo = routeMemo{} // time the count, not the memo of repeated jobs
		if _, err := meter.Measure(i, jobs[i%len(jobs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRouteMeterFatTree1024(b *testing.B) { benchMeter(b, "fattree:4,4:4,4:4,4:4,4:4") }
func BenchmarkRouteMeterFatTree8192(b *testing.B) { benchMeter(b, "fattree:16,16:16,16:32") }
func BenchmarkRouteMeterMesh32x32(b *testing.B)   { benchMeter(b, "mesh:32x32") }

// On a dragonfly minimal routing's loads come from counts per router and group
// (DragonflyRouter); before, in-trees of shortest paths.
func BenchmarkRouteMeterDragonfly1024(b *testing.B) {
	benchMeter(b, "dragonfly:hosts_per_router=4,routers_per_group=8,intergroup_links=1,num_groups=32")
}

// The 10,240-host dragonfly of issue 21's million-job replay.
func BenchmarkRouteMeterDragonfly10240(b *testing.B) {
	benchMeter(b, "dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=3,num_groups=80")
}

// Tori count per line and pair of groups (allToAllTorusLoad); before, every route
// was traced (issue 34: 10 jobs of the SDSC log scaled to torus:32x32x32 took more
// than 150 s of CPU).
func BenchmarkRouteMeterTorus32x32(b *testing.B)    { benchMeter(b, "torus:32x32") }
func BenchmarkRouteMeterTorus32x32x32(b *testing.B) { benchMeter(b, "torus:32x32x32") }

// Scattered jobs (1,024 random hosts each) on the 3D torus: the middle dimension
// pairs up to 32 source groups with 32 destination groups; each pair costs its
// sources' positions (ringPeak), before the 32 positions of the ring.
func BenchmarkRouteMeterTorus32x32x32Scattered1024(b *testing.B) {
	m, err := topo.ParseMachine("torus:32x32x32")
	if err != nil {
		b.Fatal(err)
	}
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		b.Fatal(err)
	}
	meter, err := NewMachineRouteMeter(m, pat, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 3))
	var jobs [][]int
	for range 16 {
		jobs = append(jobs, rng.Perm(m.N())[:1024])
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := meter.Measure(i, jobs[i%len(jobs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// Issue 34's 131,072-host fat tree: the tree model is checked switch by switch
// (before, its row check was too long and the router's table was refused).
func BenchmarkRouteMeterFatTree131k(b *testing.B) { benchMeter(b, "fattree:16,16:16,16:16,16:32") }
