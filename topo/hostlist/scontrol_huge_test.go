package hostlist_test

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// A host name ending in a number of 2^64 or more, in each form (digits only,
// after a prefix, zero padded, in brackets, in ranges, in lists), against Slurm's
// scontrol show hostnames (the one on PATH and $PROCALLOC_SLURM_NEW's, no daemon
// needed): Slurm clamps such a number to 18446744073709551615 (strtoul), so it
// never prints the name as written; Expand, Count, Table.Parse and Compress
// refuse it (ErrSyntax for an expression, naming Slurm's reading; a bracket's
// number from 2^63 on was refused before, as too large). A
// name Slurm prints as written, Expand gives as scontrol does: the boundary
// 18446744073709551615 itself, padded numbers of many digits, and random
// numbers of 18-21 digits around 2^64, name by name.
func TestHugeNumbersAgainstScontrol(t *testing.T) {
	var scontrols []string
	if s, err := exec.LookPath("scontrol"); err == nil {
		scontrols = append(scontrols, s)
	}
	if s := filepath.Join(slurmtest.NewPrefix(), "bin", "scontrol"); fileExists(s) {
		scontrols = append(scontrols, s)
	}
	if len(scontrols) == 0 {
		t.Skip("scontrol not on PATH (Debian: apt-get install slurm-client) nor in " + slurmtest.NewPrefix() + ": Slurm's reading of names with huge numbers is not compared")
	}
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("ClusterName=hostlist\nSlurmctldHost=localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []string{
		"20000000000000000000", "18446744073709551616", "99999999999999999999999", "00020000000000000000000",
		"n20000000000000000000", "n18446744073709551616,n18446744073709551617", "n20000000000000000000,n1",
		"[20000000000000000000]", "n[20000000000000000000]", "n[18446744073709551615-18446744073709551616]",
		"n[99999999999999999998-99999999999999999999]", "n[0-1]x[20000000000000000000]", "1,20000000000000000000",
		// Slurm keeps these as written.
		"18446744073709551615", "n18446744073709551615", "18446744073709551614", "000000000000000000000001",
		"n000000000000000000000000000018446744073709551615", "n18446744073709551614,n18446744073709551615", "4294967296",
	}
	rng := rand.New(rand.NewPCG(64, 1))
	limit := new(big.Int).Lsh(big.NewInt(1), 64)
	for range 200 {
		// 18-21 digits, half of them within 2^20 of 2^64.
		var d strings.Builder
		d.WriteByte(byte('1' + rng.IntN(9)))
		for range 17 + rng.IntN(4) {
			d.WriteByte(byte('0' + rng.IntN(10)))
		}
		v := d.String()
		if rng.IntN(2) == 0 {
			v = new(big.Int).Add(limit, big.NewInt(rng.Int64N(1<<21)-1<<20)).String()
		}
		cases = append(cases, []string{"", "n", "rack1-", "x0"}[rng.IntN(4)]+v)
	}
	crashed, refused, kept := 0, 0, 0
	for _, sc := range scontrols {
		for _, expr := range cases {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			cmd := exec.CommandContext(ctx, sc, "show", "hostnames", expr)
			cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
			out, err := cmd.CombinedOutput()
			cancel()
			if ee, ok := err.(*exec.ExitError); ok && !ee.Exited() {
				// 22.05.8 and 26.05.3 crash (SIGSEGV) on consecutive names
				// ending at 18446744073709551615: nothing to compare.
				t.Logf("%s show hostnames %s: %v", sc, expr, err)
				crashed++
				continue
			}
			if err != nil {
				t.Fatalf("%s show hostnames %s: %v %s", sc, expr, err, out)
			}
			slurm := strings.Fields(string(out))
			asWritten := slices.Equal(slurm, writtenNames(expr))
			names, err := hostlist.Expand(expr)
			if asWritten {
				if err != nil || !slices.Equal(names, slurm) {
					t.Errorf("%s: scontrol prints %q as written; Expand %q, %v", expr, slurm, names, err)
				}
				kept++
				continue
			}
			refused++
			// A bracket's number from 2^63 on is refused as too large (the
			// first of a range may be below 2^64).
			if err == nil || !errors.Is(err, hostlist.ErrSyntax) || !strings.Contains(err.Error(), "Slurm reads it as 18446744073709551615") &&
				!(strings.Contains(expr, "[") && strings.Contains(err.Error(), "at most 2^63-1")) {
				t.Errorf("%s: scontrol prints %q, not the names written; Expand %q, %v", expr, slurm, names, err)
				continue
			}
			if _, cerr := hostlist.Count(expr); cerr == nil {
				t.Errorf("%s: Count accepts it", expr)
			}
			if _, perr := hostlist.NewTable().Parse(expr); perr == nil {
				t.Errorf("%s: Table.Parse accepts it", expr)
			}
			if !strings.Contains(expr, "[") && !strings.Contains(expr, ",") {
				if _, cerr := hostlist.Compress([]string{expr}); cerr == nil || !strings.Contains(cerr.Error(), "Slurm reads it as") {
					t.Errorf("%s: Compress: %v", expr, cerr)
				}
			}
		}
	}
	if crashed > len(scontrols) || kept < 50 || refused < 50 {
		t.Errorf("%d expressions Slurm keeps, %d it does not, %d it crashed on", kept, refused, crashed)
	}
	t.Logf("%d scontrols: %d expressions read as written (Expand equal), %d clamped (refused), %d crashed scontrol", len(scontrols), kept, refused, crashed)
}

// writtenNames is expr's names as written, for the expressions above without a
// range: its comma-separated items, a bracket of one number opened.
func writtenNames(expr string) []string {
	var out []string
	for _, it := range strings.Split(expr, ",") {
		if strings.Contains(it, "-") && strings.Contains(it, "[") {
			return nil // a range: never "as written"
		}
		out = append(out, strings.NewReplacer("[", "", "]", "").Replace(it))
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
