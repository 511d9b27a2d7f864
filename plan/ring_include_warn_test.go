package plan

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestRingWarningNamesItsFile: a ring naming a node slurm.conf lacks is warned
// of at its line, and a ring of a file topology.conf's Include line names is
// named by that file (as the reader's messages name it), one of topology.conf
// itself by topology.conf; one such node is said in the singular.
func TestRingWarningNamesItsFile(t *testing.T) {
	for _, c := range []struct {
		name, top, inc string
		want           string
	}{
		{name: "in the included file", top: "RingName=r0 Nodes=node[01-07]\nInclude rings.inc\n", inc: "RingName=r1 Nodes=node[08-15]\nRingName=r2 Nodes=node[16,17]\n",
			want: "/etc/site/rings.inc line 2: its rings name 1 node slurm.conf lacks (first: node17)"},
		{name: "in topology.conf, after the Include line", top: "RingName=r0 Nodes=node[01-07]\nInclude rings.inc\nRingName=r2 Nodes=node[16-18]\n", inc: "RingName=r1 Nodes=node[08-15]\n",
			want: "/etc/site/topology.conf line 3: its rings name 2 nodes slurm.conf lacks (first: node17)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := sampleOptions(t, true)
			opt.Version, opt.VersionSource = Version{Major: 26, Minor: 5}, "test"
			opt.SlurmConf, opt.SlurmConfPath = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE Default=YES\nTopologyPlugin=topology/ring\n"), "/etc/site/slurm.conf"
			opt.TopologyConf, opt.TopologyConfPath = []byte(c.top), "/etc/site/topology.conf"
			opt.ReadIncluded = func(name string) ([]byte, error) {
				if name != "/etc/site/rings.inc" {
					t.Fatalf("read %s", name)
				}
				return []byte(c.inc), nil
			}
			p, err := Make(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(p.Report.Warnings, func(w string) bool { return strings.HasPrefix(w, c.want) }) {
				t.Errorf("no warning starting %q: %q", c.want, p.Report.Warnings)
			}
		})
	}
}
