package plan

import (
	"strings"
	"testing"
)

// TestDeploymentNotesSingular: a deployment's notes on one job say it in the singular
// (were "1 jobs ... have ... them"), and the plural stays for two.
func TestDeploymentNotesSingular(t *testing.T) {
	one := strings.Join(deploymentNotes(1, 1, 1, ""), "\n")
	for _, bad := range []string{"1 jobs", " have a size", "holding them", "started them", "their partition", "they waited"} {
		if strings.Contains(one, bad) {
			t.Errorf("notes for one job say %q:\n%s", bad, one)
		}
	}
	for _, want := range []string{"1 job has a size", "holding it: Slurm would leave it pending", "in its partition when production started it", "it waited"} {
		if !strings.Contains(one, want) {
			t.Errorf("notes for one job lack %q:\n%s", want, one)
		}
	}
	two := deploymentNotes(2, 2, 2, " among the jobs its replay had started")
	if len(two) != 3 {
		t.Fatalf("%d notes for three kinds of jobs", len(two))
	}
	for i, want := range []string{"2 jobs among the jobs its replay had started have a size", "2 jobs among the jobs its replay had started found no switch or block holding them", "2 jobs found too few free nodes in their partition when production started them"} {
		if !strings.HasPrefix(two[i], want) {
			t.Errorf("note %d = %q, want it to start %q", i, two[i], want)
		}
	}
	if n := deploymentNotes(0, 0, 0, ""); len(n) != 0 {
		t.Errorf("notes for no jobs: %q", n)
	}
}
