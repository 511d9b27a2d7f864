package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/slurmtest"
)

// confLineBase is a slurm.conf that Slurm reads; each case of confLineCases is
// appended to it (its lines start at confLineFirst).
const confLineBase = "ClusterName=t\nSlurmctldHost=localhost\nNodeName=n[1-2] CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=ALL Default=YES\n"

const confLineFirst = 5

// confLineCases are lines as Slurm's s_p_parse_file reads them: one pair on a
// line unless its first key is one of confLineKeys (whose handler reads the rest),
// keys in any case, '#' comments and '\' continuations before the pairs are
// read, nothing after "Include FILE".
var confLineCases = []struct {
	text string
	// second is the key a refusal names ("" when the line is read); pairs the
	// number of pairs of the case's last line when read.
	second string
	pairs  int
	// other: a line-key case that Slurm's parser reads but a Slurm may refuse for
	// another reason (Debian's 22.05 is built without front ends; PowerAction is
	// 26.05's).
	other bool
}{
	{text: "TopologyPlugin=topology/tree TopologyParam=SwitchAsNodeRank", second: "TopologyParam"},
	{text: "topologyplugin=topology/tree topologyparam=SwitchAsNodeRank", second: "topologyparam"},
	{text: "TopologyPlugin=topology/tree\tTopologyParam=SwitchAsNodeRank", second: "TopologyParam"},
	{text: "TopologyPlugin=topology/tree \\\nTopologyParam=SwitchAsNodeRank", second: "TopologyParam"},
	{text: "SchedulerParameters+=bf_continue MaxJobCount=5", second: "MaxJobCount"},
	{text: "ClusterName=\"a b\" SelectType=select/cons_tres", second: "SelectType"},
	{text: "SlurmctldHost=other SlurmctldPort=6817", second: "SlurmctldPort"},
	{text: "Include INC TopologyPlugin=topology/tree", second: "TopologyPlugin=topology/tree"},
	{text: "TopologyPlugin=topology/tree # TopologyParam=SwitchAsNodeRank", pairs: 1},
	{text: "TopologyPlugin = topology/tree   ", pairs: 1},
	{text: "TopologyParam=SwitchAsNodeRank \\\n  # continued into a comment", pairs: 1},
	{text: "ClusterName=\"a b\"", pairs: 1},
	{text: "Include INC", pairs: 1},
	{text: "nodename=m[1-2] cpus=1 weight=3", pairs: 3},
	{text: "NodeName=DEFAULT CPUs=1 Weight=4", pairs: 3},
	{text: "NodeName=m1 \\\n  CPUs=1 \\\n  Weight=2", pairs: 3},
	{text: "partitionname=q nodes=n1 default=no", pairs: 3},
	{text: "PartitionName=DEFAULT MaxTime=60 State=UP", pairs: 3},
	{text: "NodeSet=ns Nodes=n[1-2]", pairs: 2},
	{text: "nodeset=ns2 feature=gpu", pairs: 2},
	{text: "DownNodes=n1 State=DOWN Reason=\"bad fan\"", pairs: 3},
	{text: "FrontendName=fe1 State=UNKNOWN", pairs: 2, other: true},
	{text: "PowerAction=suspend Program=/usr/sbin/off Location=slurmctld", pairs: 3, other: true},
}

// A second pair on a line that is not a NodeName/PartitionName-style line is a
// parse error naming the line and the key, as in Slurm (one setting a line);
// the line keys keep every pair; Global then sees each setting.
func TestReadConfOneSettingALine(t *testing.T) {
	for _, c := range confLineCases {
		text := strings.ReplaceAll(c.text, "INC", "nodes.conf")
		conf, err := ReadConf([]byte(confLineBase + text + "\n"))
		if c.second != "" {
			var ce *ConfError
			if !errors.As(err, &ce) || ce.Line != confLineFirst || !strings.Contains(ce.Msg, c.second) || !strings.Contains(ce.Msg, "parse error") {
				t.Errorf("%q: %v, want a parse error of line %d naming %s", c.text, err, confLineFirst, c.second)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if l := conf.Lines[len(conf.Lines)-1]; l.First != confLineFirst || len(l.Pairs) != c.pairs {
			t.Errorf("%q: last line %d has pairs %+v, want %d pairs from line %d", c.text, l.First, l.Pairs, c.pairs, confLineFirst)
		}
	}
	conf, err := ReadConf([]byte("topologyplugin=topology/tree\nTopologyParam=SwitchAsNodeRank # and \\\nTopologyParam=Dragonfly\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The '\' in a comment continues nothing: three settings, the last
	// TopologyParam wins (Slurm: "specified more than once, latest value used").
	if got := conf.Global("TopologyPlugin") + " " + conf.Global("topologyparam"); len(conf.Lines) != 3 || got != "topology/tree Dragonfly" {
		t.Errorf("Global: %q of %d lines, want topology/tree and line 3's Dragonfly of 3 lines", got, len(conf.Lines))
	}
}

// The same lines through the installed Slurm's own parser (scontrol reads
// SLURM_CONF with s_p_parse_file before it does anything): a line ReadConf
// refuses is Slurm's "Parse error in file F line N", and a line it reads is read
// by Slurm. The scontrol on PATH and the one of the Slurm built from source
// (PROCALLOC_SLURM_NEW, default /opt/slurm-new) when there; skipped when neither.
func TestReadConfOneSettingALineOnSlurm(t *testing.T) {
	scontrols := scontrolsToCheck(t, "the lines are checked against Slurm's parser when it is installed")
	for _, scontrol := range scontrols {
		checkConfLinesWith(t, scontrol)
	}
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func checkConfLinesWith(t *testing.T, scontrol string) {
	t.Helper()
	dir := t.TempDir()
	inc := filepath.Join(dir, "inc.conf")
	if err := os.WriteFile(inc, []byte("SlurmdTimeout=300\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range confLineCases {
		text := strings.ReplaceAll(c.text, "INC", inc)
		file := filepath.Join(dir, fmt.Sprintf("slurm%d.conf", i))
		if err := os.WriteFile(file, []byte(confLineBase+text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, ours := ReadConf([]byte(confLineBase + text + "\n"))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, scontrol, "show", "hostnames", "x1")
		cmd.Env = append(os.Environ(), "SLURM_CONF="+file)
		out, err := cmd.CombinedOutput()
		cancel()
		parseErr := fmt.Sprintf("Parse error in file %s line %d:", file, confLineFirst)
		switch {
		case ours != nil && !strings.Contains(string(out), parseErr):
			t.Errorf("%q: ReadConf refuses it (%v), scontrol does not say %q: %v\n%s", c.text, ours, parseErr, err, out)
		case ours == nil && strings.Contains(string(out), "Parse error"):
			t.Errorf("%q: ReadConf reads it, scontrol: %s", c.text, out)
		case ours == nil && !c.other && err != nil:
			t.Errorf("%q: ReadConf reads it, scontrol fails: %v\n%s", c.text, err, out)
		}
		if i == 0 {
			t.Logf("%s: %q: %s", scontrol, c.text, strings.TrimSpace(string(out)))
		}
	}
}

// scontrolsToCheck returns the scontrol on PATH and the one of the Slurm built from
// source ($PROCALLOC_SLURM_NEW/bin, default /opt/slurm-new/bin) that exist, and skips
// the test, saying what would have been checked (what), when neither does.
func scontrolsToCheck(t *testing.T, what string) []string {
	t.Helper()
	var scontrols []string
	if s, err := exec.LookPath("scontrol"); err == nil {
		scontrols = append(scontrols, s)
	}
	prefix := slurmtest.NewPrefix()
	if s := filepath.Join(prefix, "bin", "scontrol"); fileExists(s) {
		scontrols = append(scontrols, s)
	}
	if len(scontrols) == 0 {
		t.Skip("scontrol not on PATH (Debian: apt-get install slurm-client) nor in " + prefix + ": " + what)
	}
	return scontrols
}
