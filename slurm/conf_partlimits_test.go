package slurm

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/slurmtest"
)

// partLimitsConf has partitions of every limit's form: TestConfPartitionLimits
// says what ReadConf reads of them, TestConfPartitionLimitsOnSlurmctld that
// slurmctld reads the same.
const partLimitsConf = "NodeName=n[1-8]\n" +
	"PartitionName=plain Nodes=ALL\n" +
	"PartitionName=DEFAULT PriorityTier=3 MaxTime=30\n" +
	"PartitionName=tiered Nodes=ALL PriorityTier=7 State=down MaxNodes=4 MinNodes=2\n" +
	"PartitionName=dflt Nodes=ALL State=DRAINING MaxNodes=UNLIMITED MaxTime=5:30\n" +
	"PartitionName=old Nodes=ALL Priority=9 PriorityTier=2 MaxTime=1-2:03:04 MaxNodes=0x10\n" +
	"PartitionName=DEFAULT Priority=5\n" +
	"PartitionName=odflt Nodes=ALL PriorityTier=2 State=Inactive MaxTime=INFINITE MaxNodes=2k MinNodes=010\n" +
	"PartitionName=hms Nodes=ALL MaxTime=2:00:01\n"

// TestConfPartitionLimits: PriorityTier (Priority=, the older name, winning
// over it from the line or a DEFAULT line, as read_config.c reads them),
// State, MaxNodes, MinNodes and MaxTime, with Slurm's defaults (tier 1, UP,
// unlimited) and its refusals.
func TestConfPartitionLimits(t *testing.T) {
	ps := confPartitions(t, partLimitsConf)
	type row struct {
		name                string
		tier                int
		state               string
		maxN, minN, maxTime int64
	}
	want := []row{
		{"plain", 1, "UP", -1, 0, -1},
		{"tiered", 7, "DOWN", 4, 2, 30},
		{"dflt", 3, "DRAIN", -1, 0, 6},             // 5:30 (MM:SS) rounded up
		{"old", 9, "UP", 16, 0, 1*1440 + 2*60 + 4}, // 03:04 rounded up to 4 minutes
		{"odflt", 5, "INACTIVE", 2048, 8, -1},      // MinNodes=010: octal, strtoul base 0
		{"hms", 5, "UP", -1, 0, 121},               // 2:00:01 rounded up
	}
	if len(ps) != len(want) {
		t.Fatalf("%d partitions, want %d", len(ps), len(want))
	}
	for i, w := range want {
		p := ps[i]
		got := row{p.Name, p.PriorityTier, p.State, p.MaxNodes, p.MinNodes, p.MaxTime}
		if got != w {
			t.Errorf("partition %d: %+v, want %+v", i, got, w)
		}
	}
	for _, bad := range []string{
		"PriorityTier=65536", "PriorityTier=-1", "PriorityTier=x", "Priority=1k",
		"State=UPPISH2", "State=", "State=open",
		"MaxNodes=4294967296", "MaxNodes=-3", "MinNodes=1.5",
		"MaxTime=1:2:3:4", "MaxTime=abc", "MaxTime=1-2-3", "MaxTime=-5", "MaxTime=1:",
	} {
		c, err := ReadConf([]byte("NodeName=n1\nPartitionName=p Nodes=n1 " + bad + "\n"))
		if err != nil {
			continue // refused by the line reader already
		}
		if _, err := c.Partitions(nil); bad == "State=" || bad == "State=UPPISH2" {
			// "State=" is not given; State=UPPISH2 starts with UP, which slurmctld takes
			if err != nil {
				t.Errorf("%s: %v", bad, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%s: error %v, want a refusal of line 2", bad, err)
		}
	}
}

// TestTimeStrMins: Slurm's time_str2mins (parse_time.c) by hand: each form,
// the seconds rounded up, the unlimited words, the forms _is_valid_timespec
// refuses.
func TestTimeStrMins(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64 // -2: refused
	}{
		{"30", 30}, {"0", 0}, {"5:30", 6}, {"5:00", 5}, {"1:00:00", 60}, {"1:00:01", 61},
		{"2-0", 2880}, {"2-1", 2940}, {"2-1:30", 2970}, {"2-1:30:01", 2971}, {"1-", 1440},
		{"-1", -1}, {"INFINITE", -1}, {"unlimited", -1}, {"-0", 0},
		{"", -2}, {"1:2:3:4", -2}, {"1-2-3", -2}, {"1-:5", -2}, {"1::2", -2}, {":5", -2},
		{"5m", -2}, {"1:2-3", -2}, {"-5", -2}, {"99999999999", -2},
	} {
		got, err := TimeStrMins(c.in)
		if err != nil {
			got = -2
		}
		if got != c.want {
			t.Errorf("TimeStrMins(%q) = %d (%v), want %d", c.in, got, err, c.want)
		}
	}
}

// FuzzTimeStrMins: no panic; a value read is -1 (no limit) or at least 0 and
// at most MaxInt32 seconds in minutes; a plain number of minutes reads as itself.
func FuzzTimeStrMins(f *testing.F) {
	for _, s := range []string{"30", "5:30", "1:00:01", "2-1:30:01", "1-", "-0", "UNLIMITED", "1::2", "+5", "-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := TimeStrMins(s)
		if err != nil {
			return
		}
		if m < -1 || m > (1<<31)/60+1 {
			t.Fatalf("TimeStrMins(%q) = %d", s, m)
		}
		if x, err := strconv.ParseInt(s, 10, 64); err == nil && x >= 0 && !strings.HasPrefix(s, "+") && m != x {
			t.Fatalf("TimeStrMins(%q) = %d, want %d", s, m, x)
		}
	})
}

// The partitions of TestConfPartitionLimits and more values loaded by slurmctld
// (22.05 on PATH; 26.05 in $PROCALLOC_SLURM_NEW, default /opt/slurm-new): each
// partition's PriorityTier, State, MaxNodes, MinNodes and MaxTime as `scontrol
// show partition` prints them equal ConfPartition's; values refused here are
// slurmctld's fatal too. Not -short; needs root and slurmctld.
func TestConfPartitionLimitsOnSlurmctld(t *testing.T) {
	slurms := slurmtest.NeedCtlds(t, "partition tiers, states and limits")
	ps := confPartitions(t, partLimitsConf)
	for _, s := range slurms {
		outs, fatal := slurmtestShow(t, s, partLimitsConf)
		if fatal != "" {
			t.Fatalf("%s: slurmctld: %s", s.Name, fatal)
		}
		shown := map[string]map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(outs), "\n") {
			kv := map[string]string{}
			for _, f := range strings.Fields(l) {
				if k, v, ok := strings.Cut(f, "="); ok {
					kv[k] = v
				}
			}
			shown[kv["PartitionName"]] = kv
		}
		for _, p := range ps {
			kv := shown[p.Name]
			if kv == nil {
				t.Errorf("%s: scontrol shows no partition %s", s.Name, p.Name)
				continue
			}
			num := func(x int64) string {
				if x < 0 {
					return "UNLIMITED"
				}
				return strconv.FormatInt(x, 10)
			}
			maxTime, err := TimeStrMins(kv["MaxTime"])
			if err != nil {
				t.Errorf("%s: %s MaxTime=%s: %v", s.Name, p.Name, kv["MaxTime"], err)
			}
			got := fmt.Sprintf("tier %s state %s max %s min %s time %d", kv["PriorityTier"], kv["State"], kv["MaxNodes"], kv["MinNodes"], maxTime)
			want := fmt.Sprintf("tier %d state %s max %s min %d time %d", p.PriorityTier, p.State, num(p.MaxNodes), p.MinNodes, p.MaxTime)
			if got != want {
				t.Errorf("%s: partition %s: scontrol %s, ConfPartition %s", s.Name, p.Name, got, want)
			}
		}
		t.Logf("%s: %d partitions agree", s.Name, len(ps))
		for _, bad := range []string{"PriorityTier=65536", "MaxNodes=-3", "MaxTime=1:2:3:4", "MaxTime=abc", "State=open"} {
			_, fatal := slurmtestShow(t, s, "NodeName=n1\nPartitionName=p Nodes=n1 "+bad+"\n")
			if fatal == "" {
				t.Errorf("%s: slurmctld takes %s, ReadConf refuses it", s.Name, bad)
			}
		}
	}
}

// slurmtestShow is `scontrol -o show partition` of slurmctld s on conf, or its
// fatal line.
func slurmtestShow(t *testing.T, s slurmtest.Ctld, conf string) (string, string) {
	outs, fatal := slurmtest.SlurmctldShow(t, s.Slurmctld, s.Scontrol, t.TempDir(), conf, "partition")
	if fatal != "" {
		return "", fatal
	}
	return outs[0], ""
}
