package slurm

import (
	"strings"
	"testing"
	"time"
)

// TestSacctTimesWithOffset: tools that read sacct run it with
// SLURM_TIME_FORMAT="%Y-%m-%dT%H:%M:%S%z" so that its times say their zone (Open
// OnDemand's Slurm adapter, the ceems exporter: "2023-02-21T14:37:02+0100" in its
// test). Such a history was refused ("time ...: want YYYY-MM-DDTHH:MM:SS"); it
// reads now as the times say, whatever zone the reader is told, the same jobs as
// the standard format read in that zone. A malformed offset is still refused.
func TestSacctTimesWithOffset(t *testing.T) {
	const standard = "JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|State|NodeList\n" +
		"1479763|2023-02-21T14:37:02|2023-02-21T14:37:07|2023-02-21T15:26:29|2962|60|2|CANCELLED by 302137|compute-[0-1]\n" +
		"1481508|2023-03-26T01:48:20|2023-03-26T01:49:06|2023-03-26T03:57:23|4097|120|1|COMPLETED|compute-0\n"
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	want, err := ReadSacct(strings.NewReader(standard), SacctOptions{Location: paris})
	if err != nil {
		t.Fatal(err)
	}
	// The same records as sacct prints them with %z: +0100 before the switch to
	// summer time (2023-03-26 02:00 in Paris), +0200 after.
	offset := strings.NewReplacer(
		"14:37:02|", "14:37:02+0100|", "14:37:07|", "14:37:07+0100|", "15:26:29|", "15:26:29+0100|",
		"01:48:20|", "01:48:20+0100|", "01:49:06|", "01:49:06+0100|", "03:57:23|", "03:57:23+0200|",
	).Replace(standard)
	for _, loc := range []*time.Location{time.UTC, paris, time.FixedZone("x", -7*3600)} {
		got, err := ReadSacct(strings.NewReader(offset), SacctOptions{Location: loc})
		if err != nil {
			t.Fatalf("in %s: %v", loc, err)
		}
		if len(got.Jobs) != 2 || len(got.Impossible) != 0 {
			t.Fatalf("in %s: %d jobs, impossible %v", loc, len(got.Jobs), got.Impossible)
		}
		for i, j := range got.Jobs {
			w := want.Jobs[i]
			if j.ID != w.ID || j.Submit != w.Submit || j.Start != w.Start || j.Runtime != w.Runtime || j.Size != w.Size {
				t.Errorf("in %s: job %+v, want %+v", loc, j, w)
			}
		}
	}
	if got := want.Jobs[1].Runtime; got != 4097 {
		t.Errorf("the job across the switch ran %d s, want 4097 (ElapsedRaw)", got)
	}
	for _, bad := range []string{"2023-02-21T14:37:02+01:00", "2023-02-21T14:37:02+2500", "2023-02-21T14:37:02 +0100"} {
		src := strings.Replace(offset, "2023-02-21T14:37:02+0100", bad, 1)
		if _, err := ReadSacct(strings.NewReader(src), SacctOptions{Location: time.UTC}); err == nil || !strings.Contains(err.Error(), "want YYYY-MM-DDTHH:MM:SS") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
