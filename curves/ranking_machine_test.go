package curves

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestReadRankingOfChecksTheMachine: a ranking written for a machine reads back
// through ReadRankingOf as the same order in every format; a JSON ranking that
// names another machine of as many nodes is refused, one naming the same machine
// in another spelling (mesh[4,4,1]) is not.
func TestReadRankingOfChecksTheMachine(t *testing.T) {
	mesh, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	torus, _ := topo.ParseMachine("torus:4x4")
	rng := rand.New(rand.NewPCG(3, 4))
	o := Order(rng.Perm(16))
	hosts := make([]string, 16)
	for i := range hosts {
		hosts[i] = "n" + string(rune('a'+i))
	}
	for _, f := range formats {
		var buf bytes.Buffer
		if err := WriteRanking(&buf, f, o, RankingMeta{Machine: mesh.Spec(), Curve: "random"}, hosts); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, err := ReadRankingOf(bytes.NewReader(buf.Bytes()), f, mesh, hosts)
		if err != nil || !slices.Equal(back, o) {
			t.Errorf("%s: read back %v, %v; wrote %v", f, back, err, o)
		}
		_, err = ReadRankingOf(bytes.NewReader(buf.Bytes()), f, torus, hosts)
		if f == FormatJSON {
			if err == nil || !strings.Contains(err.Error(), "the ranking is for machine mesh:4x4, not torus:4x4") {
				t.Errorf("JSON of mesh:4x4 read for torus:4x4: %v", err)
			}
		} else if err != nil {
			t.Errorf("%s names no machine, yet: %v", f, err)
		}
	}
	js, _ := json.Marshal([]int(o))
	doc := `{"machine": "mesh[4,4,1]", "order": ` + string(js) + `}`
	if back, err := ReadRankingOf(strings.NewReader(doc), FormatJSON, mesh, nil); err != nil || !slices.Equal(back, o) {
		t.Errorf("mesh[4,4,1] for mesh:4x4: %v %v (%s)", back, err, doc)
	}
	if f, err := ParseFormat("hostfile"); err != nil || f != FormatHosts {
		t.Errorf("hostfile: %v %v, want the hosts format", f, err)
	}
	if _, err := DetectFormat([]byte("\n# only a comment\n")); err == nil || !strings.Contains(err.Error(), "empty ranking file") {
		t.Errorf("empty: %v", err)
	}
	if _, err := ReadRanking(strings.NewReader("0\n"), FormatOrder, 0, nil); err == nil || err.Error() != "machine has no nodes" {
		t.Errorf("no nodes: %v", err)
	}
}
