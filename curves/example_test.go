package curves_test

import (
	"fmt"
	"os"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// The snake (boustrophedon) ordering of a 3x2 mesh, its objective and its ranking
// file. Nodes 0 1 2 form the row y = 0 and 3 4 5 the row y = 1; the snake runs along
// the first row and back along the second: 0 1 2 5 4 3. With w = (1) (Leung et al.
// 2002 §2.2) F is the sum of the hops between consecutive ranks: five steps of one
// hop, F = 5, where row-major order pays 3 hops from node 2 = (2,0) to node 3 = (0,1)
// and has F = 7. The "pairs" file says "node rank" per line; the "hostlist" file is
// the hosts in rank order as one Slurm hostlist expression.
func ExampleWriteRanking() {
	m := topo.Mesh(3, 2)
	snake, err := curves.Generate("snake", m)
	if err != nil {
		fmt.Println(err)
		return
	}
	rowMajor, _ := curves.Generate("rowmajor", m)
	fSnake, _ := curves.Objective(m, snake, curves.Weights{1}, false)
	fRowMajor, _ := curves.Objective(m, rowMajor, curves.Weights{1}, false)
	fmt.Printf("%v F = %g (row-major %g)\n", snake, fSnake, fRowMajor)

	meta := curves.RankingMeta{Machine: m.Spec(), Curve: "snake"}
	if err := curves.WriteRanking(os.Stdout, curves.FormatPairs, snake, meta, nil); err != nil {
		fmt.Println(err)
	}
	hosts := []string{"n0", "n1", "n2", "n3", "n4", "n5"}
	if err := curves.WriteRanking(os.Stdout, curves.FormatHostlist, snake, meta, hosts); err != nil {
		fmt.Println(err)
	}
	// Output:
	// [0 1 2 5 4 3] F = 5 (row-major 7)
	// 0 0
	// 1 1
	// 2 2
	// 3 5
	// 4 4
	// 5 3
	// n[0-2,5,4,3]
}
