package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/plan"
)

func writeString(t *testing.T, path, s string) error {
	t.Helper()
	return writeFileAtomic(&env{stdout: &bytes.Buffer{}}, path, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

func TestOutputKeepsModeAndHonoursUmask(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	fresh := filepath.Join(dir, "new.pairs")
	if err := writeString(t, fresh, "x"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file has mode %04o, want 0644 under umask 022", fi.Mode().Perm())
	}
	kept := filepath.Join(dir, "kept.pairs")
	os.WriteFile(kept, []byte("old"), 0o640)
	os.Chmod(kept, 0o640)
	if err := writeString(t, kept, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o640 {
		t.Fatalf("replaced file has mode %04o, want 0640 kept", fi.Mode().Perm())
	}
}

func TestOutputRefusesReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.txt")
	os.WriteFile(path, []byte("keep"), 0o444)
	os.Chmod(path, 0o444)
	err := writeString(t, path, "new")
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("err = %v, want a read-only refusal", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Fatalf("read-only file changed to %q", b)
	}
}

func TestOutputFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	os.Symlink("real.txt", link)
	if err := writeString(t, link, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target is %q", b)
	}
	// a dangling link creates its target
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink("made.txt", dangling)
	if err := writeString(t, dangling, "made"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(b) != "made" {
		t.Fatalf("dangling link's target is %q", b)
	}
}

func TestOutputWritesThroughDevicesAndFIFOs(t *testing.T) {
	if err := writeString(t, "/dev/null", "gone"); err != nil {
		t.Fatalf("/dev/null: %v", err)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi, err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := writeString(t, "/dev/full", strings.Repeat("x", 10000))
		if err == nil || !strings.Contains(err.Error(), "/dev/full") {
			t.Fatalf("/dev/full: err = %v, want a write error naming it", err)
		}
		if fi, _ := os.Stat("/dev/full"); fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatal("/dev/full was replaced")
		}
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string)
	go func() { b, _ := os.ReadFile(fifo); got <- string(b) }()
	if err := writeString(t, fifo, "through"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through" {
		t.Fatalf("read %q from the FIFO", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
}

func TestOutputSweepsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.pairs")
	// a temp of a process that no longer exists, and one of a live process
	dead := exec.Command("true")
	dead.Run()
	stale := filepath.Join(dir, tempPrefix(path, dead.Process.Pid)+"123")
	live := filepath.Join(dir, tempPrefix(path, os.Getppid())+"456")
	os.WriteFile(stale, []byte("half"), 0o600)
	os.WriteFile(live, []byte("busy"), 0o600)
	if err := writeString(t, path, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp of dead process %d left behind", dead.Process.Pid)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("temp of live process %d removed", os.Getppid())
	}
}

func TestOutputErrorsNameTheUsersPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	err := writeFileAtomic(&env{}, path, func(w io.Writer) error {
		return os.ErrInvalid
	})
	if err == nil {
		t.Fatal("no error")
	}
	err = writeString(t, filepath.Join(dir, "missing-dir", "x.txt"), "x")
	if err == nil || strings.Contains(err.Error(), ".procalloc-") || !strings.Contains(err.Error(), "missing-dir") {
		t.Fatalf("err = %v, want the user's path and no temp name", err)
	}
}

// A write that fails in the middle of a result larger than the buffer (a full disk,
// a file size limit) names the user's file, not the temporary one, and leaves
// nothing behind: "procalloc curve: write .../.out.procalloc-11203-1010898094: no
// space left on device" was what curve said on a full tmpfs.
func TestOutputWriteErrorNamesTheUsersPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	err := writeFileAtomic(&env{}, path, func(w io.Writer) error {
		w.(*output).file.Close() // the injected failure: every write to the file fails
		_, err := io.WriteString(w, strings.Repeat("x", 1<<16))
		return err
	})
	if err == nil || strings.Contains(err.Error(), ".procalloc-") || !strings.Contains(err.Error(), "writing "+path+": ") {
		t.Fatalf("err = %v, want \"writing %s: ...\" without the temporary name", err, path)
	}
	if strings.Count(err.Error(), path) != 1 {
		t.Fatalf("err = %v names the file more than once", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("the file was changed to %d bytes", len(b))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
	// The same failure at the final flush (a result smaller than the buffer).
	err = writeFileAtomic(&env{}, path, func(w io.Writer) error {
		w.(*output).file.Close()
		_, err := io.WriteString(w, "small")
		return err
	})
	if err == nil || strings.Contains(err.Error(), ".procalloc-") || strings.Count(err.Error(), path) != 1 {
		t.Fatalf("flush: err = %v, want the user's path once and no temporary name", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("flush: left behind: %v", ents)
	}
}

func TestRemoveTempsOnSignal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.txt")
	o, err := createOutputFlag(&env{}, "-o", path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "half")
	o.Flush()
	name := o.file.Name()
	removeTemps() // what main does on the second SIGINT/SIGTERM
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("temporary %s survives", name)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("half a file reached the target")
	}
}

// -o /dev/stdout is this process's standard output, and a path that reaches a
// descriptor through /proc/PID/fd or /dev/fd is written through: following the link
// to the regular file behind it (a shell's redirection) and replacing that file would
// cut the shell off from it.
func TestOutputToDescriptorsWritesThrough(t *testing.T) {
	var out bytes.Buffer
	e := &env{stdout: &out, stderr: &bytes.Buffer{}}
	if err := writeFileAtomic(e, "/dev/stdout", func(w io.Writer) error { _, err := io.WriteString(w, "to stdout"); return err }); err != nil {
		t.Fatal(err)
	}
	if out.String() != "to stdout" {
		t.Fatalf("-o /dev/stdout wrote %q to standard output", out.String())
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	dir := t.TempDir()
	redirected := filepath.Join(dir, "redirected")
	f, err := os.Create(redirected)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, _ := f.Stat()
	for i, link := range []string{"/proc/self/fd/", "/dev/fd/"} {
		path := link + strconv.Itoa(int(f.Fd()))
		alias := filepath.Join(dir, "alias"+strconv.Itoa(i))
		if err := os.Symlink(path, alias); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, alias} {
			if err := writeString(t, p, "through"); err != nil {
				t.Fatalf("-o %s: %v", p, err)
			}
			now, err := os.Stat(redirected)
			if err != nil || !os.SameFile(before, now) {
				t.Fatalf("-o %s replaced the file behind the descriptor (%v)", p, err)
			}
		}
	}
	if b, _ := os.ReadFile(redirected); string(b) != "through" {
		t.Fatalf("the descriptor's file holds %q", b)
	}
}

// startWatchdog runs watchSignals on its own goroutine, as main does, and returns a
// wait for it to have returned once it has called exit: the watchdog reopens the
// outputs' gate (reopenOutputs) only after exit returns, and a test that ended as
// soon as exit was called let the next test begin an output while the gate was
// still closed, where it blocked for good (TestPlanFilesAllOrNone after
// TestSignalTwiceAtOnceIsOneInterrupt, 10 minutes and the test binary's timeout
// under -race). The wait also runs when the test ends.
func startWatchdog(t *testing.T, sigs <-chan os.Signal, cancel context.CancelFunc, grace time.Duration, stderr io.Writer, exit func(int)) (wait func()) {
	done := make(chan struct{})
	var exited atomic.Bool
	go func() {
		defer close(done)
		watchSignals(sigs, cancel, grace, stderr, func(code int) { exited.Store(true); exit(code) })
	}()
	wait = func() {
		if exited.Load() { // else it waits for a signal the test never sent
			<-done
		}
	}
	t.Cleanup(wait)
	return wait
}

// Issue 13 item 10: after SIGTERM a command that does not stop (a large -o write does
// not poll the interrupt) is stopped after the grace period, its temporary file
// removed; a second signal stops it at once.
func TestSignalsStopAndRemoveTemps(t *testing.T) {
	for _, second := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "big.txt")
		o, err := createOutputFlag(&env{}, "-o", path)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(o, "half")
		o.Flush()
		sigs := make(chan os.Signal, 2)
		cancelled := make(chan bool, 1)
		exited := make(chan int, 1)
		var msg bytes.Buffer
		grace := 200 * time.Millisecond
		if second {
			grace = time.Hour
		}
		wait := startWatchdog(t, sigs, func() { cancelled <- true }, grace, &msg, func(code int) { exited <- code })
		t0 := time.Now()
		sigs <- syscall.SIGTERM
		<-cancelled
		if second {
			time.Sleep(sameInterrupt) // sooner, it is the first one again
			sigs <- syscall.SIGINT
		}
		if code := <-exited; code != 130 {
			t.Fatalf("exit %d, want 130", code)
		}
		wait() // the next round's watchdog finds the gate open
		if took := time.Since(t0); !second && took < grace {
			t.Fatalf("stopped after %v, before the grace of %v", took, grace)
		}
		if _, err := os.Stat(o.file.Name()); !os.IsNotExist(err) {
			t.Fatalf("second signal %v: temporary %s survives", second, o.file.Name())
		}
		if !second && !strings.Contains(msg.String(), "after the interrupt: stopped") {
			t.Fatalf("message %q", msg.String())
		}
		if second && !strings.Contains(msg.String(), "stopped by a second interrupt; unfinished output files removed") {
			t.Fatalf("second signal: message %q", msg.String())
		}
	}
}

// One interrupt delivered twice at once (timeout(1) signals the command and then
// its process group, which holds it) is one interrupt: the command still gets its
// grace to write what it has, where the second copy used to stop it at once and
// remove its results ("stopped by a second interrupt").
func TestSignalTwiceAtOnceIsOneInterrupt(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	cancelled := make(chan bool, 1)
	exited := make(chan int, 1)
	var msg bytes.Buffer
	grace := 3 * sameInterrupt
	startWatchdog(t, sigs, func() { cancelled <- true }, grace, &msg, func(code int) { exited <- code })
	t0 := time.Now()
	sigs <- syscall.SIGINT
	sigs <- syscall.SIGINT
	<-cancelled
	if code := <-exited; code != exitInterrupted {
		t.Fatalf("exit %d, want %d", code, exitInterrupted)
	}
	if took := time.Since(t0); took < grace {
		t.Fatalf("stopped after %v, before the grace of %v: %q", took, grace, msg.String())
	}
	if !strings.Contains(msg.String(), "after the interrupt: stopped") {
		t.Fatalf("message %q, want the grace's", msg.String())
	}
}

// The table writer leaves no trailing blanks, also on a row whose last cells
// are empty (plan's unsupported deployments), and keeps the columns aligned
// for the rows after such a row.
func TestTableHasNoTrailingBlanks(t *testing.T) {
	var b strings.Builder
	tb := newTable(&b, "name", "supported", "hops")
	tb.row("a", "yes", "1.5")
	tb.row("torus3d", "no (below)", "")
	tb.row("b", "yes", "12.25")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	want := "     name   supported   hops\n" +
		"        a         yes    1.5\n" +
		"  torus3d  no (below)\n" +
		"        b         yes  12.25\n"
	if b.String() != want {
		t.Errorf("table\n%q\nwant\n%q", b.String(), want)
	}
}

// plan -o DIR writes its files all or none: a failure part of the way (a full
// disk; here a file's directory that cannot be made) leaves neither the files
// written before it nor the directories made for them, and an older plan's files
// stay as they were. "plan -o FULL/plan" on a full tmpfs left an empty plan/.
func TestPlanFilesAllOrNone(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out", "plan")
	files := []plan.File{{Name: "a.txt", Data: []byte("new a")}, {Name: "sub/b.txt", Data: []byte("new b")}, {Name: "a.txt/c.txt", Data: []byte("c")}}
	if err := writePlanFiles(&env{}, dir, files); err == nil {
		t.Fatal("a file under a file was written")
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("left behind in a new directory: %v", ents)
	}
	os.MkdirAll(dir, 0o777)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old a"), 0o644)
	if err := writePlanFiles(&env{}, dir, files); err == nil {
		t.Fatal("a file under a file was written")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "old a" {
		t.Fatalf("the older plan's a.txt is now %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left behind in an existing directory: %v", ents)
	}
	if err := writePlanFiles(&env{}, dir, files[:2]); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "new a", "sub/b.txt": "new b"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Fatalf("%s: %q, want %q", name, b, want)
		}
	}
}
