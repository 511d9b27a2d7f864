package plan

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo"
)

// A fabric dump names hosts by host name (the first word of a NodeDescription,
// rdma-ndd's "%h"), which is Slurm's NodeHostname, the NodeName only by default.
// Before, plan matched NodeNames alone: a site whose slurm.conf names its nodes
// otherwise (NodeName=c01 NodeHostname=node01), among them every site that
// deployed plan's own names deployment, was refused ("none of the 16 hosts ... is
// a node of the slurm.conf"), and a host named with its domain matched nothing.
// Now such hosts are the nodes of their NodeHostname (or short name), with a
// warning, and the plan is the plan of the nodes' own names.
func TestPlanMatchesHostsByNodeHostname(t *testing.T) {
	ctx := context.Background()
	base := sampleOptions(t, false)
	base.SyntheticJobs = 40
	ref, err := Make(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	full := base.Machine.(*topo.Graph)

	check := func(what string, opt Options, node func(host string) string) {
		t.Helper()
		p, err := Make(ctx, opt)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !strings.Contains(strings.Join(p.Report.Warnings, "\n"), "16 hosts of the network are slurm.conf nodes by their NodeHostname or short host name") {
			t.Errorf("%s: warnings %q", what, p.Report.Warnings)
		}
		if len(p.Report.UnmatchedHosts) != 0 || len(p.Report.MissingNodes) != 0 || p.Machine.N() != 16 {
			t.Errorf("%s: unmatched %v missing %v, %d compute hosts", what, p.Report.UnmatchedHosts, p.Report.MissingNodes, p.Machine.N())
		}
		// Every compute host carries its node's name, at the distances of the
		// fabric's host of that name.
		cg := p.Machine.(*topo.Graph)
		for a := range cg.N() {
			if cg.Name(a) != p.Names[a] {
				t.Fatalf("%s: host %d is %s in the network, %s in Names", what, a, cg.Name(a), p.Names[a])
			}
			for b := range cg.N() {
				fa, oka := full.Lookup(node(cg.Name(a)))
				fb, okb := full.Lookup(node(cg.Name(b)))
				if !oka || !okb || cg.Dist(a, b) != full.Dist(fa, fb) {
					t.Fatalf("%s: %s-%s: %d hops, %d in the fabric", what, cg.Name(a), cg.Name(b), cg.Dist(a, b), full.Dist(fa, fb))
				}
			}
		}
		// The same plan as with the nodes named as the fabric names them.
		if p.Report.Ordering.Objective != ref.Report.Ordering.Objective {
			t.Errorf("%s: F %v, %v with NodeName = host name", what, p.Report.Ordering.Objective, ref.Report.Ordering.Objective)
		}
		for i, d := range p.Report.Deployments {
			if got, want := jsonOf(t, d.Metrics), jsonOf(t, ref.Report.Deployments[i].Metrics); got != want {
				t.Errorf("%s: %s: %s, %s with NodeName = host name", what, d.Name, got, want)
			}
		}
	}

	// NodeName=c01.. NodeHostname=node01.. (the fabric's names).
	opt := base
	opt.SlurmConf = []byte(strings.Replace(string(base.SlurmConf), "NodeName=node[01-16]\n", "NodeName=c[01-16] NodeHostname=node[01-16]\n", 1))
	check("NodeHostname", opt, func(h string) string { return "node" + strings.TrimPrefix(h, "c") })

	// The fabric names hosts with their domain (node01.example.org).
	opt = base
	opt.Hosts = make([]string, full.N())
	for v := range opt.Hosts {
		opt.Hosts[v] = full.Name(v) + ".example.org"
	}
	check("domain", opt, func(h string) string { return h })

	// plan's own names deployment, deployed, then planned again.
	opt = base
	opt.Deployment = KindNames
	p, err := Make(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	renamed := file(p, "names/slurm.conf")
	if !strings.Contains(string(renamed), "NodeHostname=") {
		t.Fatalf("names/slurm.conf without NodeHostname:\n%s", renamed)
	}
	opt = base
	opt.SlurmConf = renamed
	q, err := Make(ctx, opt)
	if err != nil {
		t.Fatalf("the names deployment planned again: %v", err)
	}
	metrics := func(p *Plan, k Kind) string {
		i := slices.IndexFunc(p.Report.Deployments, func(d DeploymentReport) bool { return d.Name == string(k) })
		return jsonOf(t, p.Report.Deployments[i].Metrics)
	}
	if names, current := metrics(p, KindNames), metrics(q, KindCurrent); names != current {
		t.Errorf("after the names deployment, current is %s, the names deployment predicted %s", current, names)
	}

	// A host of the network that is a NodeName stays that node; the host whose
	// NodeHostname it also is (a swapped pair) does not take it twice.
	opt = base
	opt.SlurmConf = []byte(strings.Replace(string(base.SlurmConf), "NodeName=node[01-16]\n", "NodeName=node[01-15]\nNodeName=x NodeHostname=node01\n", 1))
	p, err = Make(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Report.UnmatchedHosts, []string{"node16"}) || !slices.Equal(p.Report.MissingNodes, []string{"x"}) {
		t.Errorf("node01 a NodeName and x's NodeHostname: unmatched %v, missing %v", p.Report.UnmatchedHosts, p.Report.MissingNodes)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPlanMatchesHostsByNodeHostnameRoutingHost: a host slurm.conf lacks that
// routes (two links) stays in the compute network under its own name when the
// others are renamed to their NodeNames.
func TestPlanMatchesHostsByNodeHostnameRoutingHost(t *testing.T) {
	g, err := topo.ReadGraph(strings.NewReader("%switch s\n%switch t\na s\nb t\nr s\nr t\nc s\nd t\n"))
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Machine: g, MachineSource: "edges", SlurmConfPath: "slurm.conf", TimeLimit: 10 * time.Second, Seed: 1, SyntheticJobs: 20,
		SlurmConf: []byte("NodeName=n1 NodeHostname=a\nNodeName=n2 NodeHostname=b\nNodeName=n3 NodeHostname=c\nNodeName=n4 NodeHostname=d\nPartitionName=p Nodes=ALL Default=YES\n")}
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	cg := p.Machine.(*topo.Graph)
	n1, ok1 := cg.Lookup("n1")
	n2, ok2 := cg.Lookup("n2")
	if _, ok := cg.Lookup("r"); !ok || !ok1 || !ok2 || cg.Dist(n1, n2) != 4 || !slices.Equal(p.Report.UnmatchedHosts, []string{"r"}) {
		t.Errorf("network %s, unmatched %v", cg.Spec(), p.Report.UnmatchedHosts)
	}
}
