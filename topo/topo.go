package topo

// Machine is a set of nodes 0..N()-1 with a hop distance.
type Machine interface {
	// N returns the number of nodes.
	N() int
	// Dist returns the hop distance between nodes a and b; it is symmetric, zero on
	// the diagonal, and -1 when b cannot be reached from a.
	Dist(a, b int) int
	// Neighbors appends the vertices one hop from a to dst, in ascending order. On a
	// machine with switches (a *Graph read from a fabric) these include switch
	// vertices N()..Vertices(m)-1, which route but never get ranks.
	Neighbors(a int, dst []int) []int
	// Spec returns a string that names the machine (a ParseSpec spec for grids).
	Spec() string
}

// Vertices returns the number of vertices of m's network: its N() nodes, then its
// switches (only a *Graph has switches).
func Vertices(m Machine) int {
	if v, ok := m.(interface{ Vertices() int }); ok {
		return v.Vertices()
	}
	return m.N()
}
