package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"

	"github.com/procalloc/procalloc/internal/slurmtest"
)

// topoLineCases are topology.conf files (topology/tree, nodes n[1-4]) as Slurm's
// s_p_parse_file reads them, the reader slurm.conf's lines go through: comments,
// '\' continuations, escapes, quotes, spaces around '=', keys in any case, an
// operator (ignored), a key twice (the last kept), unknown keys.
var topoLineCases = []struct {
	text string
	// want is the switches read, "name:level:nodes:children" each (nodes and
	// children as hostlists expanded, joined by ','), or the error's words.
	want, err string
	// include: a file with an Include line (INC: inc.conf's absolute name), which
	// ParseTopologyConf refuses and ParseTopologyConfIncluding and Slurm read.
	include bool
}{
	{text: "SwitchName = s1 \\\n  Nodes=\"n[1-2]\" # leaf one\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n",
		want: "s1:0:n1,n2: s2:0:n3,n4: top:1::s1,s2"},
	{text: "switchname=s1 NODES=n[1-4] linkspeed=10\n", want: "s1:0:n1,n2,n3,n4:"},
	{text: "SwitchName=s1 Nodes=n[1-4] # a \\# and a continued comment \\\nSwitchName=s\\#2 Nodes=n1\n", want: "s1:0:n1,n2,n3,n4: s#2:0:n1:"},
	{text: "SwitchName=s1 Nodes+=n[1-2]\nSwitchName=s2 Nodes=n[3-4] Nodes=n[1-4]\n", want: "s1:0:n1,n2: s2:0:n1,n2,n3,n4:"},
	{text: "SwitchName=s1 Nodes=n[1-4] Swithces=s2\n", err: "did you mean Switches?"},
	{text: "SwitchNme=s1 Nodes=n[1-4]\n", err: "did you mean SwitchName?"},
	{text: "SwitchName=s1 Nodes=n[1-4] SwitchName=s2\n", err: "two SwitchName= on one line"},
	{text: "SwitchName=s1 Nodes=n[1-4]\nLinkSpeed=10\n", err: "not LinkSpeed="},
	{text: "SwitchName=s1 Nodes=n[1-4] \\\n LinkSpeed\n", err: "\"LinkSpeed\" is not KEY=VALUE"},
	{text: "Include INC\n", err: "Include", include: true},
	{text: "SwitchName=s2 Nodes=n[3-4]\ninclude inc.conf\nSwitchName=top Switches=s[1-2]\n", err: "Include", include: true},
	// %c: topology.conf's table has no ClusterName, so Slurm's Include fails
	// though inc-t.conf (ClusterName=t) is there; ParseTopologyConfIncluding
	// refuses it too (TestParseTopologyConfIncluding).
	{text: "Include inc-%c.conf\n", err: "Include"},
}

// topoSummary is what topoLineCases' want says of a tree.
func topoSummary(t *Tree) string {
	var out []string
	for _, s := range t.Switches {
		var ch []string
		for _, c := range s.Children {
			ch = append(ch, t.Switches[c].Name)
		}
		out = append(out, fmt.Sprintf("%s:%d:%s:%s", s.Name, s.Level, strings.Join(s.Nodes, ","), strings.Join(ch, ",")))
	}
	return strings.Join(out, " ")
}

func TestParseTopologyConfLinesAsSlurm(t *testing.T) {
	for _, c := range topoLineCases {
		top, err := ParseTopologyConf(strings.NewReader(c.text))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error with %q", c.text, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.err == "" && top.Tree == nil:
			t.Errorf("%q: not a tree", c.text)
		case c.err == "":
			if got := topoSummary(top.Tree); got != c.want {
				t.Errorf("%q: %s, want %s", c.text, got, c.want)
			}
		}
	}
}

// The same files loaded by slurmctld 22.05 (topology.conf is read only by the
// daemons; `slurmctld -D -i` with auth/none reads it at startup, logs each switch at
// -vv, and is stopped once it runs): a file ParseTopologyConf refuses is slurmctld's
// fatal "something wrong with opening/reading", a file it reads gives the switches
// slurmctld logs. Not -short; needs root and slurmctld (Debian: slurm-wlm).
func TestParseTopologyConfOnSlurmctld(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts slurmctld")
	}
	ctld, err := exec.LookPath("slurmctld")
	if err != nil {
		t.Skip("slurmctld not on PATH (Debian: apt-get install slurm-wlm): topology.conf is checked against Slurm's reader when it is installed")
	}
	if os.Getuid() != 0 {
		t.Skip("slurmctld runs as root here (SlurmUser=root)")
	}
	for i, c := range topoLineCases {
		dir := t.TempDir()
		text := strings.ReplaceAll(c.text, "INC", filepath.Join(dir, "inc.conf"))
		for _, inc := range []string{"inc.conf", "inc-t.conf"} {
			if err := os.WriteFile(filepath.Join(dir, inc), []byte("SwitchName=s1 Nodes=n[1-4]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		switches, fatal := runSlurmctldTopology(t, ctld, dir, text)
		top, ours := ParseTopologyConf(strings.NewReader(text))
		switch {
		case c.include:
			// Refused without a way to open the included file; followed with it.
			inc, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader(text), filepath.Join(dir, "topology.conf"), "", os.ReadFile)
			if ours == nil || fatal != "" || err != nil || topoSummary(inc.Tree) != switches {
				t.Errorf("case %d %q: ParseTopologyConf %v; ParseTopologyConfIncluding %v; slurmctld %q%s", i, text, ours, err, switches, fatal)
			}
			t.Logf("case %d: slurmctld %s, ParseTopologyConfIncluding %s", i, switches, topoSummary(inc.Tree))
		case ours != nil && fatal == "":
			t.Errorf("case %d %q: ParseTopologyConf refuses it (%v), slurmctld reads %q", i, text, ours, switches)
		case ours == nil && fatal != "":
			t.Errorf("case %d %q: ParseTopologyConf reads it, slurmctld: %s", i, text, fatal)
		case ours == nil && topoSummary(top.Tree) != switches:
			t.Errorf("case %d %q: ParseTopologyConf reads %s, slurmctld %s", i, text, topoSummary(top.Tree), switches)
		}
		if i == 0 || ours != nil {
			t.Logf("case %d: slurmctld: %s%s", i, switches, fatal)
		}
	}
}

// runSlurmctldTopology starts slurmctld on dir's slurm.conf and topology (text),
// returns the switches it logs as topoSummary writes them, or the lines of its
// refusal.
func runSlurmctldTopology(t *testing.T, ctld, dir, text string) (switches, fatal string) {
	t.Helper()
	conf := slurmtest.LocalCtldSettings(t, dir) +
		"TopologyPlugin=topology/tree\nNodeName=n[1-4] NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=ALL Default=YES\n"
	for name, data := range map[string]string{"slurm.conf": conf, "topology.conf": text} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sc, stop := slurmtest.StartSlurmctld(t, ctx, ctld, filepath.Join(dir, "slurm.conf"), "-vv")
	defer stop()
	var sw, bad []string
	for sc.Scan() {
		l := sc.Text()
		if i := strings.Index(l, "_log_switches: Switch level:"); i >= 0 {
			var level int
			var name, nodes, children string
			if _, err := fmt.Sscanf(l[i:], "_log_switches: Switch level:%d name:%s nodes:%s switches:%s", &level, &name, &nodes, &children); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			exp := func(s string) string {
				if s == "(null)" {
					return ""
				}
				h, err := hostlist.Expand(s)
				if err != nil {
					t.Fatalf("%q: %v", l, err)
				}
				return strings.Join(h, ",")
			}
			if children != "(null)" {
				nodes = "(null)" // an upper switch logs its descendants' nodes, which Tree does not hold
			}
			sw = append(sw, fmt.Sprintf("%s:%d:%s:%s", name, level, exp(nodes), exp(children)))
		}
		if strings.Contains(l, "topology.conf") && (strings.Contains(l, "error:") || strings.Contains(l, "fatal:")) ||
			strings.Contains(l, "unrecognized key") {
			bad = append(bad, l)
		}
		if strings.Contains(l, "fatal:") || strings.Contains(l, "Running as primary controller") {
			break
		}
	}
	return strings.Join(sw, " "), strings.Join(bad, "; ")
}
