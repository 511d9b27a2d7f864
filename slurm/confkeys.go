package slurm

import (
	"fmt"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// confKey is a slurm.conf key as read_config.c's options tables spell it, with the
// Slurm releases whose table holds it: Since and Until are YYMM (Version.yymm: 2302 is 23.02), 0
// for "from 22.05" and "to 26.05", the oldest and newest release procalloc knows.
//
// The tables (confkeys_table.go) are the union of the tables of every release tag
// from slurm-22-05-0-1 to slurm-26-05-3-1 (71 tags) of github.com/SchedMD/slurm,
// src/common/read_config.c: slurm_conf_options (global keys and line keys) and the
// static tables of the line keys' handlers (_nodename_options, _partition_options,
// _nodeset_options, _downnodes_options, _frontend_options, _power_action_options);
// 22.05.8 is commit d525b6872a106d32916b33a8738f12510ec7cf04, 26.05.3
// 56fe867884038ba2074bd414075b60c2fb1d68bb. Every key appears or goes at a release's
// .0 tag, never within a release. SlurmctldHost's handler has an empty table.
type confKey struct {
	Name         string
	Since, Until int
}

// confLineKeys maps each key whose line holds more pairs after the first (the
// S_P_ARRAY entries whose handler reads the rest of the line with s_p_parse_line)
// to the keys its handler knows. FrontendName is Slurm's up to 24.11 and PowerAction
// from 26.05 (confGlobalKeys says); their handlers' keys share that range.
// SlurmctldHost's handler reads the rest with an empty table, so a pair after it is
// refused: it is not a line key.
var confLineKeys = map[string][]confKey{
	"nodename":      confNodeNameKeys,
	"partitionname": confPartitionNameKeys,
	"nodeset":       confNodeSetKeys,
	"downnodes":     confDownNodesKeys,
	"frontendname":  confFrontendNameKeys,
	"poweraction":   confPowerActionKeys,
}

// lookupConfKey finds key (any case: parse_config.c looks keys up with
// xstrcasecmp) in table.
func lookupConfKey(table []confKey, key string) (confKey, bool) {
	for _, k := range table {
		if strings.EqualFold(k.Name, key) {
			return k, true
		}
	}
	return confKey{}, false
}

// checkConfKeys refuses a line whose first key is not a slurm.conf key of any
// release from 22.05 to 26.05, or, on a line of confLineKeys, a later key its
// handler does not know: Slurm's "Parsing error at unrecognized key: KEY", and
// slurmctld and every client stop ("fatal: Unable to process configuration file").
// A key of some of those releases only is read (ReadConf does not know the
// release).
func checkConfKeys(pairs []ConfPair) error {
	first := pairs[0].Key
	if _, ok := lookupConfKey(confGlobalKeys, first); !ok {
		return fmt.Errorf("unknown key %s=: no Slurm from 22.05 to 26.05 knows it%s (Slurm: \"Parsing error at unrecognized key: %s\", fatal)", textin.Clip(first), didYouMean(confGlobalKeys, first), textin.Clip(first))
	}
	sub, ok := confLineKeys[strings.ToLower(first)]
	if !ok {
		return nil
	}
	for _, p := range pairs[1:] {
		if _, ok := lookupConfKey(sub, p.Key); !ok {
			return fmt.Errorf("unknown key %s= on a %s line: no Slurm from 22.05 to 26.05 knows it there%s (Slurm: \"Parsing error at unrecognized key: %s\", fatal)", textin.Clip(p.Key), first, didYouMean(sub, p.Key), textin.Clip(p.Key))
		}
	}
	return nil
}

// didYouMean names the key of table nearest to key when it is a near miss, in the
// form every other hint of procalloc takes (textin.DidYouMean): " (did you mean
// KEY?)", or "".
func didYouMean(table []confKey, key string) string {
	names := make([]string, len(table))
	for i, k := range table {
		names[i] = k.Name
	}
	return textin.DidYouMean(key, names)
}

// knownIn reports whether release v (YYMM, Version.yymm: 2211 for 22.11) has k. A release after
// 26.05 is taken to have the keys 26.05 has.
func (k confKey) knownIn(v int) bool {
	return (k.Since == 0 || v >= k.Since) && (k.Until == 0 || v <= k.Until)
}

// releases says which releases have k ("Slurm 24.11 on", "Slurm to 23.11").
func (k confKey) releases() string {
	yymm := func(v int) string { return releaseOf(v).String() }
	switch {
	case k.Since == 0 && k.Until == 2205 || k.Since != 0 && k.Since == k.Until:
		return "Slurm " + yymm(max(k.Until, 2205)) + " only"
	case k.Since != 0 && k.Until != 0:
		return "Slurm " + yymm(k.Since) + " to " + yymm(k.Until)
	case k.Since != 0:
		return "Slurm " + yymm(k.Since) + " on"
	case k.Until != 0:
		return "Slurm 22.05 to " + yymm(k.Until)
	}
	return "Slurm 22.05 on"
}

// KeysNotIn lists the keys of c that Slurm release (22.05) does not have but
// another release from 22.05 to 26.05 has (ReadConf refuses the keys none has), one
// "line N: KEY= is a key of Slurm 24.11 on" each: that Slurm refuses the file
// ("Parsing error at unrecognized key", fatal). A release after 26.05 is taken to
// have 26.05's keys.
func (c *Conf) KeysNotIn(release Version) []string {
	v := release.yymm()
	var out []string
	note := func(l ConfLine, p ConfPair, k confKey) {
		if !k.knownIn(v) {
			out = append(out, fmt.Sprintf("%s: %s= is a key of %s", l.Where(), p.Key, k.releases()))
		}
	}
	for _, l := range c.Lines {
		if len(l.Pairs) == 0 || l.Kind() == "include" {
			continue
		}
		head, ok := lookupConfKey(confGlobalKeys, l.Pairs[0].Key)
		if !ok {
			continue
		}
		note(l, l.Pairs[0], head)
		if !head.knownIn(v) {
			continue // the rest of the line is not read
		}
		sub := confLineKeys[l.Kind()]
		for _, p := range l.Pairs[1:] {
			if k, ok := lookupConfKey(sub, p.Key); ok {
				note(l, p, k)
			}
		}
	}
	return out
}

// confRemovedKeys are keys the tables of 22.05 to 26.05 keep only to stop on them:
// read_config.c (22.05.8 lines 4068-4075, 4470-4490, 4896-4897; 26.05.3 4117-4124,
// 4597-4598, 5008-5009) ends with fatal(msg) when the key is set, FastSchedule only
// when its value is not 1 (=1 is logged and ignored) and only in slurmctld
// (running_in_slurmctld(): scontrol reads it), AccountingStorageLoc up to 25.05
// (later releases do not know the key: KeysNotIn).
var confRemovedKeys = []struct {
	key   string
	until int    // last release (YYMM) that stops on it this way; 0: to 26.05
	skip  string // a value that is not refused
	msg   string // slurmctld's fatal
}{
	{"AccountingStorageLoc", 2505, "", "The AccountingStorageLoc option has been removed. It is safe to remove from your configuration."},
	{"AccountingStoreJobComment", 0, "", "The AccountingStoreJobComment option has been removed, please use AccountingStoreFlags=job_comment option instead."},
	{"FastSchedule", 0, "1", "The FastSchedule option has been removed. ..."},
	{"SallocDefaultCommand", 0, "", "SallocDefaultCommand has been removed. Please consider setting LaunchParameters=use_interactive_step instead."},
}

// RemovedKeys lists the settings of c that Slurm release (22.05) stops on
// although its parser knows the key: options removed from Slurm before 22.05 whose
// key the table keeps for a fatal message (confRemovedKeys), one "line N:
// KEY=VALUE: ... (slurmctld: fatal \"...\")" each. slurmctld of that release stops
// at the file (and every client, but for FastSchedule), so a site running it does
// not have this slurm.conf.
func (c *Conf) RemovedKeys(release Version) []string {
	v := release.yymm()
	var out []string
	for _, l := range c.Lines {
		if len(l.Pairs) == 0 {
			continue
		}
		for _, r := range confRemovedKeys {
			p := l.Pairs[0]
			if !strings.EqualFold(p.Key, r.key) || r.until != 0 && v > r.until || r.skip != "" && strings.TrimSpace(p.Value) == r.skip {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s=%s: an option removed before Slurm 22.05 (slurmctld: fatal %q)", l.Where(), p.Key, textin.Clip(p.Value), r.msg))
		}
	}
	return out
}
