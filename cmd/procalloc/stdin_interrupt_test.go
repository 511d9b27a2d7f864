package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// readStarted is a reader that closes started when its first Read begins: the test
// then knows the command is waiting on it.
type readStarted struct {
	r       io.Reader
	once    sync.Once
	started chan struct{}
}

func (s *readStarted) Read(p []byte) (int, error) {
	s.once.Do(func() { close(s.started) })
	return s.r.Read(p)
}

// silentPipe is a pipe whose writer stays open and sends nothing, as "sleep 30 |
// procalloc ..." gives: a read of it blocks until the test closes the writer.
func silentPipe(t *testing.T) (*readStarted, func()) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return &readStarted{r: pr, started: make(chan struct{})}, func() { pw.Close(); pr.Close() }
}

// notAbandoned bounds the wait for a read that a cancel must abandon. The pipe's
// writer is open and sends nothing, so the read can end only by being abandoned:
// reaching this bound means it never was (before stdinUntil the command waited
// forever here), not that it was slow.
const notAbandoned = 20 * time.Second

// A read of standard input waiting on a pipe that sends nothing returns the
// context's cause once the context ends, the pipe still open; what is read before
// passes through whole.
func TestStdinUntilAbandonsWaitingRead(t *testing.T) {
	src, closePipe := silentPipe(t)
	defer closePipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	r := stdinUntil(ctx, src)
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := r.Read(make([]byte, 4096))
		done <- result{n, err}
	}()
	<-src.started
	cancel(errInterrupted)
	select {
	case res := <-done:
		if res.n != 0 || !errors.Is(res.err, errInterrupted) {
			t.Fatalf("abandoned read: %d bytes, %v; want 0 and the context's cause", res.n, res.err)
		}
	case <-time.After(notAbandoned):
		t.Fatal("the read waiting on a silent pipe was not abandoned when its context ended")
	}
	if n, err := r.Read(make([]byte, 1)); n != 0 || !errors.Is(err, errInterrupted) {
		t.Errorf("read after the cancel: %d, %v; want the cause", n, err)
	}

	// Live: the bytes of a pipe written in pieces, 3 MB (reads of at most
	// maxStdinRead each), arrive whole and in order.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("n0001,n0002\nx[1-7]\n"), 3<<20/19)
	go func() {
		for b := want; len(b) > 0; {
			k := min(len(b), 70001)
			pw.Write(b[:k])
			b = b[k:]
		}
		pw.Close()
	}()
	got, err := io.ReadAll(stdinUntil(context.Background(), pr))
	pr.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (%v), want the %d written", len(got), err, len(want))
	}
}

// Ctrl-C while a command waits on standard input that sends nothing ends it as an
// interrupt ends it elsewhere (exit 130, "interrupted", no -o file), not by the
// watchdog's "still running 2s after the interrupt".
func TestCtrlCWhileWaitingOnStdin(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"hostlist", "compress"},
		{"hostlist", "expand", "-", "-o", filepath.Join(dir, "names.txt")},
		{"sim", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "mc1x1"},
		{"plan", "--machine", "mesh:4x4", "--hostlist", "n[01-16]", "--slurm-conf", "-", "-o", filepath.Join(dir, "plan")},
		{"order", "--graph", "-", "--weights", "exp:2:3"},
		{"sweep", "-"},
	} {
		name := strings.Join(args, " ")
		src, closePipe := silentPipe(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		var out, errb bytes.Buffer
		code := make(chan int, 1)
		go func() { code <- run(ctx, &env{stdin: src, stdout: &out, stderr: &errb}, args) }()
		<-src.started
		cancel(errInterrupted)
		select {
		case c := <-code:
			if c != exitInterrupted || !strings.Contains(errb.String(), "interrupted") {
				t.Errorf("%s: exit %d, stderr %q; want %d and interrupted", name, c, errb.String(), exitInterrupted)
			}
			closePipe()
		case <-time.After(notAbandoned):
			t.Errorf("%s: still waiting on standard input after the interrupt", name)
			closePipe()
			<-code
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: wrote %v", name, ents)
		}
	}
}

// inFlight counts the reads of r under way at once, and the most there were.
type inFlight struct {
	r        io.Reader
	now, max atomic.Int32
}

func (f *inFlight) Read(p []byte) (int, error) {
	n := f.now.Add(1)
	for m := f.max.Load(); n > m && !f.max.CompareAndSwap(m, n); m = f.max.Load() {
	}
	defer f.now.Add(-1)
	return f.r.Read(p)
}

// A read of standard input left behind by a cancelled context is taken over by
// the next read of that input (plan reads it again under its time limit through
// a second stdinUntil reader over run's): the bytes it brings are handed on, not
// lost, and no second read of the pipe starts beside it. Before, the next read
// started its own beside the one left behind, which took the bytes written
// next into a buffer nobody read: the second reader saw "" and EOF, standard
// input was read twice at once, and each cancelled reader left one more
// goroutine. Runs of commands in one process, each cancelled while waiting on a
// silent pipe, leave no goroutine once their pipes are closed.
func TestStdinReadLeftBehindIsTakenOver(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	src := &inFlight{r: pr}
	started := &readStarted{r: src, started: make(chan struct{})}
	ctx, cancel := context.WithCancelCause(context.Background())
	outer := stdinUntil(context.Background(), started)
	inner := stdinUntil(ctx, outer) // as plan's under its time limit
	go func() { <-started.started; cancel(errInterrupted) }()
	if n, err := inner.Read(make([]byte, 64)); n != 0 || !errors.Is(err, errInterrupted) {
		t.Fatalf("the cancelled read: %d bytes, %v", n, err)
	}
	// The first read still waits on the pipe; now data come, in a longer write
	// than the next reader's buffer.
	want := "node1\nnode2\nnode3\n"
	if _, err := pw.Write([]byte(want)); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	var got []byte
	buf := make([]byte, 5)
	for {
		n, err := outer.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if string(got) != want || src.max.Load() != 1 {
		t.Errorf("after the cancelled read: read %q, %d reads of the pipe at once; want %q, one", got, src.max.Load(), want)
	}

	// Commands run in one process, each cancelled while waiting on its own silent
	// pipe: each leaves one read waiting, which ends when its pipe closes.
	base := runtime.NumGoroutine()
	var closers []func()
	for range 20 {
		src, closePipe := silentPipe(t)
		closers = append(closers, closePipe)
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() { <-src.started; cancel(errInterrupted) }()
		var out, errb bytes.Buffer
		if code := run(ctx, &env{stdin: src, stdout: &out, stderr: &errb}, []string{"hostlist", "compress"}); code != exitInterrupted {
			t.Fatalf("run %d: exit %d, %s", len(closers), code, errb.String())
		}
	}
	if n := runtime.NumGoroutine() - base; n > 20 {
		t.Errorf("20 cancelled runs left %d goroutines, want at most one each", n)
	}
	for _, c := range closers {
		c()
	}
	deadline := time.Now().Add(notAbandoned)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine() - base; n > 0 {
		t.Errorf("%d goroutines left once the pipes were closed", n)
	}
}
