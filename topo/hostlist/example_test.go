package hostlist_test

import (
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// Expand and Compress are scontrol show hostnames and scontrol show hostlist.
// Checked against Slurm's rules (hostlist.c, the man page of scontrol): zero padding
// is kept, with two brackets the first is the outer loop, and consecutive numbers of
// one prefix and width join one range while a gap starts a new one in the same
// bracket.
func ExampleExpand() {
	names, err := hostlist.Expand("n[001-003,005]")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(names)
	names, err = hostlist.Expand("rack[0-1]_n[1-2]")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(names)
	expr, err := hostlist.Compress([]string{"n001", "n002", "n003", "n005"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(expr)
	// Output:
	// [n001 n002 n003 n005]
	// [rack0_n1 rack0_n2 rack1_n1 rack1_n2]
	// n[001-003,005]
}

// Slurm's node order (strnatcmp): numbers compare as numbers, so n2 comes before
// n10, where a byte order would put n10 first.
func ExampleNaturalCompare() {
	names := []string{"n10", "n2", "n1"}
	slices.SortFunc(names, hostlist.NaturalCompare)
	fmt.Println(names)
	// Output:
	// [n1 n2 n10]
}
