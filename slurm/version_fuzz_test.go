package slurm

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseVersion fuzzes --slurm-version and scontrol --version's output: an
// accepted version has a two-digit year and a month 1-12, its String reads back to
// it, and its year and month stand in the input as a number pair not part of a
// longer number; a refusal quotes the input.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"22.05", "slurm 22.05.8", "slurm-wlm 23.11.4", "26.05", "", "22", "22.13", "x.y", "2205.05", "22.055", "1.22.05",
		"22.5", "slurm 23.11.4-1\n", "22.05.99999999999999999999", "22.05.", ".22.05", "22.05 23.11"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			if v != (Version{}) || !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("%q: %v with error %q (want the zero version and the input quoted)", s, v, err)
			}
			return
		}
		if v.Major < 0 || v.Major > 99 || v.Minor < 1 || v.Minor > 12 || v.Patch < 0 {
			t.Fatalf("%q: version %+v", s, v)
		}
		if back, err := ParseVersion(v.String()); err != nil || back != v {
			t.Fatalf("%q: %q reads back as %+v, %v", s, v.String(), back, err)
		}
		found := false
		for _, month := range []string{strconv.Itoa(v.Minor), "0" + strconv.Itoa(v.Minor)} {
			pair := strconv.Itoa(v.Major/10) + strconv.Itoa(v.Major%10) + "." + month
			for i := strings.Index(s, pair); i >= 0 && !found; {
				j := i + len(pair)
				before := i == 0 || !strings.ContainsRune("0123456789.", rune(s[i-1]))
				after := j == len(s) || !strings.ContainsRune("0123456789", rune(s[j]))
				found = before && after
				k := strings.Index(s[i+1:], pair)
				if k < 0 {
					break
				}
				i += 1 + k
			}
		}
		if !found {
			t.Fatalf("%q: %v is not a number pair standing alone in the input", s, v)
		}
	})
}

// TestTableReleasesAreVersions: every release the key tables name (YYMM) is a
// Version whose String ParseVersion reads back to the same YYMM: the tables and
// --slurm-version speak of releases one way.
func TestTableReleasesAreVersions(t *testing.T) {
	var yymms []int
	for _, k := range confGlobalKeys {
		yymms = append(yymms, k.Since, k.Until)
	}
	for _, table := range confLineKeys {
		for _, k := range table {
			yymms = append(yymms, k.Since, k.Until)
		}
	}
	for _, r := range confRemovedKeys {
		yymms = append(yymms, r.until)
	}
	n := 0
	for _, y := range yymms {
		if y == 0 {
			continue
		}
		n++
		v, err := ParseVersion(releaseOf(y).String())
		if err != nil || v.yymm() != y || v != releaseOf(y) {
			t.Errorf("table release %d: %q reads back as %+v, %v", y, releaseOf(y).String(), v, err)
		}
	}
	if n == 0 {
		t.Fatal("no release in the tables")
	}
}
