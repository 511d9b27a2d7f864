package sim

import (
	"errors"
	"math"
	"testing"
)

// TestScaleApplyRefusesFactorsPastInt64: a NaN or infinite factor, or one that takes
// a time past 2^62 seconds, is an error, not jobs with negative times; a Perturb of
// 2^62 or more is an error, not a panic in the replicas' generator. Spec.Validate
// refuses such a Perturb by its field.
func TestScaleApplyRefusesFactorsPastInt64(t *testing.T) {
	jobs := []Job{{ID: 1, Arrival: 10, Procs: 1, Runtime: 100, Estimate: 200}, {ID: 2, Arrival: 20, Procs: 1, Runtime: 100, Estimate: -1}}
	for _, s := range []Scale{
		{Work: math.NaN()}, {Work: math.Inf(1)}, {Contract: math.NaN()}, {Contract: math.Inf(1)},
		{Work: 1e300}, {Contract: 1e300}, {Replicate: 2, Perturb: math.MaxInt64},
	} {
		out, err := s.Apply(jobs)
		if err == nil {
			t.Errorf("%+v: no error; jobs %+v", s, out)
		}
	}
	// Large but representable: still fine.
	if _, err := (Scale{Work: 1e6, Contract: 1e6, Replicate: 2, Perturb: 1 << 40}).Apply(jobs); err != nil {
		t.Errorf("factors 1e6: %v", err)
	}
	s := validSpec()
	s.Scale.Replicate, s.Scale.Perturb = 2, math.MaxInt64
	var fe *FieldError
	if err := s.Validate(); !errors.As(err, &fe) || fe.Field != "Scale.Perturb" {
		t.Errorf("Validate with Perturb 2^63-1: %v, want a FieldError of Scale.Perturb", err)
	}
}
