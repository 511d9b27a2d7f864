package exact_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/ptas"
)

// pointTakers is every exported function of geom, exact and ptas that takes a user's
// points, with a call on them; uncheckedPrimitives are geom's scoring primitives,
// whose precondition (one dimension) is documented as the caller's.
var pointTakers = map[string]func(ctx context.Context, ip []geom.Point) error{
	"geom.CheckDims":   func(_ context.Context, ip []geom.Point) error { return geom.CheckDims(ip) },
	"geom.WritePoints": func(_ context.Context, ip []geom.Point) error { return geom.WritePoints(io.Discard, ip) },
	"exact.Subset": func(ctx context.Context, ip []geom.Point) error {
		_, err := exact.Subset(ctx, ip, 1, exact.SubsetOptions{})
		return err
	},
	"exact.SubsetSeeded": func(ctx context.Context, ip []geom.Point) error {
		_, err := exact.SubsetSeeded(ctx, ip, 1, exact.SubsetOptions{})
		return err
	},
	"exact.Triple":  func(ctx context.Context, ip []geom.Point) error { _, err := exact.Triple(ctx, ip); return err },
	"exact.PlaneMM": func(ctx context.Context, ip []geom.Point) error { _, err := exact.PlaneMM(ctx, ip, 1); return err },
	"ptas.MM":       func(_ context.Context, ip []geom.Point) error { _, err := ptas.MM(ip, 1, ptas.Options{}); return err },
	"ptas.MMContext": func(ctx context.Context, ip []geom.Point) error {
		_, err := ptas.MMContext(ctx, ip, 1, ptas.Options{})
		return err
	},
	"ptas.GenAlg": func(_ context.Context, ip []geom.Point) error {
		_, err := ptas.GenAlg(ip, 1, ptas.Options{})
		return err
	},
	"ptas.GenAlgContext": func(ctx context.Context, ip []geom.Point) error {
		_, err := ptas.GenAlgContext(ctx, ip, 1, ptas.Options{})
		return err
	},
	"ptas.MC1x1": func(_ context.Context, ip []geom.Point) error {
		_, err := ptas.MC1x1(ip, 1, ptas.Options{})
		return err
	},
	"ptas.MC1x1Context": func(ctx context.Context, ip []geom.Point) error {
		_, err := ptas.MC1x1Context(ctx, ip, 1, ptas.Options{})
		return err
	},
	"ptas.MMInc": func(_ context.Context, ip []geom.Point) error {
		_, err := ptas.MMInc(ip, 1, ptas.Options{})
		return err
	},
	"ptas.MMIncContext": func(ctx context.Context, ip []geom.Point) error {
		_, err := ptas.MMIncContext(ctx, ip, 1, ptas.Options{})
		return err
	},
	"ptas.PTAS": func(ctx context.Context, ip []geom.Point) error {
		_, err := ptas.PTAS(ctx, geom.ToFloat(ip), 1, 0.5)
		return err
	},
	"ptas.PTASWithM": func(ctx context.Context, ip []geom.Point) error {
		_, err := ptas.PTASWithM(ctx, geom.ToFloat(ip), 1, 2)
		return err
	},
}

var uncheckedPrimitives = []string{"geom.PairwiseL1", "geom.PairwiseL1Subset", "geom.BoundingBox"}

// perCoordinate functions convert coordinate by coordinate: any dimensions, mixed
// or none, are kept as they are.
var perCoordinate = []string{"geom.ToInt", "geom.ToFloat", "geom.FirstNonInteger"}

// No points, points of no dimension, and a shorter or a longer point among others
// are an error, never a panic, from every function that takes a user's points.
func TestPointTakersRefuseBadDims(t *testing.T) {
	bad := map[string][]geom.Point{
		"nil":          nil,
		"none":         {},
		"no dimension": {{}, {}},
		"shorter":      {{0, 0}, {1}, {2, 2}},
		"longer":       {{0, 0}, {1, 1, 1}, {2, 2}},
		"longer first": {{0, 0, 0}, {1, 1}, {2, 2}},
	}
	for name, call := range pointTakers {
		for what, ip := range bad {
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				if call(context.Background(), ip) == nil {
					return fmt.Errorf("no error")
				}
				return nil
			}()
			if err != nil {
				t.Errorf("%s on %s points %v: %v", name, what, ip, err)
			}
		}
	}
}

// The table above is complete: every exported function of geom, exact and ptas with
// a parameter of points (a slice of a slice type) is in it or is a documented
// primitive. A new one must be added here (and check its input).
func TestPointTakersComplete(t *testing.T) {
	var found []string
	for _, pkg := range []string{"geom", "exact", "ptas"} {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !fn.Name.IsExported() {
					continue
				}
				if takesPoints(fn) {
					found = append(found, pkg+"."+fn.Name.Name)
				}
			}
		}
	}
	if len(found) < 10 {
		t.Fatalf("found only %v: the scan is broken", found)
	}
	for _, name := range found {
		if _, ok := pointTakers[name]; !ok && !slices.Contains(uncheckedPrimitives, name) && !slices.Contains(perCoordinate, name) {
			t.Errorf("%s takes points but is not in pointTakers (nor a documented primitive)", name)
		}
	}
	for name := range pointTakers {
		if !slices.Contains(found, name) {
			t.Errorf("pointTakers has %s, which the scan did not find", name)
		}
	}
}

// takesPoints reports a parameter of points: []P with P a type parameter constrained
// by ~[]T, or a slice of Point, PointF or []float64 / []int.
func takesPoints(fn *ast.FuncDecl) bool {
	sliceTypes := map[string]bool{}
	if fn.Type.TypeParams != nil {
		for _, f := range fn.Type.TypeParams.List {
			if u, ok := f.Type.(*ast.UnaryExpr); ok && u.Op == token.TILDE {
				if _, ok := u.X.(*ast.ArrayType); ok {
					for _, n := range f.Names {
						sliceTypes[n.Name] = true
					}
				}
			}
		}
	}
	for _, f := range fn.Type.Params.List {
		at, ok := f.Type.(*ast.ArrayType)
		if !ok || at.Len != nil {
			continue
		}
		switch e := at.Elt.(type) {
		case *ast.Ident:
			if sliceTypes[e.Name] || e.Name == "Point" || e.Name == "PointF" {
				return true
			}
		case *ast.SelectorExpr:
			if e.Sel.Name == "Point" || e.Sel.Name == "PointF" {
				return true
			}
		case *ast.ArrayType:
			return true
		}
	}
	return false
}
