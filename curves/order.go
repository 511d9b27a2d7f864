package curves

import "fmt"

// Order is a 1D ordering of a machine's nodes: Order[r] is the node of rank r. A valid
// Order of an n-node machine is a permutation of 0..n-1.
type Order []int

// Validate returns an error unless o is a permutation of 0..n-1.
func (o Order) Validate(n int) error {
	if len(o) != n {
		return fmt.Errorf("ordering has %d nodes, machine has %d", len(o), n)
	}
	seen := make([]bool, n)
	for r, v := range o {
		if v < 0 || v >= n {
			return fmt.Errorf("rank %d: node %d is outside 0..%d", r, v, n-1)
		}
		if seen[v] {
			return fmt.Errorf("rank %d: node %d appears twice", r, v)
		}
		seen[v] = true
	}
	return nil
}

// Ranks returns the inverse permutation: Ranks()[node] is the node's rank.
func (o Order) Ranks() []int {
	r := make([]int, len(o))
	for i, v := range o {
		r[v] = i
	}
	return r
}
