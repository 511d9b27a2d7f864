package plan

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// Make expands slurm.conf's hostlists once (Plan.nodes) and passes the nodes to
// every deployment. Each deployment expanded them again (Conf.Nodes, twice for
// weights and tree): 0.9 GB of the 3.7 GB a 131,072-host plan allocated. Here
// 40,000 nodes of the slurm.conf are outside the fabric, so that they dominate:
// Make allocates 3.4 times one expansion (the one, the maps that look them up and
// the warning about their weights); one more expansion is 4.4, the old way 11.6.
func TestPlanExpandsConfOnce(t *testing.T) {
	m, err := topo.ParseMachine("fattree:4,4:4,4:4")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := hostlist.Expand("cn[001-064]")
	conf := []byte("NodeName=cn[001-064] CPUs=1\nNodeName=spare[00001-40000] CPUs=1\nPartitionName=p Nodes=cn[001-064] OverSubscribe=EXCLUSIVE\n")
	c, err := slurm.ReadConf(conf)
	if err != nil {
		t.Fatal(err)
	}
	a0 := totalAlloc()
	if _, err := c.Nodes(); err != nil {
		t.Fatal(err)
	}
	one := totalAlloc() - a0
	opt := Options{Machine: m, Hosts: names, MachineSource: "fattree", SlurmConf: conf,
		Version: V2311, VersionSource: "test", SyntheticJobs: 20, TimeLimit: 5 * time.Second}
	a0 = totalAlloc()
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	all := totalAlloc() - a0
	for _, k := range []Kind{KindWeights, KindNames, KindTree, KindBlock} {
		if d := p.Deployment(k); !d.Supported {
			t.Fatalf("%s not built (%s): the test would not see its expansions", k, d.Why)
		}
	}
	if r := float64(all) / float64(one); r > 4 {
		t.Errorf("Make allocated %d bytes, %.2f times one expansion of the slurm.conf's nodes (%d): want at most 4", all, r, one)
	}
}
