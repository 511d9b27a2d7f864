package topo

// Machine is a set of nodes 0..N()-1 with a hop distance.
type Machine interface {
	// N returns the number of nodes.
	N() int
	// Dist returns the hop distance between nodes a and b; it is symmetric, zero on
	// the diagonal, and -1 when b cannot be reached from a.
	Dist(a, b int) int
	// Neighbors appends the nodes one hop from a to dst, in ascending order.
	Neighbors(a int, dst []int) []int
	// Spec returns a string that names the machine (a ParseSpec spec for grids).
	Spec() string
}
