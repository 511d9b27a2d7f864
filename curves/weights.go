package curves

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// Weights are the w(t) of the ordering objective of Leung et al. 2002 §2.2: a pair of
// nodes whose ranks differ by t contributes w(t) times their hop distance. W[t-1] is
// w(t) for t = 1..K; w(t) = 0 for t > K.
type Weights []float64

// K returns the largest rank difference with a non-zero weight budget (len(w)).
func (w Weights) K() int { return len(w) }

// ParseWeights parses a weight spec: "list:W1,W2,..." (w(t) = Wt, 0 beyond) or
// "exp:B:K" (w(t) = B^(1-t) for t = 1..K, 0 beyond). Weights must be finite and
// non-negative, and w(1) must be positive.
func ParseWeights(spec string) (Weights, error) {
	kind, rest, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("weights %q: want list:W1,W2,... or exp:B:K", textin.Clip(spec))
	}
	var w Weights
	switch kind {
	case "list":
		for i, f := range strings.Split(rest, ",") {
			v, err := parseDecimal(strings.TrimSpace(f))
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("weights %q: w(%d) = %q is out of the range of float64 (about 1e-308 to 1.8e308)", textin.Clip(spec), i+1, textin.Clip(f))
			}
			if err != nil {
				return nil, fmt.Errorf("weights %q: w(%d) = %q is not a number", textin.Clip(spec), i+1, textin.Clip(f))
			}
			w = append(w, v)
		}
	case "exp":
		bs, ks, ok := strings.Cut(rest, ":")
		if !ok {
			return nil, fmt.Errorf("weights %q: want exp:B:K", textin.Clip(spec))
		}
		b, err := parseDecimal(bs)
		if err != nil || !(b >= 1) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("weights %q: base %q must be a number >= 1", textin.Clip(spec), textin.Clip(bs))
		}
		k, err := strconv.Atoi(ks)
		if err != nil || k < 1 || k > 1<<20 {
			return nil, fmt.Errorf("weights %q: K %q must be an integer from 1 to %d", textin.Clip(spec), textin.Clip(ks), 1<<20)
		}
		w = make(Weights, k)
		for t := 1; t <= k; t++ {
			w[t-1] = math.Pow(b, float64(1-t))
		}
	default:
		return nil, fmt.Errorf("weights %q: unknown kind %q (want list or exp)", textin.Clip(spec), textin.Clip(kind))
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("weights %q: %w", textin.Clip(spec), err)
	}
	return w, nil
}

// parseDecimal reads a decimal number as a user writes one: strconv.ParseFloat also
// takes Go's digit separators and hexadecimal floats, so that "1_0" read as 10 and
// "0x10" as 16.
func parseDecimal(s string) (float64, error) {
	if strings.ContainsAny(s, "_xXpP") {
		return 0, strconv.ErrSyntax
	}
	v, err := strconv.ParseFloat(s, 64)
	if mant, _, _ := strings.Cut(strings.ToLower(s), "e"); err == nil && v == 0 && strings.ContainsAny(mant, "123456789") {
		// ParseFloat rounds a number below the smallest float64 (1e-400) to 0
		// without an error: a weight the user gave would silently vanish.
		return 0, strconv.ErrRange
	}
	return v, err
}

// Validate checks that the weights are finite, non-negative, and w(1) > 0.
func (w Weights) Validate() error {
	if len(w) == 0 {
		return fmt.Errorf("no weights")
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("w(%d) = %g: weights must be finite and non-negative", i+1, v)
		}
	}
	if w[0] <= 0 {
		return fmt.Errorf("w(1) = %g: must be positive", w[0])
	}
	return nil
}

// String returns a list spec that ParseWeights reads back to the same weights.
func (w Weights) String() string {
	parts := make([]string, len(w))
	for i, v := range w {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "list:" + strings.Join(parts, ",")
}
