package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 24 row 14: when no rate saturates, the text says "none" and the JSON null
// (it said "first at offered 0.0000"); rows 13: the bound is the same for a machine
// and its rotation.
func TestNetsimNoSaturation(t *testing.T) {
	args := []string{"netsim", "--machine", "mesh:8x8", "--rate", "0.01,0.02", "--warmup", "1000", "--measure", "5000"}
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 || !strings.Contains(out, "saturation: none;") {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", append(args, "--json")...)
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if v, ok := o["saturation_offered"]; !ok || v != nil {
		t.Errorf("saturation_offered = %v (present %v), want null", v, ok)
	}
	code, out, _ = runCLI(t, "", "netsim", "--machine", "mesh:8x8", "--rate", "0.05,0.9", "--warmup", "1000", "--measure", "5000", "--json")
	if err := json.Unmarshal([]byte(out), &o); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if v, ok := o["saturation_offered"].(float64); !ok || v < 0.5 {
		t.Errorf("saturation_offered = %v at rate 0.9", o["saturation_offered"])
	}
	for _, m := range []string{"mesh:8x8:wrap=x", "mesh:8x8:wrap=y"} {
		if _, out, _ := runCLI(t, "", "netsim", "--machine", m, "--rate", "0.01", "--measure", "1000"); !strings.Contains(out, "bisection bound 0.5000") {
			t.Errorf("%s: %s", m, out)
		}
	}
}
