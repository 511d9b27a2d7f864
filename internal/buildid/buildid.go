// Package buildid names the build of procalloc that is running, so that what it
// writes (a sweep's results lines) can say which build wrote it and files written by
// two builds are told apart.
//
// The name is, in order of preference:
//
//   - "git:REV" with REV the first 12 hex digits of the VCS revision Go stamps into
//     the binary (vcs.revision), "git:REV+dirty:EXE" when the work tree had
//     uncommitted changes (vcs.modified), EXE being the executable's hash as below:
//     two dirty builds of one commit are different builds;
//   - the main module's version ("v1.2.3") for a "go install ...@v1.2.3" build,
//     which has no VCS stamp;
//   - "exe:EXE", the first 12 hex digits of the SHA-256 of the executable file, for
//     a build with neither (go build -buildvcs=false, a source tree without .git,
//     go test): equal for the same binary, different after any rebuild that changes
//     it;
//   - "unknown" when even the executable cannot be read.
package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// Unknown is the name of a build that cannot be named, and what a results line
// written before lines named their build is taken to be from.
const Unknown = "unknown"

// ID is the name of the running build (see the package's comment), computed once.
var ID = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return FromInfo(bi, exeHash)
})

// FromInfo names a build from its build information (nil when there is none) and
// a function that hashes its executable (12 hex digits), called only when needed.
func FromInfo(bi *debug.BuildInfo, exe func() (string, error)) string {
	hash := func() string {
		h, err := exe()
		if err != nil || h == "" {
			return Unknown
		}
		return h
	}
	if bi != nil {
		var rev string
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			rev = "git:" + rev[:min(12, len(rev))]
			if modified {
				rev += "+dirty:" + hash()
			}
			return rev
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	if h := hash(); h != Unknown {
		return "exe:" + h
	}
	return Unknown
}

// exeHash is the first 12 hex digits of the SHA-256 of the running executable.
func exeHash() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}
