package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make demo, README's first command on a fresh machine, runs scripts/demo.sh with
// the built binary; the script is the one place that calls the commands the way
// it does, so a flag a command starts to refuse broke it unseen (subset's --eps
// beside --algo mm, refused since subset checks it). This runs the script as make
// demo does, into a temporary directory, and requires it to end well and print
// plan's recommendation.
func TestDemoScriptRuns(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: scripts/demo.sh (make demo) not run")
	}
	bin := filepath.Join(t.TempDir(), "procalloc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", "scripts/demo.sh", bin)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "DEMO_OUT="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		tail := string(out)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		t.Fatalf("scripts/demo.sh: %v; its output ends:\n%s", err, tail)
	}
	if !strings.Contains(string(out), "RECOMMENDATION: deploy ") {
		t.Errorf("scripts/demo.sh printed no plan recommendation; output:\n%s", out)
	}
}
