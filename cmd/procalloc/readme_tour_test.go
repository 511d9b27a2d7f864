package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeTourLines returns the command lines of README.md's sh blocks, lines
// continued with a backslash joined, comments (" # ...") dropped.
func readmeTourLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	afterCode := false // the text after a block's closing fence
	for _, part := range strings.Split(string(data), "\n```") {
		if afterCode || !strings.HasPrefix(part, "sh\n") {
			afterCode = false
			continue
		}
		afterCode = true
		body := strings.ReplaceAll(strings.TrimPrefix(part, "sh\n"), "\\\n", " ")
		for _, l := range strings.Split(body, "\n") {
			if i := strings.Index(l, " #"); i >= 0 { // a comment
				l = l[:i]
			}
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// readmeSamples are the repository's samples README's tour names for the user's
// files ("Files they name that the repository does not hold stand for your own").
var readmeSamples = map[string]string{
	"net.txt":       "order/testdata/cplant-dev.txt",
	"fabric.ibnet":  "topo/testdata/fattree.ibnetdiscover",
	"names.map":     "topo/testdata/fattree.node-name-map",
	"topology.conf": "topo/testdata/topology.conf",
	"sacct.txt":     "sim/testdata/sacct-fattree.txt",
}

// README's tour commands that read only the repository, its samples for the
// user's files (readmeSamples) and ../shared run as printed from the repository's
// root, in order (a line may read what an earlier one wrote), each stopped as by
// Ctrl-C after a short deadline: none is a usage error or fails. Lines naming
// another user's file (hostnames.txt, pts.txt, ...) are left out; only their
// flags are checked (TestREADMETourParses).
func TestREADMETourRuns(t *testing.T) {
	deadline := 2 * time.Second
	if testing.Short() {
		deadline = 300 * time.Millisecond
	}
	tour := readmeTourLines(t)
	work := t.TempDir()
	shared := exampleRepo(t, work)
	for name, sample := range readmeSamples {
		data, err := os.ReadFile(filepath.Join("../..", sample))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	ran, skipped := 0, 0
lines:
	for _, l := range tour {
		cmds, err := parseExample(l)
		if err != nil || len(cmds) != 1 || cmds[0].words[0].text != "procalloc" || cmds[0].stdin != "" {
			skipped++
			continue
		}
		var args []string
		for _, w := range cmds[0].words[1:] {
			if w.glob {
				skipped++
				continue lines
			}
			if ext := filepath.Ext(w.text); ext == ".txt" || ext == ".dat" || ext == ".map" || ext == ".conf" || ext == ".jsonl" {
				if _, err := os.Stat(w.text); err != nil && readmeSamples[w.text] == "" && !strings.HasPrefix(w.text, "../shared/") {
					skipped++ // another of the user's files
					continue lines
				}
			}
			args = append(args, w.text)
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		stop := time.AfterFunc(deadline, func() { cancel(errInterrupted) })
		var stdout, stderr bytes.Buffer
		code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, args)
		stop.Stop()
		cancel(nil)
		msg := strings.TrimSpace(stderr.String())
		switch {
		case code == 0 || code == exitInterrupted:
			ran++
		case !shared && strings.Contains(msg, "../shared/"):
			t.Logf("%q: an input is absent here: %s", l, msg)
		default:
			t.Errorf("README: %q: exit %d: %s", l, code, msg)
		}
	}
	t.Logf("README's tour: %d procalloc command lines ran (or were stopped after %v), %d left out", ran, deadline, skipped)
}

// Every procalloc command line of README's tour names a command and its flags,
// none twice (the lines TestREADMETourRuns leaves out included).
func TestREADMETourParses(t *testing.T) {
	parsed := 0
	for _, l := range readmeTourLines(t) {
		if !strings.HasPrefix(l, "procalloc ") && !strings.Contains(l, "| procalloc ") {
			continue // another program's (export, sbatch, scontrol)
		}
		n, problems := exampleFlagProblems(l)
		parsed += n
		for _, p := range problems {
			t.Errorf("README: %s", p)
		}
	}
	if parsed < 50 {
		t.Errorf("%d procalloc command lines in README's sh blocks: the reading of the blocks is broken", parsed)
	}
	t.Logf("%d procalloc command lines of README's tour parsed", parsed)
}
