package topo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// graphByIndex writes g vertex by vertex: index, name, switch or host, neighbours by
// index, then the groups: two graphs write alike only when numbered alike.
func graphByIndex(g *Graph) string {
	var b strings.Builder
	for v := range g.Vertices() {
		fmt.Fprintf(&b, "%d %s %v %v\n", v, g.Name(v), g.IsSwitch(v), g.Neighbors(v, nil))
	}
	for _, gr := range g.Groups() {
		fmt.Fprintf(&b, "group %s %v\n", gr.Name, gr.Nodes)
	}
	return b.String()
}

// shuffledLines returns src's lines in a seeded random order.
func shuffledLines(src string, seed uint64) string {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return strings.Join(lines, "\n") + "\n"
}

// shuffledBlocks returns an ibnetdiscover dump's blank-line-separated blocks (a
// node's header, its line and its ports) in a seeded random order: the same fabric
// discovered in another order.
func shuffledBlocks(src string, seed uint64) string {
	blocks := strings.Split(strings.TrimRight(src, "\n"), "\n\n")
	r := rand.New(rand.NewPCG(seed, 2))
	r.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	return strings.Join(blocks, "\n\n") + "\n"
}

// One fabric dumped by two tools in two orders (testdata/scrambled.*: 3 leaves of
// 4 hosts cn1..cn12, 2 spines; host GUIDs unrelated to the names; ibnetdiscover in
// a breadth-first discovery order from the SM's host cn7, subnet.lst in node GUID
// order), and each dump's lines or blocks shuffled, is one Graph, index for index:
// the hosts in Slurm's name order (cn9 before cn10), then the switches.
func TestFabricDumpsNumberedAlike(t *testing.T) {
	ib := readFile(t, "testdata/scrambled.ibnetdiscover")
	lst := readFile(t, "testdata/scrambled.subnet-lst")
	// The fixture is what it claims: its Ca blocks in neither GUID nor name order.
	var guids, hostNames []string
	for _, l := range strings.Split(ib, "\n") {
		if m := ibNodeRe.FindStringSubmatch(l); m != nil && m[1] == "Ca" {
			guids = append(guids, m[4])
			hostNames = append(hostNames, strings.Fields(ibCaDesc(m[5]))[0])
		}
	}
	if slices.IsSorted(guids) || slices.IsSortedFunc(hostNames, hostlist.NaturalCompare) {
		t.Fatalf("fixture's hosts are in GUID or name order: %v %v", guids, hostNames)
	}
	dumps := map[string]string{"ibnetdiscover": ib, "subnet-lst": lst}
	for seed := range uint64(5) {
		dumps[fmt.Sprintf("ibnetdiscover, blocks shuffled (seed %d)", seed)] = shuffledBlocks(ib, seed)
		dumps[fmt.Sprintf("subnet-lst, lines shuffled (seed %d)", seed)] = shuffledLines(lst, seed)
	}
	for _, names := range []NodeNameMap{nil, {0x0002c90300d00001: "leaf-b", 0x0002c90300d00003: "leaf-a", 0x0002c90300f00e30: "zz9"}} {
		g, err := ReadIBNetDiscover(strings.NewReader(ib), names)
		if err != nil {
			t.Fatal(err)
		}
		want := graphByIndex(g)
		var hs, sw []string
		for v := range g.Vertices() {
			if g.IsSwitch(v) {
				sw = append(sw, g.Name(v))
			} else {
				hs = append(hs, g.Name(v))
			}
		}
		if !slices.IsSortedFunc(hs, hostlist.NaturalCompare) || !slices.IsSortedFunc(sw, hostlist.NaturalCompare) || len(hs) != 12 || len(sw) != 5 {
			t.Errorf("map %v: hosts %v, switches %v: want 12 and 5, each in name order", names != nil, hs, sw)
		}
		for what, src := range dumps {
			g, err := ReadGraphFormat(strings.NewReader(src), GraphReadOptions{NodeNameMap: names})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got := graphByIndex(g); got != want {
				t.Errorf("%s (map %v) numbered otherwise than ibnetdiscover's dump:\n%s\nwant\n%s", what, names != nil, got, want)
			}
		}
	}
}
