package ports

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// holdPort listens on 127.0.0.1 (not every address: a listener on loopback alone
// must make the port taken too, as it makes slurmctld's bind on every address fail)
// on a kernel-chosen port whose next three ports are free, and returns the port.
func holdPort(t *testing.T) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		if _, ok := Free(p+1, 3); ok && p+3 <= 65535 && p-2 >= 1024 {
			t.Cleanup(func() { l.Close() })
			return p
		}
		l.Close()
	}
	t.Skip("no kernel-chosen port with three free ports after it in 20 tries")
	return 0
}

// A port with a listener is never in a chosen base's span: with the range
// [p-2, p+3] and spans of 3, every base but p+1 covers the held port p, so each
// draw must return p+1; with the range [p-2, p+2] none is free and Base fails
// naming the range.
func TestBaseSkipsTakenPorts(t *testing.T) {
	p := holdPort(t)
	if taken, ok := Free(p, 1); ok || taken != p {
		t.Fatalf("Free(%d, 1) = %d, %v with a listener on 127.0.0.1:%d", p, taken, ok, p)
	}
	t.Setenv("PROCALLOC_SLURM_PORTS", fmt.Sprintf("%d-%d", p-2, p+3))
	for range 20 {
		b, err := Base(3)
		if err != nil || b != p+1 {
			t.Fatalf("Base(3) in %d-%d, %d held: %d, %v; want %d", p-2, p+3, p, b, err, p+1)
		}
	}
	t.Setenv("PROCALLOC_SLURM_PORTS", fmt.Sprintf("%d-%d", p-2, p+2))
	if b, err := Base(3); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d-%d", p-2, p+2)) {
		t.Fatalf("Base(3) in %d-%d, %d held: %d, %v; want an error naming the range", p-2, p+2, p, b, err)
	}
	// The bases already tried are skipped as well.
	t.Setenv("PROCALLOC_SLURM_PORTS", fmt.Sprintf("%d-%d", p+1, p+3))
	if b, err := Base(3, p+1); err == nil {
		t.Fatalf("Base(3, avoid %d) in %d-%d: %d, want an error", p+1, p+1, p+3, b)
	}
}

func TestRange(t *testing.T) {
	for _, bad := range []string{"20000", "20000-19999", "80-1000", "20000-70000", "a-b"} {
		t.Setenv("PROCALLOC_SLURM_PORTS", bad)
		if lo, hi, err := Range(); err == nil {
			t.Errorf("PROCALLOC_SLURM_PORTS=%s: %d-%d, want an error", bad, lo, hi)
		}
	}
	t.Setenv("PROCALLOC_SLURM_PORTS", "")
	lo, hi, err := Range()
	if err != nil || lo < 1024 || hi > 65535 || hi-lo < 1000 {
		t.Fatalf("default range %d-%d, %v", lo, hi, err)
	}
	// Outside the ephemeral range, where outgoing connections take ports.
	if out, err := exec.Command("cat", "/proc/sys/net/ipv4/ip_local_port_range").Output(); err == nil {
		f := strings.Fields(string(out))
		elo, _ := strconv.Atoi(f[0])
		ehi, _ := strconv.Atoi(f[1])
		if lo <= ehi && elo <= hi {
			t.Fatalf("default range %d-%d overlaps the ephemeral range %d-%d", lo, hi, elo, ehi)
		}
	}
}

// Start retries on another base when a start meets a port in use, and only then.
func TestStartRetriesOnPortInUse(t *testing.T) {
	t.Setenv("PROCALLOC_SLURM_PORTS", "")
	var bases []int
	inUse := func(base int) error {
		bases = append(bases, base)
		return fmt.Errorf("slurm-cluster.sh start: %w: slurm-cluster: port %d (slurmd of node02) already in use", ErrInUse, base+2)
	}
	// In use twice, then started.
	got, err := Start(17, func(base int) error {
		if len(bases) < 2 {
			return inUse(base)
		}
		bases = append(bases, base)
		return nil
	})
	if err != nil || len(bases) != 3 || got != bases[2] {
		t.Fatalf("Start: base %d, %v after bases %v; want the third base", got, err, bases)
	}
	for i, b := range bases {
		for _, a := range bases[:i] {
			if b < a+17 && a < b+17 {
				t.Fatalf("bases %v: %d overlaps %d, tried before", bases, b, a)
			}
		}
	}
	// Always in use: Attempts bases, then an error wrapping ErrInUse that names
	// every port that was in use.
	bases = nil
	_, err = Start(17, inUse)
	if !errors.Is(err, ErrInUse) || len(bases) != Attempts {
		t.Fatalf("always in use: %v after %d bases, want ErrInUse after %d", err, len(bases), Attempts)
	}
	for _, b := range bases {
		if !strings.Contains(err.Error(), fmt.Sprintf("port %d (slurmd of node02)", b+2)) {
			t.Fatalf("the error does not name port %d: %v", b+2, err)
		}
	}
	// Another failure is not retried.
	bases = nil
	other := errors.New("slurmctld did not come up")
	if _, err := Start(17, func(base int) error { bases = append(bases, base); return other }); !errors.Is(err, other) || len(bases) != 1 {
		t.Fatalf("another failure: %v after %d bases, want it after one", err, len(bases))
	}
}

// slurm-cluster.sh's free-base obeys the same rule: it never returns a base whose
// span holds a port with a listener, and fails when every base does.
func TestScriptFreeBaseSkipsTakenPorts(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("no perl: slurm-cluster.sh free-base binds with it")
	}
	script, err := filepath.Abs("../../../scripts/slurm-cluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	p := holdPort(t)
	env := func(r string) []string { return []string{"PATH=/usr/bin:/bin", "PROCALLOC_SLURM_PORTS=" + r} }
	var got []string
	for range 5 {
		out, err := RunScript(env(fmt.Sprintf("%d-%d", p-2, p+3)), script, "free-base", "--nodes", "2")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out)
	}
	if want := slices.Repeat([]string{strconv.Itoa(p + 1)}, 5); !slices.Equal(got, want) {
		t.Fatalf("free-base --nodes 2 in %d-%d, %d held: %v, want %v", p-2, p+3, p, got, want)
	}
	if out, err := RunScript(env(fmt.Sprintf("%d-%d", p-2, p+2)), script, "free-base", "--nodes", "2"); err == nil {
		t.Fatalf("free-base --nodes 2 in %d-%d, %d held: %s, want a failure", p-2, p+2, p, out)
	}
}
