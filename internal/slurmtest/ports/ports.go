// Package ports chooses the ports of the test clusters scripts/slurm-cluster.sh
// starts, so that several clusters run on one host at once (two test suites, a CI
// host's jobs, a stale cluster left by a killed run): Base draws a base whose ports
// are free when checked, and Start starts again on another base when a port was
// taken after the check. It runs the script (RunScript) for every test that starts a
// cluster. scripts/slurm-cluster.sh's free-base command is the same rule for the
// shell (scripts/test-slurm.sh). It imports nothing of procalloc, so that the tests
// of package slurm can use it (internal/slurmtest imports alloc, which imports slurm).
//
// It follows no paper.
package ports

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// A test cluster's ports: slurmctld listens on a base P, node i on P+i, on every
// IPv4 address; a cluster of N nodes needs the N+1 ports P..P+N.

// ErrInUse is wrapped by RunScript's error when slurm-cluster.sh exits 4: a
// daemon of the cluster could not bind its port (its log said "Address already in
// use"); the script has stopped what it started.
var ErrInUse = errors.New("a port of the cluster was already in use")

// ErrNoSlurm is wrapped by RunScript's error when slurm-cluster.sh exits 3: not
// root, or no Slurm and no way to install it (callers skip).
var ErrNoSlurm = errors.New("no Slurm to start (not root, or not installed)")

// Range returns the ports Base draws bases from: PROCALLOC_SLURM_PORTS
// ("LO-HI", inclusive) when set, else 10000 up to below the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range, where outgoing connections, Slurm's
// included, take their local ports), or above it when it starts below 11000.
func Range() (lo, hi int, err error) {
	if s := os.Getenv("PROCALLOC_SLURM_PORTS"); s != "" {
		a, b, ok := strings.Cut(s, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || lo < 1024 || hi > 65535 || lo > hi {
			return 0, 0, fmt.Errorf("PROCALLOC_SLURM_PORTS=%q: want LO-HI, 1024 <= LO <= HI <= 65535", s)
		}
		return lo, hi, nil
	}
	elo, ehi := 32768, 60999
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				elo = v
			}
			if v, err := strconv.Atoi(f[1]); err == nil {
				ehi = v
			}
		}
	}
	if elo-1 >= 10000+1000 {
		return 10000, elo - 1, nil
	}
	return ehi + 1, 65535, nil
}

// Free reports whether ports base..base+n-1 can be bound now on every IPv4
// address, as slurmctld and slurmd bind them (Go's listeners, like Slurm's, set
// SO_REUSEADDR: a port in TIME_WAIT counts as free, one with a listener on any
// address as taken). The first taken port is returned.
func Free(base, n int) (taken int, ok bool) {
	for p := base; p < base+n; p++ {
		l, err := net.Listen("tcp4", net.JoinHostPort("0.0.0.0", strconv.Itoa(p)))
		if err != nil {
			return p, false
		}
		l.Close()
	}
	return 0, true
}

// Base returns a base P drawn at random from Range whose n ports P..P+n-1
// are free when checked (Free), skipping bases whose ports overlap those of
// avoid (bases of n ports already tried). Random draws make two suites started at
// the same moment unlikely to pick the same ports; the check skips every cluster
// that is already listening, a stale one included.
func Base(n int, avoid ...int) (int, error) {
	lo, hi, err := Range()
	if err != nil {
		return 0, err
	}
	if n < 1 || hi-lo+1 < n {
		return 0, fmt.Errorf("ports %d-%d cannot hold %d ports", lo, hi, n)
	}
	var taken []int
	for range 50 {
		base := lo + rand.IntN(hi-lo+2-n)
		overlaps := false
		for _, a := range avoid {
			if base < a+n && a < base+n {
				overlaps = true
			}
		}
		if overlaps {
			continue
		}
		if p, ok := Free(base, n); ok {
			return base, nil
		} else if len(taken) < 5 {
			taken = append(taken, p)
		}
	}
	return 0, fmt.Errorf("no %d consecutive free ports in %d-%d after 50 draws (taken, e.g.: %v)", n, lo, hi, taken)
}

// Attempts is how many bases Start tries.
const Attempts = 5

var inUseRE = regexp.MustCompile(`port (\d+ \([^)]*\)) already in use`)

// Start starts a cluster of n ports (slurmctld and n-1 nodes) on a base
// from Base: start(base) runs slurm-cluster.sh start (or restart, or conf then
// start) on it. When start's error wraps ErrInUse (a port was taken between the
// check and the daemons' bind; the script has stopped what it started), it tries
// another base, up to Attempts in all, and then fails naming the ports that
// were in use. It returns the base the cluster runs on.
func Start(n int, start func(base int) error) (int, error) {
	var tried []int
	var inUse []string
	for range Attempts {
		base, err := Base(n, tried...)
		if err != nil {
			return 0, err
		}
		err = start(base)
		if err == nil {
			return base, nil
		}
		if !errors.Is(err, ErrInUse) {
			return 0, err
		}
		tried = append(tried, base)
		what := fmt.Sprintf("from base %d", base)
		if m := inUseRE.FindStringSubmatch(err.Error()); m != nil {
			what = m[1]
		}
		inUse = append(inUse, what)
	}
	return 0, fmt.Errorf("%w on %d bases in a row: port %s", ErrInUse, Attempts, strings.Join(inUse, ", port "))
}

// RunScript runs scripts/slurm-cluster.sh (path script) with args and env, and
// returns its standard output. Its error carries the combined output and wraps
// ErrInUse when the script exits 4, ErrNoSlurm when it exits 3.
func RunScript(env []string, script string, args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err == nil {
		return strings.TrimSpace(out.String()), nil
	}
	msg := strings.TrimSpace(errb.String() + "\n" + out.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		switch ee.ExitCode() {
		case 4:
			return "", fmt.Errorf("slurm-cluster.sh %s: %w: %s", args[0], ErrInUse, msg)
		case 3:
			return "", fmt.Errorf("slurm-cluster.sh %s: %w: %s", args[0], ErrNoSlurm, msg)
		}
	}
	return "", fmt.Errorf("slurm-cluster.sh %s: %v\n%s", strings.Join(args, " "), err, msg)
}
