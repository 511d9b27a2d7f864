package shared

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Env names the environment variable that, when set, is the shared directory.
const Env = "PROCALLOC_SHARED"

// Find returns the path of rel (such as "traces/SDSC-Par-1996-3.1-cln.swf.gz") in the
// shared directory: $PROCALLOC_SHARED/rel when the variable is set, else the first
// DIR/shared/rel with DIR the working directory or one of its parents. The error
// names rel and every path tried.
func Find(rel string) (string, error) {
	var tried []string
	if d := os.Getenv(Env); d != "" {
		p := filepath.Join(d, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		tried = append(tried, p)
	} else if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; {
			p := filepath.Join(dir, "shared", rel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			tried = append(tried, p)
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if len(tried) == 0 {
		return "", errors.New("shared data: no working directory")
	}
	msg := fmt.Sprintf("shared data %s not found; looked in %s (set %s to the shared directory)", rel, strings.Join(tried, ", "), Env)
	for _, s := range Sources {
		if strings.HasPrefix(rel, s.Dir) {
			msg += "; " + s.Dir + " holds " + s.What
		}
	}
	return "", errors.New(msg)
}

// ModuleRoot returns the directory that holds the module's go.mod: the working
// directory or the nearest of its parents that has one (a test runs in its
// package's directory). The shared directory is looked for beside it and above.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or any directory above it", wd)
		}
		dir = parent
	}
}

// Source is a directory of the shared data and what it holds, with where its
// files come from: a fresh clone has no shared directory, and the command line's
// examples that read ../shared/ say this to a new user (procalloc help), as a
// test's skip message does.
type Source struct {
	Dir, What string // the directory, relative to the shared root ("traces/"), and what it holds and where from
}

// Sources are the shared data's directories that the examples and tests read.
var Sources = []Source{
	{"traces/", "the Parallel Workloads Archive's cleaned logs (NAME-cln.swf.gz) from https://www.cs.huji.ac.il/labs/parallel/workload/logs.html; LLNL-T3D and KTH-SP2 are in sim/testdata/ too"},
	{"qaplib/", "QAPLIB instances (NAME.dat) from https://qaplib.mgi.polymtl.ca"},
}
