package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// splitSite is siteConf (without its Include line) with its NodeName lines moved
// to an included file: the slurm.conf that includes it by name (relative or
// absolute), and the file.
func splitSite(name string) (conf, nodes string) {
	var main, inc strings.Builder
	included := false
	lines := strings.SplitAfter(siteConf, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "Include ") {
			continue
		}
		if strings.HasPrefix(strings.ToLower(l), "nodename=") {
			if !included {
				main.WriteString("Include " + name + "\n")
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
	return main.String(), inc.String()
}

// procalloc plan on a slurm.conf whose NodeName lines are in an included file
// (Include nodes.conf, relative to the slurm.conf's directory, or by absolute
// name) plans as on the files put together: the same report (ordering, every
// deployment's figures), deployments whose slurm.conf define the same nodes,
// weights and partitions, placing jobs as the emulation of the written file
// does; a warning names the Include line and says what to deploy. Without a way
// to read the included file the plan is refused, naming the Include line.
func TestPlanFollowsInclude(t *testing.T) {
	whole := strings.Replace(siteConf, "Include /etc/slurm/nodes-extra.conf\n", "", 1)
	ver := Version{23, 11, 0}
	ref, err := Make(context.Background(), versionedOptions(t, ver, 20, whole))
	if err != nil {
		t.Fatal(err)
	}
	refDeps := deploymentsByKind(ref)
	for _, name := range []string{"nodes.conf", "/etc/site/nodes.conf"} {
		conf, nodes := splitSite(name)
		want := "/etc/site/nodes.conf" // SlurmConfPath /etc/site/slurm.conf
		opt := versionedOptions(t, ver, 20, conf)
		opt.SlurmConfPath = "/etc/site/slurm.conf"
		var opened []string
		opt.SlurmConfInclude = func(n string) ([]byte, error) {
			opened = append(opened, n)
			if n != want {
				return nil, fs.ErrNotExist
			}
			return []byte(nodes), nil
		}
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatalf("Include %s: %v", name, err)
		}
		if !slices.Equal(opened, []string{want}) {
			t.Errorf("Include %s: opened %q, want %s", name, opened, want)
		}
		if !slices.ContainsFunc(p.Report.Warnings, func(w string) bool {
			return strings.Contains(w, "line 5: "+name) && strings.Contains(w, "deploy that slurm.conf alone")
		}) {
			t.Errorf("Include %s: no warning names the Include line and what to deploy: %q", name, p.Report.Warnings)
		}
		if !slices.Equal(p.Order.Ranks(), ref.Order.Ranks()) {
			t.Errorf("Include %s: ordering %v, on the files put together %v", name, p.Order.Ranks(), ref.Order.Ranks())
		}
		a, b := p.Report, ref.Report
		a.Warnings, b.Warnings = nil, nil
		a.Ordering.Seconds, b.Ordering.Seconds = 0, 0 // the solve's time
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("Include %s: report\n%s\non the files put together\n%s", name, ja, jb)
		}
		checked := 0
		for _, d := range p.Deployments {
			r := refDeps[d.Kind]
			if !d.Supported || d.SlurmConf == nil || d.Kind == KindCurrent || d.Kind == KindTorus3D {
				continue
			}
			checked++
			what := fmt.Sprintf("Include %s, %s", name, d.Kind)
			if strings.Contains(strings.ToLower(string(d.SlurmConf)), "\ninclude ") {
				t.Errorf("%s: the written slurm.conf still has an Include line:\n%s", what, d.SlurmConf)
			}
			got, err := confSummary(d.SlurmConf)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			w, err := confSummary(r.SlurmConf)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got != w {
				t.Errorf("%s: slurm.conf defines\n%s\non the files put together\n%s", what, got, w)
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
			t.Errorf("Include %s: %d deployments checked, want 4 (weights, names, tree, block)", name, checked)
		}
		// Not followed (no SlurmConfInclude): refused, naming the Include line.
		opt.SlurmConfInclude = nil
		if _, err := Make(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "Include lines are not followed: line 5: "+name) {
			t.Errorf("Include %s not followed: %v", name, err)
		}
	}
	// A missing included file: the Include line named.
	conf, _ := splitSite("nodes.conf")
	opt := versionedOptions(t, ver, 20, conf)
	opt.SlurmConfPath = "/etc/site/slurm.conf"
	opt.SlurmConfInclude = func(n string) ([]byte, error) { return nil, &fs.PathError{Op: "open", Path: n, Err: fs.ErrNotExist} }
	_, err = Make(context.Background(), opt)
	if w := "/etc/site/slurm.conf: line 5: Include nodes.conf: open /etc/site/nodes.conf: file does not exist"; err == nil || !strings.Contains(err.Error(), w) {
		t.Errorf("missing nodes.conf: %v, want %q", err, w)
	}
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
