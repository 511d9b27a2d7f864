package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// output is where a command writes its result: standard output, or the file given
// with -o. A regular file (or a new path) is written to a hidden temporary file in
// the same directory and renamed into place on success, so a failed or interrupted
// run never leaves half a file; the result keeps the mode of the file it replaces,
// else gets 0666 less the umask, as any file a shell redirection creates. A symlink
// is followed and its target replaced, the link kept. Anything that is not a regular
// file (a terminal, a pipe, a FIFO, /dev/null, /dev/full) is written through, as a
// shell redirection would. A read-only target is refused, not replaced.
type output struct {
	*bufio.Writer
	file *os.File // the temporary file, or the target itself when writing through
	path string   // what the user named
	dest string   // the file that is replaced (path with symlinks resolved)
	mode fs.FileMode
	temp bool
}

// tempPrefix names the temporary files of dest: ".NAME.procalloc-HOST-PID-", HOST
// being tempHost. The host is in the name because the process id alone tells
// nothing on a shared file system: shards of a sweep on two nodes may write into one
// --per-job directory, and a process id of the other node, dead here, may be live
// there.
func tempPrefix(dest string, pid int) string {
	return "." + filepath.Base(dest) + ".procalloc-" + tempHost() + "-" + strconv.Itoa(pid) + "-"
}

// tempHost is this host's name as temporary files carry it: its first label, in
// letters, digits and '_' (any other byte becomes '_', so that '-' separates the
// name's fields), at most 32 bytes; "" if the host has no name, and then no
// temporary file is taken for this host's (removeStaleTemps).
var tempHost = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	h, _, _ = strings.Cut(h, ".")
	b := []byte(h)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b[:min(len(b), 32)])
})

// parseTemp reads a temporary file's name: the base name of the file it stands for,
// the host ("" in names written before the host was recorded, ".NAME.procalloc-PID-N")
// and the process id.
func parseTemp(name string) (base, host string, pid int, ok bool) {
	i := strings.LastIndex(name, ".procalloc-")
	if !strings.HasPrefix(name, ".") || i < 1 {
		return "", "", 0, false
	}
	f := strings.Split(name[i+len(".procalloc-"):], "-")
	if len(f) == 3 {
		host, f = f[0], f[1:]
		if host == "" {
			return "", "", 0, false
		}
	}
	if len(f) != 2 || f[1] == "" || strings.Trim(f[1], "0123456789") != "" {
		return "", "", 0, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return "", "", 0, false
	}
	return name[1:i], host, pid, true
}

// temps are the temporary files being written, removed if a signal stops the process.
var temps = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// removeTemps deletes every temporary output file still being written; main calls it
// when a second interrupt stops the process before a command finished.
func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.m {
		os.Remove(name)
	}
}

// writesStdout reports whether an output flag's value writes to standard output
// ("" and "-" too, as createOutputFlag takes them).
func writesStdout(path string) bool {
	if path == "" {
		return true
	}
	switch filepath.Clean(path) {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

// createOutputFlag opens the output given by flag (named in errors: "--svg x.svg:
// ..." rather than "-o x.svg: ...").
func createOutputFlag(e *env, flag, path string) (*output, error) {
	if path == "" || path == "-" {
		return &output{Writer: bufio.NewWriter(e.stdout)}, nil
	}
	// /dev/stdout and its aliases name this process's own descriptors: write to them
	// as to "-". Following them would find the file a shell redirected to (through
	// /proc/self/fd) and replace it, cutting off what the shell writes there next.
	switch filepath.Clean(path) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return &output{Writer: bufio.NewWriter(e.stdout), path: path}, nil
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return &output{Writer: bufio.NewWriter(e.stderr), path: path}, nil
	}
	dest, err := resolveTarget(path)
	if err != nil {
		return nil, fmt.Errorf("%s %w", flag, err)
	}
	fi, err := os.Stat(dest)
	switch {
	case err == nil && viaProcFD(path):
		// Another descriptor (/dev/fd/N, /proc/PID/fd/N): write through, as a shell would.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
		}
		return &output{Writer: bufio.NewWriter(f), file: f, path: path, dest: path}, nil
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s %s: is a directory", flag, path)
	case err == nil && !fi.Mode().IsRegular():
		// A device, FIFO or socket: write through, never replace it.
		f, err := os.OpenFile(dest, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
		}
		return &output{Writer: bufio.NewWriter(f), file: f, path: path, dest: dest}, nil
	case err == nil:
		if fi.Mode().Perm()&0o222 == 0 {
			return nil, fmt.Errorf("%s %s: the file is read-only (mode %04o); not replaced", flag, path, fi.Mode().Perm())
		}
		if err := syscall.Access(dest, 2 /* W_OK */); err != nil {
			return nil, fmt.Errorf("%s %s: not writable: %w", flag, path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
	}
	mode := fs.FileMode(0o666) &^ umask()
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	sweepStaleTemps(dest)
	f, err := os.CreateTemp(filepath.Dir(dest), tempPrefix(dest, os.Getpid())+"*")
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
	}
	temps.Lock()
	temps.m[f.Name()] = true
	temps.Unlock()
	return &output{Writer: bufio.NewWriter(tempWriter{f, path}), file: f, path: path, dest: dest, mode: mode, temp: true}, nil
}

// tempWriter writes the temporary file and names the user's file in its errors: a
// result larger than the buffer fails here, in the middle (a full disk, a file size
// limit), and "write .out.txt.procalloc-11203-1010898094: no space left on device"
// named a file the user never gave.
type tempWriter struct {
	f    *os.File
	path string
}

func (w tempWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = &writeError{w.path, unwrapPath(err)}
	}
	return n, err
}

// writeError is a failed write of the output path.
type writeError struct {
	path string
	err  error
}

func (e *writeError) Error() string { return "writing " + e.path + ": " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// resolveTarget follows symlinks in path to the file to write, also when the last
// link points to a file that does not exist yet.
func resolveTarget(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// viaProcFD reports whether path, or a symlink on the way to its target, is one of
// the kernel's descriptor links (/proc/PID/fd/N, reached from /dev/fd/N too).
func viaProcFD(path string) bool {
	for range 40 {
		if p := filepath.Clean(path); strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/") {
			return true
		}
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return false
		}
		link, err := os.Readlink(path)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return false
}

// sweepStaleTemps removes the temporary files of dest that procalloc processes of
// this host left and that no longer run (killed with SIGKILL, or by a power cut).
func sweepStaleTemps(dest string) {
	base := filepath.Base(dest)
	removeStaleTemps(filepath.Dir(dest), func(b string) bool { return b == base })
}

// removeStaleTemps removes the temporary files in dir, of the files whose base name
// match accepts (nil: of any), left by procalloc processes of this host that no
// longer run. Those of live processes stay (a concurrent run writing them), as do
// those of another host: its processes cannot be seen from here. A name without a
// host (written before hosts were recorded) is taken for this host's, as it was.
// A process id reused since by a live process keeps its file: the safe side.
func removeStaleTemps(dir string, match func(base string) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	self := tempHost()
	for _, en := range entries {
		if !en.Type().IsRegular() {
			continue
		}
		base, host, pid, ok := parseTemp(en.Name())
		if !ok || match != nil && !match(base) || host != "" && (host != self || self == "") || host == self && pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(filepath.Join(dir, en.Name()))
		}
	}
}

var umaskOnce = sync.OnceValue(func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
})

func umask() fs.FileMode { return umaskOnce() }

// unwrapPath drops the operation and path of an *fs.PathError, so that messages name
// the user's file rather than a temporary one.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Commit flushes and, for files, moves the result into place.
func (o *output) Commit() error {
	if err := o.Flush(); err != nil {
		o.Abort()
		return o.fail(err)
	}
	if o.file == nil {
		return nil
	}
	if !o.temp {
		return o.fail(o.file.Close())
	}
	if err := o.file.Chmod(o.mode); err != nil {
		o.Abort()
		return o.fail(err)
	}
	if err := o.file.Close(); err != nil {
		o.Abort()
		return o.fail(err)
	}
	if err := os.Rename(o.file.Name(), o.dest); err != nil {
		o.Abort()
		return o.fail(err)
	}
	o.forget()
	return nil
}

func (o *output) fail(err error) error {
	if err == nil || o.path == "" {
		return err
	}
	if we := (*writeError)(nil); errors.As(err, &we) {
		return err // names the path already
	}
	return fmt.Errorf("writing %s: %w", o.path, unwrapPath(err))
}

func (o *output) forget() {
	temps.Lock()
	delete(temps.m, o.file.Name())
	temps.Unlock()
}

// Abort discards a file output; it is safe after Commit.
func (o *output) Abort() {
	if o.file == nil {
		return
	}
	o.file.Close()
	if o.temp {
		os.Remove(o.file.Name())
		o.forget()
	}
}

// outputs counts the results being written (writeOutputs, writeJSON), so that the
// interrupt watchdog never stops the process in the middle of one: stdout has no
// temporary file to remove, and a result cut there is invalid JSON (94 MB of
// mesh:3000x3000 cut short). Once the watchdog closes the gate, no new result
// starts; the ones under way finish first, within outputDrain.
var outputs = struct {
	sync.Mutex
	active  int
	closing bool
	idle    chan struct{} // closed when active falls to 0 while closing
}{idle: make(chan struct{})}

// outputDrain is how long the watchdog waits for results under way to be written.
const outputDrain = 20 * time.Second

// beginOutput marks a result being written; once the watchdog has closed the gate it
// blocks until the process exits (a result started then would be cut).
func beginOutput() {
	outputs.Lock()
	if outputs.closing {
		outputs.Unlock()
		select {}
	}
	outputs.active++
	outputs.Unlock()
}

// endOutput marks the result written.
func endOutput() {
	outputs.Lock()
	outputs.active--
	if outputs.active == 0 && outputs.closing {
		close(outputs.idle)
	}
	outputs.Unlock()
}

// reopenOutputs opens the gate again (the watchdog's exit returns in tests only).
func reopenOutputs() {
	outputs.Lock()
	if outputs.closing {
		outputs.closing, outputs.idle = false, make(chan struct{})
	}
	outputs.Unlock()
}

// closeOutputs stops new results and waits, at most d, for those under way.
func closeOutputs(d time.Duration) {
	outputs.Lock()
	if outputs.closing {
		outputs.Unlock()
		return
	}
	outputs.closing = true
	if outputs.active == 0 {
		close(outputs.idle)
	}
	outputs.Unlock()
	select {
	case <-outputs.idle:
	case <-time.After(d):
	}
}
