package slurm

import (
	"fmt"
	"regexp"
	"strconv"
)

// Version is a Slurm release, year.month (22.05, 23.02, 26.05); Patch is kept for
// display only.
type Version struct {
	Major, Minor, Patch int // year, month and patch level: 22.05.8 is {22, 5, 8}
}

// versionRE finds YY.MM[.PATCH] standing alone: not part of a longer number
// ("2205.05", "22.055" and "1.22.05" are not 22.05).
var versionRE = regexp.MustCompile(`(?:^|[^\d.])(\d{2})\.(\d{1,2})(?:\.(\d+))?(?:$|[^\d.])`)

// ParseVersion reads "22.05", "22.05.8", "slurm 22.05.8" (scontrol --version's
// output) or "slurm-wlm 23.11.4".
func ParseVersion(s string) (Version, error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("version %q: want a Slurm version YY.MM such as 22.05 or 23.11.4", s)
	}
	var v Version
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		var err error
		if v.Patch, err = strconv.Atoi(m[3]); err != nil {
			return Version{}, fmt.Errorf("version %q: patch level %s is not a number procalloc can hold", s, m[3])
		}
	}
	if v.Minor < 1 || v.Minor > 12 {
		return Version{}, fmt.Errorf("version %q: month %d is not 1-12 (a Slurm version is YY.MM)", s, v.Minor)
	}
	return v, nil
}

// AtLeast reports whether v is release o or later (the patch level ignored).
func (v Version) AtLeast(o Version) bool {
	if v.Major != o.Major {
		return v.Major > o.Major
	}
	return v.Minor >= o.Minor
}

// IsZero reports whether v is unset.
func (v Version) IsZero() bool { return v == Version{} }

// String returns "YY.MM", or "YY.MM.PATCH" with a patch level; "" for the zero
// Version.
func (v Version) String() string {
	if v.IsZero() {
		return ""
	}
	if v.Patch > 0 {
		return fmt.Sprintf("%02d.%02d.%d", v.Major, v.Minor, v.Patch)
	}
	return fmt.Sprintf("%02d.%02d", v.Major, v.Minor)
}

// MarshalText writes the version as String does.
func (v Version) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// yymm is v as the key tables (confkeys_table.go) and confRemovedKeys write a
// release: YYMM, 2205 for 22.05.
func (v Version) yymm() int { return v.Major*100 + v.Minor }

// releaseOf is the release a table's YYMM names (2411: 24.11).
func releaseOf(yymm int) Version { return Version{Major: yymm / 100, Minor: yymm % 100} }
