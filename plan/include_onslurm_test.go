package plan

import (
	"context"
	"os"
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
		opt := versionedOptions(t, Version{23, 11, 0}, 50, conf)
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
					to = strings.Replace(IncludedDest(d.Included[i]), "/etc/slurm", out, 1) // apply.txt's install
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
