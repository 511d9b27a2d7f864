package geom

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/procalloc/procalloc/internal/textin"
)

// ReadPoints reads a points file: one point per line, whitespace-separated coordinates,
// every data line of the same dimension; '#' starts a comment (to the end of the line)
// and blank lines are skipped. Duplicate points are allowed. Point i of the result is
// the i-th data line. Errors name the line: a token that is not a number, NaN or an
// infinite coordinate, a dimension different from the first data line's, or no points.
// A gzip or bzip2 file is decompressed as it is read (textin.Decompress).
func ReadPoints(r io.Reader) ([]PointF, error) {
	lines := textin.NewLines(textin.Decompress(r))
	var pts []PointF
	dim := 0
	for lines.Next() {
		line, fields := lines.Line(), lines.Fields()
		p := make(PointF, len(fields))
		for j, f := range fields {
			v, err := strconv.ParseFloat(f, 64)
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("line %d: coordinate %d: %q is out of the range of float64", line, j+1, textin.Clip(f))
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: coordinate %d: %q is not a number", line, j+1, textin.Clip(f))
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("line %d: coordinate %d: %q is not finite", line, j+1, textin.Clip(f))
			}
			if math.Abs(v) >= 1<<53 {
				// From 2^53 on float64 cannot tell neighbouring integers apart
				// (2^53+1 reads as 2^53), so distinct points would silently become
				// equal or move.
				return nil, fmt.Errorf("line %d: coordinate %d: %q is 2^53 or beyond, where coordinates lose precision; shift or rescale the points", line, j+1, textin.Clip(f))
			}
			p[j] = v
		}
		if dim == 0 {
			dim = len(p)
		} else if len(p) != dim {
			return nil, fmt.Errorf("line %d: %s, but earlier points have %d", line, textin.CountNoun(len(p), "coordinate"), dim)
		}
		pts = append(pts, p)
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("no points in input")
	}
	return pts, nil
}

// WritePoints writes points in the format ReadPoints reads, and refuses, before
// writing anything, what ReadPoints would refuse: no points, points of no or of mixed
// dimensions (CheckDims), and coordinates that are not finite or are 2^53 or beyond
// in magnitude (the error names the point and the coordinate, 0-based).
func WritePoints[P ~[]T, T Number](w io.Writer, pts []P) error {
	if err := CheckDims(pts); err != nil {
		return err
	}
	for i, p := range pts {
		for j, v := range p {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1<<53 {
				return fmt.Errorf("geom: point %d coordinate %d is %v: not finite or 2^53 or beyond, which ReadPoints refuses", i, j, v)
			}
		}
	}
	bw := bufio.NewWriter(w)
	for _, p := range pts {
		for j, v := range p {
			if j > 0 {
				bw.WriteByte(' ')
			}
			bw.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
