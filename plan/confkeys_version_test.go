package plan

import (
	"context"
	"strings"
	"testing"
)

// A slurm.conf key of a later Slurm than the one planned for is a warning naming
// the line, the key and the version's source: that Slurm would not start with the
// file, nor with the deployments' copies of it.
func TestPlanWarnsOfKeysOfOtherReleases(t *testing.T) {
	for _, c := range []struct {
		version Version
		warned  bool
	}{{Version{Major: 22, Minor: 5}, true}, {Version{Major: 24, Minor: 11}, false}} {
		p := &Plan{opt: sampleOptions(t, false)}
		p.opt.SlurmConf = append([]byte("CertmgrType=certmgr/script\n"), p.opt.SlurmConf...)
		p.opt.Version, p.opt.VersionSource = c.version, "--slurm-version"
		if err := p.checkInputs(context.Background()); err != nil {
			t.Fatal(err)
		}
		w := strings.Join(p.Report.Warnings, "\n")
		want := "slurm.conf line 1: CertmgrType= is a key of Slurm 24.11 on: Slurm 22.05 refuses it"
		if got := strings.Contains(w, want) && strings.Contains(w, "(--slurm-version)"); got != c.warned {
			t.Errorf("Slurm %v: warnings %q; want %q: %v", c.version, w, want, c.warned)
		}
	}
}

// Nodes the slurm.conf declares State=FUTURE (on their line or a NodeName=DEFAULT
// line, any case) are a warning naming them: Slurm allocates none of them
// (slurmctld 22.05.8 and 26.05.3: scontrol show nodes lists them only with -F), the
// replays do.
func TestPlanWarnsOfFutureNodes(t *testing.T) {
	p := &Plan{opt: sampleOptions(t, false)}
	conf := strings.Replace(string(p.opt.SlurmConf), "NodeName=node[01-16]\n",
		"NodeName=node[01-14]\nNodeName=node15 State=FUTURE\nNodeName=DEFAULT State=future\nNodeName=node16\n", 1)
	if conf == string(p.opt.SlurmConf) {
		t.Fatal("the sample slurm.conf has no line NodeName=node[01-16]")
	}
	p.opt.SlurmConf = []byte(conf)
	if err := p.checkInputs(context.Background()); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(p.Report.Warnings, "\n")
	if !strings.Contains(w, "2 nodes are State=FUTURE in slurm.conf (node[15-16])") {
		t.Errorf("warnings %q: want the 2 FUTURE nodes named", w)
	}
}

// A slurm.conf whose nodes are all in included files (a real site's: "include
// /etc/slurm/partition.conf" holds its NodeName lines) is refused naming the
// Include lines, which plan does not follow.
func TestPlanNamesIncludeLinesWithoutNodes(t *testing.T) {
	p := &Plan{opt: sampleOptions(t, false)}
	p.opt.SlurmConf = []byte("ClusterName=c\nTopologyPlugin=topology/tree\ninclude /etc/slurm/partition.conf\n")
	err := p.checkInputs(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no NodeName lines define a node (Include lines are not followed: line 3: /etc/slurm/partition.conf;") {
		t.Errorf("%v: want the Include line named", err)
	}
}

// An option removed before 22.05 that the tables keep for a fatal message
// (AccountingStoreJobComment=YES, in two real sites' files) is a warning naming the
// line and Slurm's message.
func TestPlanWarnsOfRemovedOptions(t *testing.T) {
	p := &Plan{opt: sampleOptions(t, false)}
	p.opt.SlurmConf = append([]byte("AccountingStoreJobComment=YES\n"), p.opt.SlurmConf...)
	p.opt.Version, p.opt.VersionSource = Version{Major: 22, Minor: 5}, "--slurm-version"
	if err := p.checkInputs(context.Background()); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(p.Report.Warnings, "\n")
	if !strings.Contains(w, "slurm.conf line 1: AccountingStoreJobComment=YES: an option removed before Slurm 22.05 (slurmctld: fatal \"The AccountingStoreJobComment option has been removed") {
		t.Errorf("warnings %q", w)
	}
}

// Compute hosts no partition holds (none with Nodes=ALL; a real site's slurm.conf
// and topology.conf hold master and submit nodes no partition lists) are a warning
// naming them, and so is a slurm.conf
// without partitions (slurmctld 22.05.8: "No PartitionName information
// available!", fatal; 26.05.3 runs without).
func TestPlanWarnsOfNodesInNoPartition(t *testing.T) {
	for _, c := range []struct{ parts, want string }{
		{"PartitionName=p Nodes=node[01-14]\nPartitionName=q Nodes=node15\n", "1 compute host is in no partition (node16)"},
		{"", "slurm.conf has no PartitionName line"},
		{"PartitionName=p Nodes=node01\nPartitionName=q Nodes=ALL\n", ""},
	} {
		p := &Plan{opt: sampleOptions(t, false)}
		var keep []string
		for _, l := range strings.SplitAfter(string(p.opt.SlurmConf), "\n") {
			if !strings.HasPrefix(l, "PartitionName") {
				keep = append(keep, l)
			}
		}
		p.opt.SlurmConf = []byte(strings.Join(keep, "") + c.parts)
		if err := p.checkInputs(context.Background()); err != nil {
			t.Fatal(err)
		}
		w := strings.Join(p.Report.Warnings, "\n")
		if c.want == "" && strings.Contains(w, "partition") || c.want != "" && !strings.Contains(w, c.want) {
			t.Errorf("%q: warnings %q, want %q", c.parts, w, c.want)
		}
	}
}
