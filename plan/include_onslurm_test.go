package plan

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// The files plan writes for a site whose nodes (Include nodes.conf, relative)
// and partitions (an absolute Include) are in included files, installed as
// apply.txt says (slurm.conf and the relative nodes.conf in slurm.conf's
// directory, a changed parts.conf at its absolute name, topology.conf beside
// slurm.conf), load in slurmctld (22.05; 26.05 when built) with the partitions
// procalloc reads from them: the site's for weights and tree, which leave
// parts.conf as it is, renamed for names, which rewrites it. Not -short; needs
// root and slurmctld.
func TestPlanIncludedFilesOnSlurmctld(t *testing.T) {
	ctlds := slurmtest.NeedCtlds(t, "the written files")
	for _, s := range ctlds {
		site := t.TempDir()
		parts := filepath.Join(site, "parts.conf")
		conf := "ClusterName=sample\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nInclude nodes.conf\nInclude " + parts + "\n"
		files := map[string]string{
			"slurm.conf": conf,
			"nodes.conf": slurmtest.LocalNodeAddr("NodeName=DEFAULT CPUs=1 RealMemory=1000 State=UNKNOWN\nNodeName=node[01-16]\n"),
			"parts.conf": "PartitionName=all Nodes=node[01-16] Default=YES OverSubscribe=EXCLUSIVE MaxTime=INFINITE\nPartitionName=half Nodes=node[01-08] OverSubscribe=EXCLUSIVE\n",
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(site, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before, fatal := slurmtest.SlurmctldPartitions(t, s.Slurmctld, s.Scontrol, site, conf)
		if fatal != "" || before != "all=node[01-16] half=node[01-08]" {
			t.Fatalf("%s: the site's files: %s%s", s.Name, before, fatal)
		}
		opt := versionedOptions(t, Version{Major: 23, Minor: 11}, 50, conf)
		opt.SlurmConfPath, opt.ReadIncluded = filepath.Join(site, "slurm.conf"), os.ReadFile
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []Kind{KindWeights, KindTree, KindNames} {
			d := p.Deployment(k)
			out := t.TempDir() // stands for /etc/slurm
			// The site's parts.conf back as it was (a names deployment before
			// changed it).
			if err := os.WriteFile(parts, []byte(files["parts.conf"]), 0o644); err != nil {
				t.Fatal(err)
			}
			var written []string
			for _, f := range p.deploymentFiles(d, "") {
				to := filepath.Join(out, f.Name)
				if i := slices.IndexFunc(d.Included, func(x slurm.IncludedFile) bool { return x.Changed && p.IncludedName(x) == f.Name }); i >= 0 {
					// apply.txt's install: an absolute name where it names, a
					// relative one in slurm.conf's directory (out, for site).
					if to = p.IncludedDest(d.Included[i]); !filepath.IsAbs(d.Included[i].Name) {
						to = filepath.Join(out, strings.TrimPrefix(to, site+"/"))
					}
				}
				if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(to, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				written = append(written, f.Name)
			}
			want := []string{"slurm.conf", "nodes.conf", "topology.conf"}
			switch k {
			case KindWeights:
				want = want[:2]
			case KindNames:
				want = []string{"slurm.conf", "nodes.conf", "parts.conf"}
			}
			if !slices.Equal(written, want) {
				t.Errorf("%s %s: files %q, want %q", s.Name, k, written, want)
			}
			c, err := slurm.ReadConfIncluding(d.SlurmConf, filepath.Join(out, "slurm.conf"), os.ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := c.Partitions(nil)
			if err != nil {
				t.Fatal(err)
			}
			var ours []string
			for _, x := range ps {
				hs := slices.Clone(x.Hosts)
				slices.SortFunc(hs, hostlist.NaturalCompare)
				h, _ := hostlist.Compress(hs)
				ours = append(ours, x.Name+"="+h)
			}
			got, fatal := slurmtest.SlurmctldPartitions(t, s.Slurmctld, s.Scontrol, out, string(d.SlurmConf))
			wantParts := before
			if k == KindNames {
				wantParts = "all=c[01-16] half=" + renamedHalf(d)
			}
			if fatal != "" || got != strings.Join(ours, " ") || got != wantParts {
				t.Errorf("%s %s: slurmctld on the files written: %s%s; procalloc reads %s; want %s", s.Name, k, got, fatal, strings.Join(ours, " "), wantParts)
			}
			t.Logf("slurmctld %s, %s deployment (%s): %s", s.Name, k, strings.Join(written, " "), got)
		}
	}
}

// renamedHalf is partition half's nodes (node01-08) under the names deployment.
func renamedHalf(d *Deployment) string {
	var hs []string
	for v := range d.plan.Names {
		if n := d.plan.Names[v]; n <= "node08" {
			hs = append(hs, d.NodeName(v))
		}
	}
	slices.SortFunc(hs, hostlist.NaturalCompare)
	h, _ := hostlist.Compress(hs)
	return h
}

// A site whose NodeName lines are split over two included files (one relative,
// one absolute in another directory; every leaf holding nodes of both, those of
// the second file first in name order) and whose topology.conf includes its leaf
// lines: plan is given slurm.conf by its path, and apply.txt's backup and install
// lines, run as written by bash, put each deployment's files (weights, tree,
// names; block too on 26.05) into the site's directories, each file under its
// own name. slurmctld (22.05 with a 22.05 plan; 26.05.3, when built, with a 26.05
// plan) then loads them with the partitions and the leaves (or blocks)
// procalloc reads from the same files; on 26.05 with SwitchAsNodeRank (tree),
// `scontrol show node` lists the nodes in the order the emulation ranks them.
// Not -short; needs root, bash and slurmctld.
func TestPlanSiteFilesOnSlurmctld(t *testing.T) {
	ctlds := slurmtest.NeedCtlds(t, "the site's files written back")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: apply.txt's lines are run by bash")
	}
	for _, s := range ctlds {
		root := t.TempDir()
		dir, other := filepath.Join(root, "etc", "slurm-llnl"), filepath.Join(root, "shared")
		conf, files := splitNodesSite(dir, other, true)
		for path, data := range files {
			if strings.HasPrefix(filepath.Base(path), "nodes-") {
				files[path] = slurmtest.LocalNodeAddr(data)
			}
		}
		restore := func() {
			for path, data := range files {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		restore()
		ver, kinds := Version{Major: 22, Minor: 5}, []Kind{KindWeights, KindTree, KindNames}
		if s.V2311 {
			ver, kinds = Version{Major: 26, Minor: 5}, append(kinds, KindBlock)
		}
		opt := versionedOptions(t, ver, 50, conf)
		opt.SlurmConfPath, opt.ReadIncluded = filepath.Join(dir, "slurm.conf"), os.ReadFile
		opt.TopologyConf, opt.TopologyConfPath = []byte(files[filepath.Join(dir, "topology.conf")]), filepath.Join(dir, "topology.conf")
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kinds {
			d := p.Deployment(k)
			if !d.Supported {
				t.Fatalf("%s %s not supported: %s", s.Name, k, d.Why)
			}
			restore()
			work := t.TempDir()
			var written []string
			for _, f := range p.deploymentFiles(d, "") {
				if err := os.WriteFile(filepath.Join(work, f.Name), f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				written = append(written, f.Name)
			}
			ran := 0
			for _, l := range strings.Split(p.applyText(d), "\n") {
				cmdline, ok := strings.CutPrefix(l, "       ")
				if !ok || !strings.HasPrefix(cmdline, "cp -p ") && !strings.HasPrefix(cmdline, "install -m 644 ") {
					continue
				}
				cmd := exec.Command("bash", "-c", cmdline)
				cmd.Dir = work
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %s: %s: %v\n%s", s.Name, k, cmdline, err, out)
				}
				ran++
			}
			// What procalloc reads from the files installed.
			c, err := slurm.ReadConfIncluding(d.SlurmConf, opt.SlurmConfPath, os.ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			nodes, err := c.Nodes()
			if err != nil {
				t.Fatal(err)
			}
			ps, err := c.Partitions(nodes)
			if err != nil {
				t.Fatal(err)
			}
			var ours []string
			for _, x := range ps {
				hs := slices.Clone(x.Hosts)
				if strings.EqualFold(x.Nodes, "ALL") { // nil Hosts: every node
					for _, n := range nodes {
						hs = append(hs, n.Name)
					}
				}
				slices.SortFunc(hs, hostlist.NaturalCompare)
				h, _ := hostlist.Compress(hs)
				ours = append(ours, x.Name+"="+h)
			}
			topoText, err := os.ReadFile(filepath.Join(dir, "topology.conf"))
			if err != nil {
				t.Fatal(err)
			}
			top, err := slurm.ParseTopologyConfIncluding(context.Background(), bytes.NewReader(topoText), filepath.Join(dir, "topology.conf"), opt.SlurmConfPath, os.ReadFile)
			if err != nil {
				t.Fatalf("%s %s: the installed topology.conf: %v", s.Name, k, err)
			}
			var leaves []string
			if top.Tree != nil {
				for _, sw := range top.Tree.Switches {
					if sw.Level == 0 {
						leaves = append(leaves, sw.Name+"="+sortedList(sw.Nodes))
					}
				}
			} else {
				for _, b := range top.Blocks.Blocks {
					leaves = append(leaves, b.Name+"="+sortedList(b.Nodes))
				}
			}
			out, fatal := slurmtest.SlurmctldShow(t, s.Slurmctld, s.Scontrol, dir, string(d.SlurmConf), "partition", "topology", "node")
			if fatal != "" {
				t.Fatalf("%s %s: slurmctld on the files written: %s", s.Name, k, fatal)
			}
			parts := shown(t, out[0], "PartitionName", "")
			shownLeaves := shown(t, out[1], "SwitchName", "Level=0")
			if top.Blocks != nil {
				shownLeaves = shown(t, out[1], "BlockName", "")
				shownLeaves = slices.DeleteFunc(shownLeaves, func(b string) bool { // aggregated blocks: the written ones only
					return !slices.ContainsFunc(leaves, func(l string) bool { return strings.SplitN(l, "=", 2)[0] == strings.SplitN(b, "=", 2)[0] })
				})
			}
			if strings.Join(parts, " ") != strings.Join(ours, " ") || strings.Join(shownLeaves, " ") != strings.Join(leaves, " ") {
				t.Errorf("%s %s: slurmctld shows partitions %q and leaves %q; procalloc reads %q and %q", s.Name, k, parts, shownLeaves, ours, leaves)
			}
			// Where the nodes are: each host in the file the site defined it in.
			byFile := hostsByFile(t, d.SlurmConf, opt.SlurmConfPath, readAll(t, filepath.Join(dir, "nodes-a.conf"), filepath.Join(other, "nodes-b.conf")))
			if a, b := byFile[filepath.Join(dir, "nodes-a.conf")], byFile[filepath.Join(other, "nodes-b.conf")]; sortedList(a) != "node[09-16]" || sortedList(b) != "node[01-08]" {
				t.Errorf("%s %s: the installed files define %v and %v, the site's node[09-16] and node[01-08]", s.Name, k, a, b)
			}
			if k == KindTree && ver.AtLeast(V2302) {
				// The node table: SwitchAsNodeRank's order, as the emulation ranks it.
				var got []string
				for _, l := range strings.Split(strings.TrimSpace(out[2]), "\n") {
					if f := strings.Fields(l); len(f) > 0 {
						got = append(got, strings.TrimPrefix(f[0], "NodeName="))
					}
				}
				want := slices.Clone(p.Names)
				rank := map[string]string{}
				for v, n := range p.Names {
					rank[n] = d.cfg.Names[v]
				}
				slices.SortFunc(want, func(a, b string) int { return strings.Compare(rank[a], rank[b]) })
				if !slices.Equal(got, want) {
					t.Errorf("%s %s: scontrol show node lists %v, the emulation ranks %v", s.Name, k, got, want)
				}
				t.Logf("slurmctld %s, %s: node table %s", s.Name, k, strings.Join(got, ","))
			}
			t.Logf("slurmctld %s, %s deployment (%s; %d lines of apply.txt run): partitions %s; leaves %s", s.Name, k, strings.Join(written, " "), ran, strings.Join(parts, " "), strings.Join(shownLeaves, " "))
		}
	}
}

// sortedList is a node list as a hostlist sorted by name.
func sortedList(nodes []string) string {
	hs := slices.Clone(nodes)
	slices.SortFunc(hs, hostlist.NaturalCompare)
	h, _ := hostlist.Compress(hs)
	return h
}

// shown lists "NAME=HOSTLIST" for each line of `scontrol -o show` output that
// has key (and holds want), its Nodes= sorted by name.
func shown(t *testing.T, out, key, want string) []string {
	t.Helper()
	var list []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(l, want) {
			continue
		}
		var name, nodes string
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(f, "Nodes="); ok {
				nodes = v
			}
		}
		if name == "" {
			continue
		}
		hs, err := hostlist.Expand(nodes)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		list = append(list, name+"="+sortedList(hs))
	}
	return list
}

// readAll reads files into a map by path.
func readAll(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m[p] = string(b)
	}
	return m
}
