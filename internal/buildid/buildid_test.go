package buildid

import (
	"errors"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

func TestFromInfo(t *testing.T) {
	exe := func() (string, error) { return "0123456789ab", nil }
	noExe := func() (string, error) { return "", errors.New("no executable") }
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	rev := "6305d667a1b2c3d4e5f60718293a4b5c6d7e8f90"
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		exe  func() (string, error)
		want string
	}{
		{"clean", info("v0.0.0-x", "vcs.revision", rev, "vcs.modified", "false"), noExe, "git:6305d667a1b2"},
		{"dirty", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), exe, "git:6305d667a1b2+dirty:0123456789ab"},
		{"dirty, no executable", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), noExe, "git:6305d667a1b2+dirty:unknown"},
		{"short revision", info("", "vcs.revision", "abc"), exe, "git:abc"},
		{"module version", info("v1.2.3"), exe, "v1.2.3"},
		{"devel", info("(devel)"), exe, "exe:0123456789ab"},
		{"no info", nil, exe, "exe:0123456789ab"},
		{"nothing", nil, noExe, Unknown},
	} {
		if got := FromInfo(c.bi, c.exe); got != c.want {
			t.Errorf("%s: FromInfo = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestIDIsThisBinary checks that the test binary (which go test builds without a
// VCS stamp) is named by the hash of its executable, the same on every call.
func TestIDIsThisBinary(t *testing.T) {
	h, err := exeHash()
	if err != nil {
		t.Skipf("cannot read the executable: %v", err)
	}
	if len(h) != 12 || strings.Trim(h, "0123456789abcdef") != "" {
		t.Fatalf("exeHash = %q, want 12 hex digits", h)
	}
	id := ID()
	if id != ID() {
		t.Fatalf("ID changed between calls")
	}
	bi, ok := debug.ReadBuildInfo()
	if ok && (bi.Main.Version != "" && bi.Main.Version != "(devel)" || slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "vcs.revision" })) {
		t.Skipf("the test binary has a version or a VCS stamp: ID = %q", id)
	}
	if id != "exe:"+h {
		t.Fatalf("ID = %q, want exe:%s (the hash of this executable)", id, h)
	}
}
