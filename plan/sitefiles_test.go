package plan

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// splitNodesSite is a site of the sample fat tree whose NodeName lines are split
// over two included files (nodes-a.conf relative, with node01-08, and an
// absolute nodes-b.conf in another directory, with node09-16 and a
// NodeName=DEFAULT line of its own), whose leaves (node01,05,09,13 ...) each hold
// nodes of both files, and whose topology.conf includes its leaf lines
// (leaves.conf) and keeps the spines. dir is slurm.conf's directory, other the
// directory of nodes-b.conf; the map holds every file by path. swap puts
// node09-16 in nodes-a.conf and node01-08 in nodes-b.conf.
func splitNodesSite(dir, other string, swap bool) (conf string, files map[string]string) {
	a1, a2, b := "node[01-04]", "node[05-08]", "node[09-16]"
	if swap {
		a1, a2, b = "node[09-12]", "node[13-16]", "node[01-08]"
	}
	conf = "# site configuration\nClusterName=sample\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n" +
		"TopologyPlugin=topology/tree\nNodeName=DEFAULT CPUs=1 RealMemory=1000 State=UNKNOWN\n" +
		"Include nodes-a.conf\nInclude " + filepath.Join(other, "nodes-b.conf") + "\n" +
		"PartitionName=all Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE MaxTime=INFINITE\nPartitionName=half Nodes=node[01-08] OverSubscribe=EXCLUSIVE # rack A\n"
	files = map[string]string{
		filepath.Join(dir, "slurm.conf"):     conf,
		filepath.Join(dir, "nodes-a.conf"):   "# rack A\nNodeName=" + a1 + " # the first four\nNodeName=" + a2 + "\n",
		filepath.Join(other, "nodes-b.conf"): "# rack B (shared with the test cluster)\nNodeName=DEFAULT RealMemory=2000\n\nNodeName=" + b + "\n",
		filepath.Join(dir, "topology.conf"):  "# site topology\nInclude leaves.conf\nSwitchName=spine01 Switches=leaf[01-04]\nSwitchName=spine02 Switches=leaf[01-04] # second spine\n",
		filepath.Join(dir, "leaves.conf"): "# leaf switches, nodes cabled round-robin\nSwitchName=leaf01 Nodes=node[01,05,09,13] LinkSpeed=200\n" +
			"SwitchName=leaf02 Nodes=node[02,06,10,14] LinkSpeed=200\nSwitchName=leaf03 Nodes=node[03,07,11,15] LinkSpeed=200\nSwitchName=leaf04 Nodes=node[04,08,12,16] LinkSpeed=200\n",
	}
	return conf, files
}

// mayChange reports whether a deployment may rewrite a site's line: a NodeName
// line of a node (not DEFAULT), the topology settings, a partition's node list
// (names renames it) and a switch's node list (names).
func mayChange(line string) bool {
	l := strings.ToLower(strings.TrimSpace(line))
	return strings.HasPrefix(l, "nodename=node") || strings.HasPrefix(l, "topologyplugin=") || strings.HasPrefix(l, "topologyparam=") ||
		strings.HasPrefix(l, "partitionname=") || strings.HasPrefix(l, "switchname=") && strings.Contains(l, "nodes=")
}

// keptLines checks that every line of the site's file that a deployment has no
// need to change (mayChange) is in the written file byte for byte, in its order.
func keptLines(t *testing.T, what, site, written string) {
	t.Helper()
	w := strings.SplitAfter(written, "\n")
	j := 0
	for _, l := range strings.SplitAfter(site, "\n") {
		if l == "" || mayChange(l) {
			continue
		}
		for j < len(w) && w[j] != l {
			j++
		}
		if j == len(w) {
			t.Errorf("%s: the site's line %q is not kept byte for byte, in order:\n%s", what, l, written)
			return
		}
		j++
	}
}

// hostsByFile reads a configuration's files as Slurm does and lists the hosts
// (NodeHostname) each file defines, by path ("" the slurm.conf).
func hostsByFile(t *testing.T, conf []byte, confPath string, files map[string]string) map[string][]string {
	t.Helper()
	c, err := slurm.ReadConfIncluding(conf, confPath, func(n string) ([]byte, error) {
		if d, ok := files[n]; ok {
			return []byte(d), nil
		}
		return nil, fs.ErrNotExist
	})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, n := range nodes {
		f := c.Lines[n.Index].File
		out[f] = append(out[f], n.Hostname)
	}
	for _, hs := range out {
		slices.Sort(hs)
	}
	return out
}

// A site whose NodeName lines are split over two included files and whose
// topology.conf has an Include line gets its layout back from every deployment
// (Slurm 22.05, and 23.11 where the tree deployment reorders NodeName lines for
// SwitchAsNodeRank): each host stays in the file that defined it, every line
// the deployment has no need to change is written byte for byte in its file,
// slurm.conf's and topology.conf's Include lines are kept, and the names
// deployment renames the leaves in leaves.conf in place (topology.conf itself
// unchanged); the emulator places jobs as the emulation of the files put
// together does. apply.txt installs slurm.conf, topology.conf and the relative
// included files in the directory of --slurm-conf (not /etc/slurm), the
// absolute one at its name, backs each up first, and its cp and install lines,
// run by bash, put the deployment's files there.
func TestPlanKeepsSiteFiles(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: apply.txt's lines are run by bash")
	}
	for _, c := range []struct {
		ver  Version
		swap bool
	}{{Version{Major: 22, Minor: 5}, false}, {Version{Major: 23, Minor: 11}, false}, {Version{Major: 23, Minor: 11}, true}} {
		ver := c.ver
		root := t.TempDir()
		dir, other := filepath.Join(root, "etc", "slurm-llnl"), filepath.Join(root, "shared")
		conf, files := splitNodesSite(dir, other, c.swap)
		opt := versionedOptions(t, ver, 30, conf)
		opt.SlurmConfPath = filepath.Join(dir, "slurm.conf")
		opt.TopologyConf, opt.TopologyConfPath = []byte(files[filepath.Join(dir, "topology.conf")]), filepath.Join(dir, "topology.conf")
		opt.ReadIncluded = func(n string) ([]byte, error) {
			if d, ok := files[n]; ok {
				return []byte(d), nil
			}
			return nil, fs.ErrNotExist
		}
		opt.Deployment = KindNames
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		siteHosts := hostsByFile(t, []byte(conf), opt.SlurmConfPath, files)
		if len(siteHosts[filepath.Join(dir, "nodes-a.conf")]) != 8 || len(siteHosts[filepath.Join(other, "nodes-b.conf")]) != 8 {
			t.Fatalf("the site's hosts by file: %v", siteHosts)
		}
		checked := 0
		for _, d := range p.Deployments {
			if !d.Supported || d.Kind == KindAsRun || d.Kind == KindCurrent {
				continue
			}
			checked++
			what := fmt.Sprintf("%s swap=%v %s", ver, c.swap, d.Kind)
			// The files as Slurm would read them after apply.txt: the site's,
			// with the deployment's in place.
			written := map[string]string{}
			for k, v := range files {
				written[k] = v
			}
			written[opt.SlurmConfPath] = string(d.SlurmConf)
			for _, f := range d.allIncluded() {
				written[f.Path] = string(f.Data)
			}
			if d.Topology != nil {
				written[filepath.Join(dir, "topology.conf")] = string(d.Topology)
			}
			for path, site := range files {
				if (d.Kind == KindTree || d.Kind == KindBlock) && strings.HasPrefix(filepath.Base(path), "topology.conf") || path == filepath.Join(dir, "leaves.conf") && d.TopologyIncluded == nil {
					continue // topology.conf written whole (tree, block), or left
				}
				keptLines(t, what+" "+filepath.Base(path), site, written[path])
			}
			if got := hostsByFile(t, d.SlurmConf, opt.SlurmConfPath, written); fmt.Sprint(got) != fmt.Sprint(siteHosts) {
				t.Errorf("%s: hosts by file %v, the site's %v", what, got, siteHosts)
			}
			// Topology: names edits leaves.conf in place; tree and block write
			// topology.conf whole; weights keep the site's.
			switch d.Kind {
			case KindNames:
				if string(d.Topology) != files[filepath.Join(dir, "topology.conf")] {
					t.Errorf("%s: topology.conf %q, want the site's byte for byte (Include kept, the spines unchanged)", what, d.Topology)
				}
				if len(d.TopologyIncluded) != 1 || !d.TopologyIncluded[0].Changed || d.TopologyIncluded[0].Path != filepath.Join(dir, "leaves.conf") {
					t.Fatalf("%s: topology.conf's included files %+v, want leaves.conf changed", what, d.TopologyIncluded)
				}
				top, err := slurm.ParseTopologyConfIncluding(context.Background(), bytes.NewReader(d.Topology), filepath.Join(dir, "topology.conf"), opt.SlurmConfPath, func(n string) ([]byte, error) { return []byte(written[n]), nil })
				if err != nil {
					t.Fatalf("%s: the written topology.conf: %v", what, err)
				}
				for _, s := range top.Tree.Switches {
					for _, n := range s.Nodes {
						if !strings.HasPrefix(n, "c") {
							t.Errorf("%s: switch %s (%s line %d) still names %s", what, s.Name, s.File, s.Line, n)
						}
					}
				}
			case KindTree, KindBlock:
				if d.TopologyIncluded != nil {
					t.Errorf("%s: a topology.conf written whole with included files %+v", what, d.TopologyIncluded)
				}
				// With node09-16 in the first file every leaf's nodes of the
				// second file rank first: SwitchAsNodeRank follows the files,
				// and the note says so (the emulation, checked below, too).
				note := slices.ContainsFunc(d.Notes, func(n string) bool {
					return strings.Contains(n, "4 of 4 leaves hold nodes of more than one of them, and inside those Slurm follows the ordering file by file")
				})
				if d.Kind == KindTree && ver.AtLeast(V2302) && note != c.swap {
					t.Errorf("%s: the note on leaves across files: %v, want %v: %q", what, note, c.swap, d.Notes)
				}
			case KindWeights:
				if d.Topology != nil {
					t.Errorf("%s: writes a topology file; the site's stays", what)
				}
			}
			mine, err := d.Allocator()
			if err != nil {
				t.Fatal(err)
			}
			samePlacements(t, what, mine, slurmFromFiles(t, p, d, ver), 11)
			// apply.txt: destinations in the directory of --slurm-conf, run.
			apply := p.applyText(d)
			if strings.Contains(apply, "/etc/slurm/") {
				t.Errorf("%s: apply.txt names /etc/slurm/:\n%s", what, apply)
			}
			if head := "# slurm.conf's directory: " + dir + " (the directory of --slurm-conf " + opt.SlurmConfPath + ")"; !strings.Contains(apply, head) {
				t.Errorf("%s: apply.txt does not say %q:\n%s", what, head, apply)
			}
			want := []string{"install -m 644 slurm.conf " + filepath.Join(dir, "slurm.conf"), "cp -p " + filepath.Join(dir, "slurm.conf") + " "}
			for _, f := range d.allIncluded() {
				if f.Changed {
					want = append(want, "install -m 644 "+p.IncludedName(f)+" "+f.Path, "cp -p "+f.Path+" "+f.Path+".before-procalloc")
				}
			}
			if d.Topology != nil {
				want = append(want, "install -m 644 topology.conf "+filepath.Join(dir, "topology.conf"), "cp -p "+filepath.Join(dir, "topology.conf")+" ")
			}
			if d.Kind == KindTree || d.Kind == KindBlock {
				want = append(want, "whose Include lines named "+filepath.Join(dir, "leaves.conf")+": Slurm no longer reads those files")
			}
			for _, w := range want {
				if !strings.Contains(apply, w) {
					t.Errorf("%s: apply.txt has no %q:\n%s", what, w, apply)
				}
			}
			runApplyCopies(t, what, p, d, apply, files, written)
		}
		if want := map[bool]int{false: 3, true: 4}[ver.AtLeast(V2311)]; checked != want {
			t.Errorf("%s swap=%v: %d deployments checked, want %d (weights, names, tree; block from 23.11)", ver, c.swap, checked, want)
		}
		var names []string
		for _, f := range p.Files {
			names = append(names, f.Name)
		}
		for _, n := range []string{"names/slurm.conf", "names/nodes-a.conf", "names/nodes-b.conf", "names/topology.conf", "names/leaves.conf", "names/apply.txt"} {
			if !slices.Contains(names, n) {
				t.Errorf("%s swap=%v: no %s among %q", ver, c.swap, n, names)
			}
		}
	}
}

// runApplyCopies lays the site's files out under a temporary root (their paths
// below it), runs apply.txt's backup and install lines there with bash (the
// deployment's files in the working directory, the paths moved under the root),
// and checks that each destination then holds what Slurm should read (want, by
// the site's path) and each backup the site's file.
func runApplyCopies(t *testing.T, what string, p *Plan, d *Deployment, apply string, site, want map[string]string) {
	t.Helper()
	root, work := t.TempDir(), t.TempDir()
	for path, data := range site {
		to := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range p.deploymentFiles(d, "") {
		to := filepath.Join(work, f.Name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ran := 0
	for _, l := range strings.Split(apply, "\n") {
		cmdline, ok := strings.CutPrefix(l, "       ")
		if !ok || !strings.HasPrefix(cmdline, "cp -p ") && !strings.HasPrefix(cmdline, "install -m 644 ") {
			continue
		}
		// Each absolute path under root.
		f := strings.Fields(cmdline)
		for i, a := range f {
			if strings.HasPrefix(a, "/") {
				f[i] = filepath.Join(root, a)
			}
		}
		cmd := exec.Command("bash", "-c", strings.Join(f, " "))
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", what, cmdline, err, out)
		}
		ran++
	}
	for path, data := range want {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil || string(got) != data {
			t.Errorf("%s: after apply.txt's %d lines %s holds %q (%v), want %q", what, ran, path, got, err, data)
		}
	}
	for _, f := range d.allIncluded() {
		if f.Changed {
			if got, err := os.ReadFile(filepath.Join(root, f.Path+".before-procalloc")); err != nil || string(got) != site[f.Path] {
				t.Errorf("%s: the backup of %s: %q %v", what, f.Path, got, err)
			}
		}
	}
}

// apply.txt's destination: the directory of an absolute --slurm-conf, or
// --slurm-conf-dir (which wins, for a copy); not known for a relative name or
// standard input, when apply.txt says so, names --slurm-conf-dir and writes
// every destination under "${SLURM_CONF_DIR:?}", which bash refuses until it
// is set and then installs there. A relative --slurm-conf-dir is refused.
func TestApplyDestination(t *testing.T) {
	base, err := os.ReadFile("testdata/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	topology, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(base) + "TopologyPlugin=topology/tree\n"
	for _, c := range []struct{ path, dir, head, slurmConf, topology string }{
		{"/etc/slurm-llnl/slurm.conf", "", "# slurm.conf's directory: /etc/slurm-llnl (the directory of --slurm-conf /etc/slurm-llnl/slurm.conf);",
			"/etc/slurm-llnl/slurm.conf", "/etc/slurm-llnl/topology.conf"},
		{"/home/admin/copy/slurm.conf", "/opt/slurm/etc", "# slurm.conf's directory: /opt/slurm/etc (given by --slurm-conf-dir);",
			"/opt/slurm/etc/slurm.conf", "/opt/slurm/etc/topology.conf"},
		{"slurm.conf", "/srv/my slurm", "# slurm.conf's directory: /srv/my slurm (given by --slurm-conf-dir);",
			"'/srv/my slurm'/slurm.conf", "'/srv/my slurm'/topology.conf"},
		{"slurm.conf", "", "# slurm.conf's directory: not known (--slurm-conf slurm.conf is a relative name (a copy?)).",
			`"${SLURM_CONF_DIR:?}"/slurm.conf`, `"${SLURM_CONF_DIR:?}"/topology.conf`},
		{"-", "", "# slurm.conf's directory: not known (slurm.conf was read from standard input).",
			`"${SLURM_CONF_DIR:?}"/slurm.conf`, `"${SLURM_CONF_DIR:?}"/topology.conf`},
	} {
		opt := versionedOptions(t, Version{Major: 22, Minor: 5}, 20, conf)
		opt.SlurmConfPath, opt.SlurmConfDir = c.path, c.dir
		opt.TopologyConf, opt.TopologyConfPath = topology, "topology.conf"
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		d := p.Deployment(KindTree)
		apply := p.applyText(d)
		for _, w := range []string{c.head, "install -m 644 slurm.conf " + c.slurmConf + "\n", "install -m 644 topology.conf " + c.topology + "\n",
			"cp -p " + c.topology + " " + strings.Replace(c.topology, "topology.conf", "topology.conf.before-procalloc", 1) + "\n", "--slurm-conf-dir DIR"} {
			if !strings.Contains(apply, w) {
				t.Errorf("--slurm-conf %s --slurm-conf-dir %q: apply.txt has no %q:\n%s", c.path, c.dir, w, apply)
			}
		}
		if strings.Contains(apply, "/etc/slurm/") {
			t.Errorf("--slurm-conf %s: apply.txt names /etc/slurm/:\n%s", c.path, apply)
		}
		// The report says it too.
		if !slices.ContainsFunc(p.Report.Notes, func(n string) bool {
			return strings.Contains(n, strings.TrimPrefix(strings.SplitN(c.head, " (", 2)[0], "# slurm.conf's directory: "))
		}) {
			t.Errorf("--slurm-conf %s: the report's notes do not name the directory: %q", c.path, p.Report.Notes)
		}
		if c.dir != "" || c.path[0] == '/' {
			continue
		}
		// Not known: the shell refuses the line until SLURM_CONF_DIR is set.
		if _, err := exec.LookPath("bash"); err != nil {
			continue
		}
		work, etc := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(work, "slurm.conf"), d.SlurmConf, 0o644); err != nil {
			t.Fatal(err)
		}
		line := "install -m 644 slurm.conf " + c.slurmConf
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir, cmd.Env = work, []string{"PATH=" + os.Getenv("PATH")}
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "SLURM_CONF_DIR") {
			t.Errorf("%s without SLURM_CONF_DIR: %v %s", line, err, out)
		}
		cmd = exec.Command("bash", "-c", line)
		cmd.Dir, cmd.Env = work, []string{"PATH=" + os.Getenv("PATH"), "SLURM_CONF_DIR=" + etc}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s with SLURM_CONF_DIR: %v %s", line, err, out)
		}
		if got, err := os.ReadFile(filepath.Join(etc, "slurm.conf")); err != nil || !bytes.Equal(got, d.SlurmConf) {
			t.Errorf("%s with SLURM_CONF_DIR=%s: %v", line, etc, err)
		}
	}
	opt := versionedOptions(t, Version{Major: 22, Minor: 5}, 20, conf)
	opt.SlurmConfDir = "etc/slurm"
	if _, err := Make(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "want an absolute path") {
		t.Errorf("--slurm-conf-dir etc/slurm: %v", err)
	}
}
