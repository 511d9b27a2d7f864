package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 13 item 16: scripts/install-highs.sh takes the deb-src mirror and keyring from
// the machine's own apt sources (deb822 or one-line), not from a fixed URL.
func TestInstallHighsUsesTheMachinesMirror(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	d822 := filepath.Join(dir, "d")
	os.Mkdir(d822, 0o755)
	os.WriteFile(filepath.Join(d822, "site.sources"), []byte(`Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /k/sec.gpg

Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /k/site.gpg
`), 0o644)
	list := filepath.Join(dir, "sources.list")
	os.WriteFile(list, []byte("# comment\ndeb [signed-by=/k/one.gpg arch=amd64] http://one.example/debian bookworm main\n"), 0o644)
	for _, tc := range []struct {
		dir, list, uri, key string
	}{
		{d822, list, "http://mirror.example/debian", "/k/site.gpg"},
		{filepath.Join(dir, "none"), list, "http://one.example/debian", "/k/one.gpg"},
	} {
		cmd := exec.Command("bash", "../../scripts/install-highs.sh", "--print-source")
		cmd.Env = append(os.Environ(), "APT_SOURCES_DIR="+tc.dir, "APT_SOURCES_LIST="+tc.list)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !strings.Contains(string(out), "Types: deb-src\nURIs: "+tc.uri+"\nSuites: trixie") || !strings.Contains(string(out), "Signed-By: "+tc.key) {
			t.Errorf("sources %s / %s: got\n%s", tc.dir, tc.list, out)
		}
	}
	cmd := exec.Command("bash", "../../scripts/install-highs.sh", "--print-source")
	cmd.Env = append(os.Environ(), "APT_SOURCES_DIR="+filepath.Join(dir, "none"), "APT_SOURCES_LIST="+filepath.Join(dir, "none.list"))
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no Debian archive") {
		t.Errorf("no sources: err %v, %s", err, out)
	}
}
