package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// splitSite is siteConf (without its Include line) with its NodeName lines
// moved to one included file and its PartitionName lines to another: the
// slurm.conf that includes them by the names given (relative or absolute), and
// the two files.
func splitSite(nodesName, partsName string) (conf, nodes, parts string) {
	var main, inc, part strings.Builder
	included, partIncluded := false, false
	lines := strings.SplitAfter(siteConf, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "Include ") {
			continue
		}
		if strings.HasPrefix(l, "PartitionName=") {
			if !partIncluded {
				main.WriteString("Include " + partsName + "\n")
				partIncluded = true
			}
			part.WriteString(l)
			continue
		}
		if strings.HasPrefix(strings.ToLower(l), "nodename=") {
			if !included {
				main.WriteString("Include " + nodesName + "\n")
				included = true
			}
			inc.WriteString(l)
			for strings.HasSuffix(strings.TrimRight(strings.SplitN(l, "#", 2)[0], " \n"), `\`) {
				i++
				l = lines[i]
				inc.WriteString(l)
			}
			continue
		}
		main.WriteString(l)
	}
	return main.String(), inc.String(), part.String()
}

// putTogether is a deployment's configuration as Slurm reads it: its slurm.conf
// with each Include line replaced by the included file's lines.
func putTogether(t *testing.T, d *Deployment) string {
	t.Helper()
	return putTogetherFiles(t, d.SlurmConf, d.Included)
}

// putTogetherFiles is a file (slurm.conf, topology.conf) with each Include line
// replaced by the lines of its file among included, nested ones too.
func putTogetherFiles(t *testing.T, data []byte, included []slurm.IncludedFile) string {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(l), "Include "); ok {
			i := slices.IndexFunc(included, func(f slurm.IncludedFile) bool { return f.Name == name })
			if i < 0 {
				t.Fatalf("no included file for %q", l)
			}
			b.WriteString(putTogetherFiles(t, included[i].Data, included))
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// procalloc plan on a slurm.conf whose NodeName and PartitionName lines are in
// two included files (Include nodes.conf, relative to the slurm.conf's
// directory, and an absolute name; then the other way round) plans as on the
// files put together: the same report (ordering, every deployment's figures);
// each deployment keeps slurm.conf's Include lines and writes each included file
// it changes under its own name (IncludedName), the files put together defining
// the nodes, weights and partitions of the deployment made from the files put
// together, placing jobs as the emulation of the written files does; an
// unchanged file (the partitions, but for names) is not written and apply.txt
// says to keep it; apply.txt copies each changed file to where its Include line
// names it (a relative name in the directory of --slurm-conf). A warning names
// the Include lines. Without a way to read the included files the plan is
// refused, naming the Include line.
func TestPlanFollowsInclude(t *testing.T) {
	whole := strings.Replace(siteConf, "Include /etc/slurm/nodes-extra.conf\n", "", 1)
	ver := Version{Major: 23, Minor: 11}
	refOpt := versionedOptions(t, ver, 20, whole)
	refOpt.SlurmConfPath = "/etc/site/slurm.conf" // apply.txt's directory, in the report's notes
	ref, err := Make(context.Background(), refOpt)
	if err != nil {
		t.Fatal(err)
	}
	refDeps := deploymentsByKind(ref)
	for _, c := range []struct{ nodes, parts, partsPath string }{
		{"nodes.conf", "/etc/site/parts.conf", "/etc/site/parts.conf"},
		{"/etc/site/nodes.conf", "conf.d/parts.conf", "/etc/site/conf.d/parts.conf"},
	} {
		conf, nodes, parts := splitSite(c.nodes, c.parts)
		files := map[string]string{"/etc/site/nodes.conf": nodes, c.partsPath: parts}
		opt := versionedOptions(t, ver, 20, conf)
		opt.SlurmConfPath = "/etc/site/slurm.conf"
		opt.Deployment = KindNames
		var opened []string
		opt.ReadIncluded = func(n string) ([]byte, error) {
			opened = append(opened, n)
			data, ok := files[n]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return []byte(data), nil
		}
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatalf("Include %s: %v", c.nodes, err)
		}
		if !slices.Equal(opened, []string{"/etc/site/nodes.conf", c.partsPath}) {
			t.Errorf("Include %s: opened %q", c.nodes, opened)
		}
		if !slices.ContainsFunc(p.Report.Warnings, func(w string) bool {
			return strings.Contains(w, "line 5: "+c.nodes) && strings.Contains(w, "line 8: "+c.parts) && strings.Contains(w, "under its own name")
		}) {
			t.Errorf("Include %s: no warning names the Include lines and what is written: %q", c.nodes, p.Report.Warnings)
		}
		if !slices.Equal(p.Order.Ranks(), ref.Order.Ranks()) {
			t.Errorf("Include %s: ordering %v, on the files put together %v", c.nodes, p.Order.Ranks(), ref.Order.Ranks())
		}
		a, b := p.Report, ref.Report
		a.Warnings, b.Warnings = nil, nil
		a.Ordering.Seconds, b.Ordering.Seconds = 0, 0 // the solve's time
		a.Files, b.Files = nil, nil                   // the included files written
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("Include %s: report\n%s\non the files put together\n%s", c.nodes, ja, jb)
		}
		checked := 0
		for _, d := range p.Deployments {
			r := refDeps[d.Kind]
			if !d.Supported || d.SlurmConf == nil || d.Kind == KindCurrent || d.Kind == KindTorus3D {
				continue
			}
			checked++
			what := fmt.Sprintf("Include %s, %s", c.nodes, d.Kind)
			for _, l := range strings.SplitAfter(conf, "\n") {
				if strings.HasPrefix(l, "Include ") && !strings.Contains(string(d.SlurmConf), l) {
					t.Errorf("%s: the written slurm.conf lost %q:\n%s", what, l, d.SlurmConf)
				}
			}
			var changed []string
			for _, f := range d.Included {
				if f.Changed {
					changed = append(changed, p.IncludedName(f))
				}
			}
			wantChanged := []string{"nodes.conf"}
			if d.Kind == KindNames {
				wantChanged = append(wantChanged, includedAs(c.parts))
			}
			if !slices.Equal(changed, wantChanged) {
				t.Errorf("%s: changed files %q, want %q", what, changed, wantChanged)
			}
			got, err := confSummary([]byte(putTogether(t, d)))
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			w, err := confSummary(r.SlurmConf)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got != w {
				t.Errorf("%s: the files written define\n%s\nthe files put together\n%s", what, got, w)
			}
			apply := p.applyText(d)
			// Relative or absolute, in /etc/site: a relative name in the
			// directory of --slurm-conf (it was /etc/slurm whatever the path).
			nodesDest := "/etc/site/nodes.conf"
			for _, s := range []string{"install -m 644 nodes.conf " + nodesDest + "\n", "cp -p " + nodesDest + " " + nodesDest + ".before-procalloc\n"} {
				if !strings.Contains(apply, s) {
					t.Errorf("%s: apply.txt has no %q:\n%s", what, s, apply)
				}
			}
			if keep := "Unchanged, keep as they are: " + c.partsPath + "\n"; strings.Contains(apply, keep) == (d.Kind == KindNames) {
				t.Errorf("%s: apply.txt and %q:\n%s", what, keep, apply)
			}
			if d.Kind == KindAsRun {
				continue
			}
			mine, err := d.Allocator()
			if err != nil {
				t.Fatal(err)
			}
			samePlacements(t, what, mine, slurmFromFiles(t, p, d, ver), 7)
		}
		if checked != 4 {
			t.Errorf("Include %s: %d deployments checked, want 4 (weights, names, tree, block)", c.nodes, checked)
		}
		// The files: names/ holds the names deployment's slurm.conf and both
		// included files under their names; the top directory the
		// recommendation's.
		var names []string
		for _, f := range p.Files {
			names = append(names, f.Name)
		}
		for _, n := range []string{"names/slurm.conf", "names/nodes.conf", "names/" + includedAs(c.parts), "names/apply.txt"} {
			if !slices.Contains(names, n) {
				t.Errorf("Include %s: no %s among %q", c.nodes, n, names)
			}
		}
		if rec := p.Deployment(Kind(p.Report.Recommended)); rec.Kind != KindCurrent && !slices.Contains(names, "nodes.conf") {
			t.Errorf("Include %s: recommended %s, no nodes.conf among %q", c.nodes, rec.Kind, names)
		}
		// Not followed (no ReadIncluded): refused, naming the Include line.
		opt.ReadIncluded = nil
		if _, err := Make(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "Include lines are not followed: line 5: "+c.nodes) {
			t.Errorf("Include %s not followed: %v", c.nodes, err)
		}
	}
	// A missing included file: the Include line named.
	conf, _, _ := splitSite("nodes.conf", "parts.conf")
	opt := versionedOptions(t, ver, 20, conf)
	opt.SlurmConfPath = "/etc/site/slurm.conf"
	opt.ReadIncluded = func(n string) ([]byte, error) { return nil, &fs.PathError{Op: "open", Path: n, Err: fs.ErrNotExist} }
	_, err = Make(context.Background(), opt)
	if w := "/etc/site/slurm.conf: line 5: Include nodes.conf: open /etc/site/nodes.conf: file does not exist"; err == nil || !strings.Contains(err.Error(), w) {
		t.Errorf("missing nodes.conf: %v, want %q", err, w)
	}
}

// includedAs is the name IncludedName gives the file of Include name.
func includedAs(name string) string {
	if strings.HasPrefix(name, "/") {
		return path.Base(name)
	}
	return name
}

func deploymentsByKind(p *Plan) map[Kind]*Deployment {
	m := map[Kind]*Deployment{}
	for _, d := range p.Deployments {
		m[d.Kind] = d
	}
	return m
}

// confSummary lists what a slurm.conf defines: each node with its weight, CPUs
// and address, the partitions, the global settings.
func confSummary(data []byte) (string, error) {
	c, err := slurm.ReadConf(data)
	if err != nil {
		return "", err
	}
	nodes, err := c.Nodes()
	if err != nil {
		return "", err
	}
	parts, err := c.Partitions(nodes)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range nodes {
		fmt.Fprintf(&b, "%s w%d c%d %s %s\n", n.Name, n.Weight, n.CPUs, n.Hostname, n.Addr)
	}
	for _, p := range parts {
		fmt.Fprintf(&b, "partition %s %s %v %s\n", p.Name, p.Nodes, p.Hosts, p.OverSubscribe)
	}
	for _, l := range c.Lines {
		if k := l.Kind(); k != "nodename" && k != "partitionname" {
			fmt.Fprintf(&b, "%s=%s\n", k, l.Pairs[0].Value)
		}
	}
	return b.String(), nil
}

// The names the included files are written under: a relative Include name as it
// is (inside the directory), else the base name; a name taken (by another
// included file, plan's own files, a deployment's directory) falls back to the
// path under included/. apply.txt's destination is where slurmctld reads the
// file: an absolute name as it is, a relative one beside /etc/slurm/slurm.conf.
func TestIncludedNames(t *testing.T) {
	files := []slurm.IncludedFile{
		{Path: "/etc/slurm/nodes.conf", Name: "nodes.conf"},
		{Path: "/etc/slurm/conf.d/parts.conf", Name: "conf.d/parts.conf"},
		{Path: "/shared/nodes.conf", Name: "/shared/nodes.conf"},
		{Path: "/etc/common/gres.conf", Name: "../common/gres.conf"},
		{Path: "/shared/slurm.conf", Name: "/shared/slurm.conf"},
		{Path: "/etc/slurm/tree/x.conf", Name: "tree/x.conf"},
		{Path: "/etc/slurm/nodes.conf", Name: "nodes.conf"}, // included twice
	}
	got, err := includedNames(files)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/etc/slurm/nodes.conf":        "nodes.conf",
		"/etc/slurm/conf.d/parts.conf": "conf.d/parts.conf",
		"/shared/nodes.conf":           "included/shared/nodes.conf",
		"/etc/common/gres.conf":        "gres.conf",
		"/shared/slurm.conf":           "included/shared/slurm.conf",
		"/etc/slurm/tree/x.conf":       "included/etc/slurm/tree/x.conf",
	}
	if !maps.Equal(got, want) {
		t.Errorf("names %v\nwant %v", got, want)
	}
	// The destinations: a relative name in slurm.conf's directory (the
	// directory of an absolute --slurm-conf, or --slurm-conf-dir), an absolute
	// one as it is; with the directory not known, a relative name has none.
	for _, c := range []struct{ path, dir, dests string }{
		{"/etc/slurm/slurm.conf", "", "/etc/slurm/nodes.conf /shared/nodes.conf /etc/common/gres.conf"},
		{"/etc/slurm-llnl/slurm.conf", "", "/etc/slurm-llnl/nodes.conf /shared/nodes.conf /etc/common/gres.conf"},
		{"slurm.conf", "/opt/slurm/etc", "/opt/slurm/etc/nodes.conf /shared/nodes.conf /opt/slurm/common/gres.conf"},
		{"/tmp/copy/slurm.conf", "/usr/local/etc/", "/usr/local/etc/nodes.conf /shared/nodes.conf /usr/local/common/gres.conf"},
		{"slurm.conf", "", " /shared/nodes.conf "},
		{"-", "", " /shared/nodes.conf "},
	} {
		p := &Plan{opt: Options{SlurmConfPath: c.path, SlurmConfDir: c.dir}}
		var got []string
		for _, i := range []int{0, 2, 3} {
			got = append(got, p.IncludedDest(files[i]))
		}
		if g := strings.Join(got, " "); g != c.dests {
			t.Errorf("--slurm-conf %s --slurm-conf-dir %q: destinations %q, want %q", c.path, c.dir, g, c.dests)
		}
	}
	// Even the fallback taken (one file by two spellings, after a third of its
	// base name): an error naming the file.
	_, err = includedNames([]slurm.IncludedFile{{Path: "/y/a.conf", Name: "/y/a.conf"}, {Path: "/x//a.conf", Name: "/x//a.conf"}, {Path: "/x/a.conf", Name: "/x/a.conf"}})
	if err == nil || !strings.Contains(err.Error(), "would be written as included/x/a.conf") {
		t.Errorf("fallback taken: %v", err)
	}
}
