package apidoc

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/shared"
)

// moduleRoot is the module's root (shared.ModuleRoot), the test's failure without one.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := shared.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// parseModule parses every non-test .go file under root, skipping testdata,
// vendor and hidden directories, and groups the files of packages other than main
// by directory.
func parseModule(t *testing.T, fset *token.FileSet, root string) map[string][]*ast.File {
	t.Helper()
	pkgs := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkgs[filepath.ToSlash(rel)] = append(pkgs[filepath.ToSlash(rel)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// hasText reports whether any of the comment groups holds non-blank text.
func hasText(groups ...*ast.CommentGroup) bool {
	for _, g := range groups {
		if g != nil && strings.TrimSpace(g.Text()) != "" {
			return true
		}
	}
	return false
}

// receiverType is the name of a method's receiver type, without pointer or type
// parameters.
func receiverType(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// undocumented lists, as "pkg.Name (file:line)", each exported name of one
// package's files that go doc shows without a comment; the rules are in doc.go.
func undocumented(fset *token.FileSet, pkg string, files []*ast.File) []string {
	var missing []string
	report := func(pos token.Pos, name, kind string) {
		p := fset.Position(pos)
		missing = append(missing, fmt.Sprintf("%s.%s (%s, %s:%d)", pkg, name, kind, filepath.Base(p.Filename), p.Line))
	}
	var fields func(prefix string, st *ast.StructType)
	fields = func(prefix string, st *ast.StructType) {
		for _, f := range st.Fields.List {
			var exported []string
			if len(f.Names) == 0 { // embedded: the field's name is its type's
				if name := receiverType(f.Type); ast.IsExported(name) {
					exported = append(exported, name)
				}
			}
			for _, n := range f.Names {
				if n.IsExported() {
					exported = append(exported, n.Name)
				}
			}
			if len(exported) == 0 {
				continue
			}
			if !hasText(f.Doc, f.Comment) {
				report(f.Pos(), prefix+"."+strings.Join(exported, ","), "field")
			}
			if inner, ok := f.Type.(*ast.StructType); ok {
				fields(prefix+"."+exported[0], inner)
			}
		}
	}
	for _, file := range files {
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverType(d.Recv.List[0].Type)
					if !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				if !hasText(d.Doc) {
					kind := "func"
					if d.Recv != nil {
						kind = "method"
					}
					report(d.Pos(), name, kind)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if !hasText(s.Doc, s.Comment, d.Doc) {
							report(s.Pos(), s.Name.Name, "type")
						}
						switch t := s.Type.(type) {
						case *ast.StructType:
							fields(s.Name.Name, t)
						case *ast.InterfaceType:
							for _, m := range t.Methods.List {
								for _, n := range m.Names {
									if n.IsExported() && !hasText(m.Doc, m.Comment) {
										report(m.Pos(), s.Name.Name+"."+n.Name, "interface method")
									}
								}
							}
						}
					case *ast.ValueSpec:
						var exported []string
						for _, n := range s.Names {
							if n.IsExported() {
								exported = append(exported, n.Name)
							}
						}
						if len(exported) == 0 {
							continue
						}
						// A single unparenthesized spec's comment is d.Doc, as is a
						// group's: either way go doc prints it above the name.
						if !hasText(s.Doc, s.Comment, d.Doc) {
							report(s.Pos(), strings.Join(exported, ","), d.Tok.String())
						}
					}
				}
			}
		}
	}
	return missing
}

// TestExportedNamesDocumented is the module-wide check: each name it lists needs a
// doc comment saying what it is (units, zero value, the paper it comes from).
func TestExportedNamesDocumented(t *testing.T) {
	fset := token.NewFileSet()
	pkgs := parseModule(t, fset, moduleRoot(t))
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages under the module root; the walk is broken", len(pkgs))
	}
	var missing []string
	for _, dir := range slices.Sorted(func(yield func(string) bool) {
		for k := range pkgs {
			if !yield(k) {
				return
			}
		}
	}) {
		missing = append(missing, undocumented(fset, dir, pkgs[dir])...)
	}
	if len(missing) > 0 {
		t.Errorf("%d exported names without a doc comment:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

// TestUndocumentedFindsEachKind runs the checker on a source holding one
// undocumented name of each kind it checks, and as many documented or unexported
// ones it must let pass.
func TestUndocumentedFindsEachKind(t *testing.T) {
	const src = `package p

func F() {}

// G is documented.
func G() {}

func unexported() {}

type T struct {
	A int
	B, C int
	D int // D has a line comment.
	// E has a comment above.
	E int
	T2
	Nested struct {
		X int
		Y int // documented
	}
	private int
}

// T2 is documented.
type T2 struct{}

func (T) M()  {}
func (*T) N() {}

// O is documented.
func (T) O() {}

func (t2) M() {}

type t2 struct{ Hidden int }

type I interface {
	Do()
	Done() bool // documented
	// Undo is documented.
	Undo()
}

const K = 1

// L is documented.
const L = 2

const (
	M1 = iota
	M2 // documented
)

// Group is documented, and so each of its members is.
const (
	N1 = iota
	N2
)

var V, W int

type (
	// U1 is documented.
	U1 int
	U2 int
)

// Types' group comment, given to each.
type (
	W1 int
	W2 int
)

type G2[E any] struct{ Val E }

func (g *G2[E]) Get() E { return g.Val }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range undocumented(fset, "p", []*ast.File{f}) {
		got = append(got, m[:strings.Index(m, " (")])
	}
	want := []string{"p.F", "p.T", "p.T.A", "p.T.B,C", "p.T.T2", "p.T.Nested", "p.T.Nested.X",
		"p.T.M", "p.T.N", "p.I", "p.I.Do", "p.K", "p.M1", "p.V,W", "p.U2",
		"p.G2", "p.G2.Val", "p.G2.Get"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("undocumented names:\n got %q\nwant %q", got, want)
	}
}
