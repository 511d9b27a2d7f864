package curves

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// What the MPI launchers make of the host names in procalloc's files. The rules were
// found by running Open MPI 4.1.4's mpirun and MPICH 4.0.2's hydra on files of such
// names (cmd/procalloc/mpi_test.go, TestOpenMPIHostNamesAsLaunched, checks each rule
// against the launcher; docs/reliability.md, "Real MPI launchers").

// openMPIRankfileWords are the keywords of Open MPI 4.1's rankfile grammar: a host
// spelled like one is read as the keyword and the line refused.
var openMPIRankfileWords = []string{"rank", "slot", "slots", "username", "user-name"}

// openMPIHostfileWords are the keywords of Open MPI 4.1's hostfile grammar without an
// underscore (names with one are refused anyway).
var openMPIHostfileWords = []string{"cpu", "count", "slots", "slots-max", "max-slots", "cpu-max", "max-cpu",
	"count-max", "max-count", "rank", "slot", "username", "user-name", "boards", "sockets", "sockets-per-board",
	"cores", "cores-per-socket", "cpu-set"}

// OpenMPIHostProblem says why Open MPI 4.1's mpirun refuses host name h, or reads it as
// another host, in a rankfile (rankfile true) or a hostfile; "" when it takes h as
// written (but for its domain, see LauncherWarnings). mpirun takes ASCII letters,
// digits, '.' and '-' only (an underscore fails when it launches), reads digits with a
// leading zero as a number (0007 is host 7), takes its grammars' keywords (slots,
// rank, ...) as keywords, and in a rankfile refuses a dotted name that starts with a
// digit unless it is an IPv4 address.
func OpenMPIHostProblem(h string, rankfile bool) string {
	if h == "" {
		return "an empty host name"
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return fmt.Sprintf("Open MPI's mpirun takes host names of ASCII letters, digits, '.' and '-' only, not %q", rune(c))
		}
	}
	if h[0] == '.' || h[0] == '-' {
		return fmt.Sprintf("Open MPI's mpirun refuses a host name that starts with %q", h[0])
	}
	if strings.Trim(h, "0123456789") == "" {
		if v, err := strconv.Atoi(h); err != nil || strconv.Itoa(v) != h {
			return "Open MPI reads a host name of digits as a number (a leading zero is lost)"
		}
		return ""
	}
	words := openMPIHostfileWords
	if rankfile {
		words = openMPIRankfileWords
	}
	if slices.Contains(words, h) {
		return fmt.Sprintf("Open MPI reads %q as a keyword of its %s", h, map[bool]string{true: "rankfile", false: "hostfile"}[rankfile])
	}
	if rankfile && strings.Contains(h, ".") && '0' <= h[0] && h[0] <= '9' && !isIPv4(h) {
		return "Open MPI's rankfile refuses a dotted host name that starts with a digit (other than an IPv4 address)"
	}
	return ""
}

// isIPv4 says whether h is four dot-separated numbers of 1 to 3 digits (the form of
// Open MPI's grammars, which keep such a name whole).
func isIPv4(h string) bool {
	parts := strings.Split(h, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// openMPIShortName is the name Open MPI 4.1's mpirun uses for h by default: the part
// before the first '.', unless h is an IPv4 address (mpirun --mca
// orte_keep_fqdn_hostnames 1 keeps the whole name).
func openMPIShortName(h string) string {
	if isIPv4(h) {
		return h
	}
	short, _, _ := strings.Cut(h, ".")
	return short
}

// LauncherWarnings lists what the MPI launchers would do to the host names hosts of a
// file in format f that procalloc writes without refusing it: in FormatHosts (read by
// Slurm, Open MPI and MPICH alike) a name Open MPI refuses or reads as another host
// (OpenMPIHostProblem) and a name with ':' (MPICH's hydra reads host:N as N slots of
// host); in FormatHosts and FormatRankfile, hosts whose names differ only after the
// first '.' (Open MPI shortens both to one host unless mpirun gets --mca
// orte_keep_fqdn_hostnames 1). Each kind is one message, naming the first host or pair
// and how many there are. Other formats get none.
func LauncherWarnings(f Format, hosts []string) []string {
	if f != FormatHosts && f != FormatRankfile {
		return nil
	}
	var warnings []string
	if f == FormatHosts {
		refused, colon := 0, 0
		var firstRefused, why, firstColon string
		for _, h := range hosts {
			if p := OpenMPIHostProblem(h, false); p != "" {
				if refused == 0 {
					firstRefused, why = h, p
				}
				refused++
			}
			if strings.Contains(h, ":") {
				if colon == 0 {
					firstColon = h
				}
				colon++
			}
		}
		if refused > 0 {
			warnings = append(warnings, fmt.Sprintf("%d host name(s) that Open MPI's mpirun --hostfile refuses or reads as another host, the first %q: %s (Slurm and MPICH take them)", refused, firstRefused, why))
		}
		if colon > 0 {
			warnings = append(warnings, fmt.Sprintf("%d host name(s) with ':', the first %q: MPICH's mpiexec -f reads HOST:N as N slots of HOST", colon, firstColon))
		}
	}
	byShort := map[string]string{} // names are unique: a second name of one short name is another host
	clashes := 0
	var first [2]string
	for _, h := range hosts {
		s := openMPIShortName(h)
		if other, ok := byShort[s]; ok {
			if clashes == 0 {
				first = [2]string{other, h}
			}
			clashes++
			continue
		}
		byShort[s] = h
	}
	if clashes > 0 {
		warnings = append(warnings, fmt.Sprintf("%d host(s) share their first label with another, the first %q and %q: Open MPI's mpirun shortens both to %q (one host) unless it gets --mca orte_keep_fqdn_hostnames 1", clashes, first[0], first[1], openMPIShortName(first[1])))
	}
	return warnings
}
