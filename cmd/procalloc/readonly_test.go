package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// helperArgsEnv carries the arguments of TestCLIHelperProcess.
const helperArgsEnv = "PROCALLOC_TEST_CLI_ARGS"

// TestCLIHelperProcess is the command line run in a process of its own by
// runCLIAsNobody (it does nothing in a test run of its own).
func TestCLIHelperProcess(t *testing.T) {
	raw := os.Getenv(helperArgsEnv)
	if raw == "" {
		t.Skip("the helper process of TestOutputWhereItCannotBeWritten, run by it")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(run(context.Background(), &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, args))
}

// runCLIAsNobody runs the command line in dir as a user who is not root: the test
// binary itself (TestCLIHelperProcess) as uid and gid 65534 when the test runs as
// root (for whom no directory is read-only), in-process otherwise.
func runCLIAsNobody(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if os.Geteuid() != 0 {
		wd, _ := os.Getwd()
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		return runCLI(t, "", args...)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(filepath.Dir(dir), "cli.test") // the go build cache is root's alone
	if _, err := os.Stat(bin); err != nil {
		src, err := os.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		dst.Close()
	}
	raw, _ := json.Marshal(args)
	cmd := exec.Command(bin, "-test.run=^TestCLIHelperProcess$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperArgsEnv+"="+string(raw))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Skipf("cannot run the CLI as uid 65534: %v", err)
	}
	return 0, out.String(), errb.String()
}

// TestOutputWhereItCannotBeWritten: -o (and a second output) into a read-only
// directory, under a path whose parent is a file, onto a directory, and over a
// file the user may not write: a clear error naming the flag and the path, exit 1,
// and nothing written, the other output neither (the new user's pass, which ran as
// root, could not try the read-only directory).
func TestOutputWhereItCannotBeWritten(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "work")
	ro := filepath.Join(dir, "ro")
	for _, d := range []string{dir, ro} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// top is t.TempDir's, 0700: the other user must pass through it.
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{filepath.Dir(top), 0o755}, {top, 0o755}, {dir, 0o777}, {ro, 0o555}} {
		if err := os.Chmod(c.path, c.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "afile"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "theirs.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	curve := []string{"curve", "--machine", "mesh:4x4", "--curve", "snake"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "ro/out.txt"}, "procalloc curve: -o ro/out.txt: permission denied"},
		{[]string{"-o", "ok.txt", "--svg", "ro/c.svg"}, "procalloc curve: --svg ro/c.svg: permission denied"},
		{[]string{"-o", "afile/out.txt"}, "procalloc curve: -o afile/out.txt: not a directory"},
		{[]string{"-o", "ro"}, "procalloc curve: -o ro: is a directory"},
		{[]string{"-o", "theirs.txt"}, "procalloc curve: -o theirs.txt: not writable: permission denied"},
	} {
		code, stdout, stderr := runCLIAsNobody(t, dir, append(curve, c.args...)...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q; want 1 and %q", c.args, code, stdout, stderr, c.want)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "theirs.txt")); string(b) != "keep\n" {
			t.Fatalf("%q: theirs.txt changed to %q", c.args, b)
		}
		for _, d := range []string{dir, ro} {
			names, _ := os.ReadDir(d)
			for _, n := range names {
				if !strings.Contains(" ro afile theirs.txt ", " "+n.Name()+" ") {
					t.Errorf("%q: %s left behind", c.args, filepath.Join(d, n.Name()))
				}
			}
		}
	}
}
