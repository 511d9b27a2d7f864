package plan

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// What a reader of report.html sees: the recommendation first, no NaN, Inf or
// <nil>, the bar charts' values written as the deployments table writes them (3.880,
// not 3.88), and the "supported" column's reasons, which are words, left-aligned
// while the numbers are right-aligned.
func TestReportHTMLLooks(t *testing.T) {
	p, err := Make(context.Background(), sampleOptions(t, true))
	if err != nil {
		t.Fatal(err)
	}
	h := string(file(p, "report.html"))
	for _, bad := range []string{"NaN", "Inf", "<nil>"} {
		if strings.Contains(h, bad) {
			t.Errorf("report.html says %s", bad)
		}
	}
	if rec, table := strings.Index(h, `id="recommendation"`), strings.Index(h, "<table"); rec < 0 || rec > table {
		t.Errorf("the recommendation (at %d) is not above the first table (at %d)", rec, table)
	}
	svgs := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(h, -1)
	if len(svgs) != 2 {
		t.Fatalf("%d bar charts, want 2 (hops, one leaf)", len(svgs))
	}
	texts := func(svg string) map[string]bool {
		out := map[string]bool{}
		for _, m := range regexp.MustCompile(`<text x="[0-9]+" y="[0-9]+">([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
			out[m[1]] = true
		}
		return out
	}
	hops, leaf := texts(svgs[0]), texts(svgs[1])
	n := 0
	for _, d := range p.Report.Deployments {
		m := d.Metrics
		if m == nil {
			continue
		}
		n++
		cell := fmt.Sprintf("%.3f", m.MeanPairwiseHops)
		row := regexp.MustCompile(`<tr><td>` + regexp.QuoteMeta(d.Name) + `</td><td>yes</td><td>([^<]*)</td><td>[^<]*</td><td>([^<]*)</td>`).FindStringSubmatch(h)
		if row == nil || row[1] != cell {
			t.Errorf("%s: table row %q, want mean pairwise hops %s", d.Name, row, cell)
			continue
		}
		if !hops[row[1]] {
			t.Errorf("%s: the hops chart lacks the table's %s (texts %v)", d.Name, row[1], hops)
		}
		if !leaf[row[2]] {
			t.Errorf("%s: the one-leaf chart lacks the table's %s (texts %v)", d.Name, row[2], leaf)
		}
	}
	if n < 3 {
		t.Fatalf("%d deployments with metrics", n)
	}
	if !strings.Contains(h, `<table class="deploy">`) || !regexp.MustCompile(`\.deploy td:nth-child\(2\)[^{]*\{text-align:left\}|,\.deploy td:nth-child\(2\)\{text-align:left\}`).MatchString(h) {
		t.Errorf("the supported column is not left-aligned")
	}
}

// On a grid, which has no leaf switches, the leaf columns say so (a dash and a
// note under the table) instead of standing empty beside filled ones.
func TestReportHTMLNoLeaves(t *testing.T) {
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := hostlist.Expand("node[01-16]")
	opt := Options{Machine: m, Hosts: names, MachineSource: "mesh:4x4", SlurmConf: []byte("NodeName=node[01-16]\nPartitionName=p Nodes=ALL OverSubscribe=EXCLUSIVE\n"),
		Version: V2311, VersionSource: "test", TimeLimit: 5 * time.Second, SyntheticJobs: 200, Seed: 1}
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	h := string(file(p, "report.html"))
	row := regexp.MustCompile(`<tr><td>current</td><td>yes</td><td>[0-9.]+</td><td>([^<]*)</td><td>([^<]*)</td>`).FindStringSubmatch(h)
	if row == nil || row[1] != "–" || row[2] != "–" {
		t.Errorf("current's leaf cells %q, want dashes", row)
	}
	if !strings.Contains(h, "–: the network has no leaf switches") {
		t.Errorf("no note saying why the leaf columns are empty")
	}
}

// TestReportHTMLShowsDeploymentNotes: report.html carries every deployment's
// settings and notes (why jobs were pending, how each was emulated: report.json
// had them, the page did not, and its "pending" column went unexplained), and a
// waited column, as wide as its header, when partitions made jobs wait.
func TestReportHTMLShowsDeploymentNotes(t *testing.T) {
	p, err := Make(context.Background(), sampleOptions(t, true))
	if err != nil {
		t.Fatal(err)
	}
	h := string(file(p, "report.html"))
	some := 0
	for _, d := range p.Report.Deployments {
		for _, s := range append(slices.Clone(d.Settings), d.Notes...) {
			some++
			if !strings.Contains(h, html.EscapeString(s)) {
				t.Errorf("report.html lacks %s's %q", d.Name, s)
			}
		}
	}
	if some == 0 {
		t.Fatal("no deployment has settings or notes")
	}
	for _, waited := range []int{0, 3} {
		p.Report.Deployments[0].Waited = waited
		var b strings.Builder
		if err := p.writeHTML(&b); err != nil {
			t.Fatal(err)
		}
		table := regexp.MustCompile(`(?s)<table class="deploy">.*?</table>`).FindString(b.String())
		rows := regexp.MustCompile(`<tr>.*?</tr>`).FindAllString(table, -1)
		cols := strings.Count(rows[0], "<th>")
		if strings.Contains(rows[0], "<th>waited</th>") != (waited > 0) {
			t.Errorf("waited %d: header %s", waited, rows[0])
		}
		for _, r := range rows[1:] {
			if c := strings.Count(r, "<td>"); c != cols && !strings.Contains(r, "no: ") {
				t.Errorf("waited %d: row of %d cells under %d headers: %s", waited, c, cols, r)
			}
		}
	}
}
