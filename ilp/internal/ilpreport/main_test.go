//go:build highs

package main

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// pick keeps the instances -only names, in the table's order, and refuses a name the
// table does not have (the lp table ran all of its instances whatever -only said).
func TestPickFollowsOnly(t *testing.T) {
	insts := []instance{{"mesh:3x3", topo.Mesh(3, 3)}, {"mesh:4x3", topo.Mesh(4, 3)}, {"rr3-10", randomRegular(10, 3, 1)}}
	names := func(in []instance) string {
		var s []string
		for _, x := range in {
			s = append(s, x.name)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct{ only, want string }{
		{"", "mesh:3x3,mesh:4x3,rr3-10"},
		{"rr3-10,mesh:3x3", "mesh:3x3,rr3-10"},
		{"mesh:4x3", "mesh:4x3"},
	} {
		got, err := pick(insts, c.only)
		if err != nil || names(got) != c.want {
			t.Errorf("pick(%q) = %s, %v; want %s", c.only, names(got), err, c.want)
		}
	}
	for _, only := range []string{"mesh:4x4", "mesh:3x3,torus:4x3", "mesh:3x3,"} {
		if got, err := pick(insts, only); err == nil || !strings.Contains(err.Error(), "no instance") {
			t.Errorf("pick(%q) = %s, %v; want an error naming the instance", only, names(got), err)
		}
	}
}

// The lp table runs only the instances -only names: an unknown name fails before any
// LP is solved.
func TestLPTableRefusesUnknownInstance(t *testing.T) {
	if err := lpTable("mesh:9x9"); err == nil || !strings.Contains(err.Error(), "mesh:9x9") {
		t.Fatalf("lpTable(mesh:9x9) = %v, want an error naming it", err)
	}
}
