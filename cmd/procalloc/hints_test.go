package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChoiceListHints: the lists of choices the new user's pass left without a
// "did you mean" (plot's --y metric, --x and --where keys, a sweep file's keys,
// compare's --metric, sim's --metrics groups) name the near one (textin.Nearest),
// exit 2; a name near none gets no hint.
func TestChoiceListHints(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	res := write("r.jsonl", `{"sweep":"s","index":0,"key":"k","params":{"trace":"t","machine":"mesh:4x4","alloc":"a","sched":"fcfs","contract":1,"pattern":"none","seed":1},"status":"ok","result":{"trace":"t.swf","mean_wait":3}}`+"\n")
	trace := write("t.txt", "0 2 10 20\n5 4 10 20\n")
	spec := write("s.yaml", "traces: [t]\nmachine: [mesh:4x4]\nallocators: [mc1x1]\n")
	far := write("far.yaml", "traces: [t]\nhypercube: [x]\n")
	for _, c := range []struct {
		args []string
		code int
		want string
		hint bool
	}{
		{[]string{"plot", res, "--y", "mean_wai"}, 2, `--y "mean_wai": item #0 has no such metric (did you mean mean_wait?)`, true},
		{[]string{"plot", res, "--y", "frobnicate"}, 2, `--y "frobnicate": item #0 has no such metric (it has mean_wait)`, false},
		{[]string{"plot", res, "--x", "contrct"}, 2, `--x "contrct": want contract or seed (did you mean contract?)`, true},
		{[]string{"plot", res, "--where", "machin=mesh:4x4"}, 2, `unknown key "machin" (did you mean machine?)`, true},
		{[]string{"plot", res, "--where", "frobnicate=1"}, 2, `unknown key "frobnicate"; want KEY=VALUE`, false},
		{[]string{"sweep", spec, "--list"}, 1, `line 2: unknown key "machine" (did you mean machines?)`, true},
		{[]string{"sweep", far, "--list"}, 1, `line 2: unknown key "hypercube" (valid:`, false},
		{[]string{"compare", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mm", "--metric", "mean_respons"}, 2, `--metric "mean_respons": not a metric key (did you mean mean_response?)`, true},
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mm", "--metrics", "rout"}, 2, `unknown metric group "rout" (did you mean route?)`, true},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "did you mean") != c.hint {
			t.Errorf("%q: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
