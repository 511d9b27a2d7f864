package netsim

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestTreeModelStructureCheckIsRowCheck: the tree model's switch-by-switch check of
// its structure (checkStructure, O(vertices + links)) accepts exactly the fabrics on
// which every next hop it predicts is GraphRouter's (checkRows, one breadth-first
// row per leaf switch and every host against every switch): fat trees as built,
// with their switches declared in shuffled order (positions then differ from
// vertex order), with two switch links rewired, Slurm and ibnetdiscover files, and
// small trees. When both accept, the model's loads are the traced ones.
func TestTreeModelStructureCheckIsRowCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 5))
	var fabrics []*topo.Graph
	read := func(text string) {
		g, err := topo.ReadGraph(strings.NewReader(text))
		if err != nil {
			return // a rewiring that repeats a link
		}
		if g.CheckConnected() != nil {
			return
		}
		fabrics = append(fabrics, g)
	}
	for _, spec := range []string{"fattree:4,4:8", "fattree:4,4:4,4:8", "fattree:2,2:2,2:2,2:2,2:2", "fattree:3,3:6",
		"fattree:4,2:4,2:4", "fattree:2,4:2,4:8", "fattree:3,2:4,3:6", "fattree:5", "fattree:2,3:3,2:4,2:4"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		fabrics = append(fabrics, g)
		text := edgeList(g)
		lines := strings.Split(strings.TrimSpace(text), "\n")
		var decl, hostDecl, links []string
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "%switch"):
				decl = append(decl, l)
			case strings.HasPrefix(l, "%node"):
				hostDecl = append(hostDecl, l)
			default:
				links = append(links, l)
			}
		}
		join := func(parts ...[]string) string {
			var b strings.Builder
			for _, p := range parts {
				for _, l := range p {
					b.WriteString(l + "\n")
				}
			}
			return b.String()
		}
		read(join(hostDecl, decl, links))
		for range 6 {
			// switches declared in a shuffled order
			sh := append([]string(nil), decl...)
			rng.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
			read(join(hostDecl, sh, links))
			// two switch-to-switch links exchange their upper ends
			var sw []int
			for i, l := range links {
				if f := strings.Fields(l); g.IsSwitch(mustLookup(t, g, f[0])) && g.IsSwitch(mustLookup(t, g, f[1])) {
					sw = append(sw, i)
				}
			}
			if len(sw) < 2 {
				continue
			}
			re := append([]string(nil), links...)
			i, j := sw[rng.IntN(len(sw))], sw[rng.IntN(len(sw))]
			a, b := strings.Fields(re[i]), strings.Fields(re[j])
			re[i], re[j] = a[0]+" "+b[1], b[0]+" "+a[1]
			read(join(hostDecl, decl, re))
		}
	}
	fabrics = append(fabrics, sampleFabrics(t)...)
	for _, text := range []string{
		"%switch s\n%switch t\n%switch u\na s\nb s\nc t\nd t\ns u\nt u\n",
		"%switch s\n%switch t\n%switch u\n%switch v\n%switch w\n%switch x\n%switch y\na s\nb s\nc s\nd t\ne u\nf u\ng x\ns v\nt v\nu v\nx y\nv w\ny w\n",
		"%switch s\na s\nb s\n",
		"%switch s\n%switch t\n%switch u\n%switch v\na s\nb t\ns u\ns v\nt u\nt v\n",
		"%switch s\n%switch t\n%switch u\n%switch v\na s\nb t\ns u\ns v\nt v\n",
	} {
		read(text)
	}
	pat, _ := ParsePattern("all-to-all")
	agreed, accepted := 0, 0
	for _, g := range fabrics {
		fast, why := buildTreeModel(context.Background(), g, false)
		ref, whyRef := buildTreeModel(context.Background(), g, true)
		if (fast == nil) != (ref == nil) {
			t.Fatalf("%s: structure check %v (%s), row check %v (%s)", g.Spec(), fast != nil, why, ref != nil, whyRef)
		}
		agreed++
		if fast == nil {
			continue
		}
		accepted++
		r, err := NewGraphRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		m := NewRouteMeter(r, pat, 1)
		for job := range 10 {
			nodes := rng.Perm(g.N())[:2+rng.IntN(g.N()-1)]
			if got, want := fast.load(nodes), m.traced(job, nodes); got != want {
				t.Fatalf("%s, job %v: model %+v, trace %+v", g.Spec(), nodes, got, want)
			}
		}
	}
	t.Logf("%d fabrics, %d modelled", agreed, accepted)
	if accepted < 15 || accepted == agreed {
		t.Fatalf("%d of %d fabrics modelled: the cases do not exercise both verdicts", accepted, agreed)
	}
}

func mustLookup(t *testing.T, g *topo.Graph, name string) int {
	t.Helper()
	v, ok := g.Lookup(name)
	if !ok {
		t.Fatalf("no vertex %s", name)
	}
	return v
}
