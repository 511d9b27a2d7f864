package plan_test

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/plan"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// A plan for a tiny site: a 4x4 mesh of hosts n01..n16 (node i at (i mod 4, i div 4)),
// a three-line slurm.conf, no topology file and no history (a seeded synthetic
// workload of 50 jobs stands in), no time limit, so the plan is the same on every
// machine. Make writes nothing: the caller writes p.Files.
//
// Checked by hand: F with the default weights (1, 0.5) counts consecutive ranks
// at weight 1 and ranks two apart at 0.5. Write F as the halves of the two end steps
// plus, for each of the 14 windows of 3 ranks, half of (its two steps + the distance
// of its ends). On a bipartite grid a window whose ends are 1 apart has steps of odd
// sum, at least 3, so every window counts at least 4: F >= 1 + 14 x 2 = 29, which a
// snake reaches (all steps 1, all ends 2 apart): optimal 29. Slurm's name
// order is row by row: 12 steps of 1 and 3 row jumps of 4 hops, 24; two apart, 8 pairs
// in a row at 2 and 6 across a jump at 3, (16 + 18) x 0.5 = 17; F = 41. The
// deployments: as-run needs an sacct history, tree a switched network, block Slurm
// 23.11 and torus3d 26.05 (the version assumed is 22.05, said in a note).
func ExampleMake() {
	hosts, err := hostlist.Expand("n[01-16]")
	if err != nil {
		fmt.Println(err)
		return
	}
	conf := []byte("ClusterName=tiny\nNodeName=n[01-16] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n")
	p, err := plan.Make(context.Background(), plan.Options{
		Machine:       topo.Mesh(4, 4),
		Hosts:         hosts,
		SlurmConf:     conf,
		SlurmConfPath: "slurm.conf",
		SyntheticJobs: 50,
		Seed:          1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := p.Report
	fmt.Println(r.Hosts, "hosts; F", r.Ordering.Objective, "bound", *r.Ordering.Bound, r.Ordering.Status, "; name order", r.Ordering.NameOrder)
	for _, d := range p.Deployments {
		if d.Supported {
			fmt.Println(d.Kind, "supported")
		} else {
			fmt.Println(d.Kind, d.Why)
		}
	}
	// Output:
	// 16 hosts; F 29 bound 29 optimal ; name order 41
	// current supported
	// as-run needs a job history that records where jobs ran (an sacct trace with NodeList)
	// weights supported
	// names supported
	// tree needs a switched network (every host on a leaf switch)
	// block needs Slurm 23.11 or later (the site's is 22.05)
	// torus3d needs Slurm 26.05 or later (the site's is 22.05)
}
