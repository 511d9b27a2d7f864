package hostlist

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Expand cuts its names from shared strings (nameArena); Each makes each name a
// string of its own. The two agree on random expressions (errors alike), and on
// lists whose bytes fill more than one arena chunk, where every name is checked
// against its plain definition.
func TestExpandArenaMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 29))
	ok := 0
	for range 3000 {
		var exprs []string
		for range 1 + rng.IntN(3) {
			exprs = append(exprs, randomExpr(rng))
		}
		got, err := ExpandContext(context.Background(), exprs...)
		var want []string
		var werr error
		for _, e := range exprs {
			if werr = Each(context.Background(), e, func(n string) error { want = append(want, n); return nil }); werr != nil {
				break
			}
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("ExpandContext(%q): %v; Each: %v", exprs, err, werr)
		}
		if err == nil && !slices.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("ExpandContext(%q): %d names, Each %d; first difference at %d", exprs, len(got), len(want), i)
		}
		if err == nil {
			ok++
		}
	}
	if ok < 1000 {
		t.Fatalf("only %d of 3000 random lists expanded", ok)
	}
	// 300,001 names of 7 bytes and 200,000 of 8: more than two chunks, names
	// crossing from one chunk to the next.
	for _, c := range []struct {
		expr  string
		first int
		n     int
		pad   string
	}{{"n[0000000-0300000]", 0, 300001, "n%07d"}, {"a,n[100000-299999],b", 100000, 200000, "n%d"}} {
		names, err := Expand(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		plain := names
		if c.expr[0] == 'a' {
			if len(names) != c.n+2 || names[0] != "a" || names[len(names)-1] != "b" {
				t.Fatalf("%s: %d names, ends %q %q", c.expr, len(names), names[0], names[len(names)-1])
			}
			plain = names[1 : len(names)-1]
		}
		if len(plain) != c.n {
			t.Fatalf("%s: %d names, want %d", c.expr, len(plain), c.n)
		}
		for i, n := range plain {
			if w := fmt.Sprintf(c.pad, c.first+i); n != w {
				t.Fatalf("%s: name %d is %q, want %q", c.expr, i, n, w)
			}
		}
	}
}
