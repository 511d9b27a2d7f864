package topo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// ParseSpec parses a grid spec: "mesh:XxY[xZ...]", "torus:XxY[xZ...]" (wraparound in
// every dimension), "mesh:XxYxZ:wrap=LETTERS" (wraparound in the dimensions named x, y,
// z, w), the published simulators' "mesh[X,Y,Z]" (sizes of 1 at the end dropped), or
// "mesh:XxY:io=SIDE[:COUNT]", a 2D mesh with I/O nodes along a side (io.go).
func ParseSpec(spec string) (*Grid, error) {
	s := strings.TrimSpace(spec)
	if strings.HasPrefix(s, "mesh[") {
		if !strings.HasSuffix(s, "]") {
			return nil, fmt.Errorf("machine spec %q: missing closing ']'", textin.Clip(spec))
		}
		dims, err := parseSizes(s[len("mesh["):len(s)-1], ",")
		if err != nil {
			return nil, fmt.Errorf("machine spec %q: %w", textin.Clip(spec), err)
		}
		for len(dims) > 1 && dims[len(dims)-1] == 1 {
			dims = dims[:len(dims)-1]
		}
		return newGridSpec(spec, dims, nil)
	}
	kind, rest, ok := strings.Cut(s, ":")
	if !ok {
		return nil, fmt.Errorf("machine spec %q: want KIND:SIZES such as mesh:16x16 or torus:8x8x8", textin.Clip(spec))
	}
	// The kind first: the sizes of another kind ("fattree:4,4:8") are not a grid's,
	// and a message about them would hide that the kind is the problem.
	switch kind {
	case "mesh", "torus":
	case "fattree", "dragonfly":
		return nil, fmt.Errorf("machine spec %q: a %s is a switched network without node coordinates; this needs a grid (mesh or torus)", textin.Clip(spec), textin.Clip(kind))
	default:
		return nil, fmt.Errorf("machine spec %q: unknown kind %q (want mesh or torus)%s", textin.Clip(spec), textin.Clip(kind), textin.DidYouMean(kind, []string{"mesh", "torus"}))
	}
	sizes, opts, _ := strings.Cut(rest, ":")
	dims, err := parseSizes(sizes, "x")
	if err != nil {
		return nil, fmt.Errorf("machine spec %q: %w", textin.Clip(spec), err)
	}
	wrap := make([]bool, len(dims))
	if kind == "torus" {
		for j := range wrap {
			wrap[j] = true
		}
	}
	if key, val, _ := strings.Cut(opts, "="); key == "io" {
		g, err := newGridSpec(spec, dims, wrap)
		if err != nil {
			return nil, err
		}
		if g, err = parseIOOption(g, val); err != nil {
			return nil, fmt.Errorf("machine spec %q: %w", textin.Clip(spec), err)
		}
		return g, nil
	}
	if opts != "" {
		key, val, ok := strings.Cut(opts, "=")
		if !ok || key != "wrap" {
			return nil, fmt.Errorf("machine spec %q: unknown option %q (want wrap=LETTERS or io=SIDE)%s", textin.Clip(spec), textin.Clip(opts), textin.DidYouMean(key, []string{"wrap", "io"}))
		}
		if val == "" {
			return nil, fmt.Errorf("machine spec %q: wrap= names no dimension (want letters among %q, e.g. wrap=yz)", textin.Clip(spec), axisLetters[:min(len(dims), len(axisLetters))])
		}
		for _, r := range val {
			j := strings.IndexRune(axisLetters, r)
			if j < 0 || j >= len(dims) {
				return nil, fmt.Errorf("machine spec %q: wrap=%s: %q is not a dimension of a %d-dimensional grid", textin.Clip(spec), textin.Clip(val), r, len(dims))
			}
			if wrap[j] {
				return nil, fmt.Errorf("machine spec %q: wrap=%s names %q twice", textin.Clip(spec), textin.Clip(val), r)
			}
			wrap[j] = true
		}
	}
	return newGridSpec(spec, dims, wrap)
}

func newGridSpec(spec string, dims []int, wrap []bool) (*Grid, error) {
	g, err := NewGrid(dims, wrap)
	if err != nil {
		return nil, fmt.Errorf("machine spec %q: %w", textin.Clip(spec), err)
	}
	return g, nil
}

func parseSizes(s, sep string) ([]int, error) {
	if s == "" {
		return nil, fmt.Errorf("no sizes")
	}
	parts := strings.Split(s, sep)
	dims := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			if sep == "x" && strings.ContainsAny(p, "X*,×") {
				// mesh:16X16, mesh:16*16: the separator is a lowercase x.
				return nil, fmt.Errorf("size %q is not a positive integer (sizes are separated by a lowercase x, e.g. 16x16)", textin.Clip(p))
			}
			return nil, fmt.Errorf("size %q is not a positive integer", textin.Clip(p))
		}
		dims[i] = v
	}
	return dims, nil
}
