package doclinks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/shared"
	"unicode"
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

var (
	fenceRe      = regexp.MustCompile("^\\s*(```|~~~)")
	headingRe    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	inlineCodeRe = regexp.MustCompile("`+[^`]*`+")
	// a markdown link or image: [text](target) or [text](target "title")
	linkRe     = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	goDocRefRe = regexp.MustCompile(`docs/([A-Za-z0-9_.-]+\.md)(#[A-Za-z0-9_%-]+)?`)
	// a section named by its title: docs/sim.md, "Tie statistics left out" (in a
	// markdown page of docs/ the docs/ may be left out)
	goNameRefRe = regexp.MustCompile(`docs/([A-Za-z0-9_.-]+\.md), "([^"\n]+)"`)
	mdNameRefRe = regexp.MustCompile(`(?:docs/)?([A-Za-z0-9_.-]+\.md), "([^"\n]+)"`)
)

// slug is GitHub's anchor for a heading's text (before numbering duplicates).
func slug(heading string) string {
	s := mdLinkText.ReplaceAllString(heading, "$1")
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lines yields a markdown file's lines outside code fences, with their numbers.
func proseLines(text string) (nums []int, out []string) {
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fenceRe.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		nums = append(nums, i+1)
		out = append(out, line)
	}
	return nums, out
}

// anchors lists the GitHub anchors of a markdown text's headings.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	_, lines := proseLines(text)
	for _, line := range lines {
		m := headingRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := slug(m[2])
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// namesSection reports whether the markdown text has a section that title names: a
// heading containing it, or a paragraph or list item starting with it (plain or
// bold, a run-in heading), compared without backticks and case, trailing punctuation
// of the title left out.
func namesSection(text, title string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "`", "")) }
	t := strings.TrimRight(norm(title), ".,;: ")
	if t == "" {
		return false
	}
	_, lines := proseLines(text)
	for _, line := range lines {
		l := norm(line)
		if m := headingRe.FindStringSubmatch(l); m != nil {
			if strings.Contains(m[2], t) {
				return true
			}
			continue
		}
		l = strings.TrimLeft(strings.TrimSpace(l), "-* ")
		if strings.HasPrefix(l, t) {
			return true
		}
	}
	return false
}

// checker resolves links against the files of the module, caching each page's anchors.
type checker struct {
	root  string
	pages map[string]map[string]bool
}

// check returns why target (a path relative to the module root, possibly with
// #anchor) leads nowhere, or "".
func (c *checker) check(path, anchor string) string {
	full := filepath.Join(c.root, path)
	st, err := os.Stat(full)
	if err != nil {
		return "no such file " + path
	}
	if anchor == "" || st.IsDir() || !strings.HasSuffix(path, ".md") {
		return ""
	}
	as, ok := c.pages[path]
	if !ok {
		b, err := os.ReadFile(full)
		if err != nil {
			return err.Error()
		}
		as = anchors(string(b))
		c.pages[path] = as
	}
	if !as[anchor] {
		return fmt.Sprintf("%s has no heading with anchor #%s", path, anchor)
	}
	return ""
}

// name returns why the section title of page (a path relative to the root) cannot
// be found, or "" (also when the page is not in the module: the reference is to
// another tree).
func (c *checker) name(page, title string) string {
	b, err := os.ReadFile(filepath.Join(c.root, page))
	if err != nil {
		return ""
	}
	if !namesSection(string(b), title) {
		return fmt.Sprintf("%s has no section %q", page, title)
	}
	return ""
}

// markdownLinks lists the broken relative links of one markdown file (path relative
// to the root), each as "file:line: target: why".
func (c *checker) markdownLinks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.root, path))
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	// Blank the fenced lines and the code spans (which may run over a line end),
	// keeping the line numbers.
	all := strings.Split(string(b), "\n")
	nums, prose := proseLines(string(b))
	kept := make([]string, len(all))
	for i, n := range nums {
		kept[n-1] = prose[i]
	}
	text := inlineCodeRe.ReplaceAllStringFunc(strings.Join(kept, "\n"), func(span string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, span)
	})
	for i, line := range strings.Split(text, "\n") {
		for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			var resolved string
			if file == "" {
				resolved = path
			} else {
				resolved = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(path), file)))
			}
			if why := c.check(resolved, anchor); why != "" {
				bad = append(bad, fmt.Sprintf("%s:%d: %s: %s", path, i+1, target, why))
			}
		}
		for _, m := range mdNameRefRe.FindAllStringSubmatch(line, -1) {
			if why := c.name("docs/"+m[1], m[2]); why != "" {
				bad = append(bad, fmt.Sprintf("%s:%d: %s: %s", path, i+1, m[0], why))
			}
		}
	}
	return bad
}

// goRefs lists the broken docs/NAME.md[#anchor] references of the module's Go files.
func (c *checker) goRefs(t *testing.T) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			// This package's own sources name example pages.
			if p != c.root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || p == filepath.Join(c.root, "internal", "doclinks")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.root, p)
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range goDocRefRe.FindAllStringSubmatch(line, -1) {
				if why := c.check("docs/"+m[1], strings.TrimPrefix(m[2], "#")); why != "" {
					bad = append(bad, fmt.Sprintf("%s:%d: %s: %s", filepath.ToSlash(rel), i+1, m[0], why))
				}
			}
			for _, m := range goNameRefRe.FindAllStringSubmatch(line, -1) {
				if why := c.name("docs/"+m[1], m[2]); why != "" {
					bad = append(bad, fmt.Sprintf("%s:%d: %s: %s", filepath.ToSlash(rel), i+1, m[0], why))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// brokenLinks checks README.md, docs/*.md and the Go sources under root.
func brokenLinks(t *testing.T, root string) []string {
	t.Helper()
	c := &checker{root: root, pages: map[string]map[string]bool{}}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator))))
	}
	sort.Strings(files[1:])
	var bad []string
	for _, f := range files {
		bad = append(bad, c.markdownLinks(t, f)...)
	}
	return append(bad, c.goRefs(t)...)
}

func TestDocLinksResolve(t *testing.T) {
	root := moduleRoot(t)
	bad := brokenLinks(t, root)
	for _, b := range bad {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Errorf("%d links lead nowhere", len(bad))
	}
}

// TestSlugIsGitHubs checks the anchor rule on headings of this module whose GitHub
// anchors were read off github.com's rendering rules (and on duplicates).
func TestSlugIsGitHubs(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Speed against PReMAS (whole processes)", "speed-against-premas-whole-processes"},
		{"`mc1x1-greedy` after issue 32 item 1: the collector on every grid and fragmented free sets",
			"mc1x1-greedy-after-issue-32-item-1-the-collector-on-every-grid-and-fragmented-free-sets"},
		{"Johnson's tie-breaking (`mc1x1:tb`) and MC1x1 on 2D meshes: the second to fifth rounds",
			"johnsons-tie-breaking-mc1x1tb-and-mc1x1-on-2d-meshes-the-second-to-fifth-rounds"},
		{"Tenth round (wt-gtorus, 2026-12-05 18:15-20:15): an empty torus settled by orbits",
			"tenth-round-wt-gtorus-2026-12-05-1815-2015-an-empty-torus-settled-by-orbits"},
		{"Free/busy state (`alloc.State`)", "freebusy-state-allocstate"},
		{"A [linked](x.md) *word* and snake_case", "a-linked-word-and-snake_case"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
	as := anchors("# A\n\n## A\n\n```\n# not a heading\n```\n### A\n")
	for _, want := range []string{"a", "a-1", "a-2"} {
		if !as[want] {
			t.Errorf("anchors: %q missing from %v", want, as)
		}
	}
	if as["not-a-heading"] {
		t.Error("a line in a code fence was taken for a heading")
	}
}

// TestBrokenLinkIsFound plants broken links in a copy of a small tree and checks that
// each one is reported, and the good ones are not.
func TestBrokenLinkIsFound(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("README.md", "# X\n\n[ok](docs/a.md#the-part) [bad anchor](docs/a.md#no-part) [bad file](docs/gone.md)\n`[code](nowhere.md)`\n"+
		"docs/a.md, \"The part\" and docs/a.md, \"Run-in\" and docs/a.md, \"Gone part\"\n")
	write("docs/a.md", "# A\n\n## The part\n\n[self](#the-part) [self bad](#nope) [up](../README.md#x)\n```\n[fenced](nowhere.md)\n```\n"+
		"**Run-in title.** Text.\n")
	write("pkg/p.go", "// See docs/a.md#the-part and docs/a.md#missing and docs/b.md.\n// docs/a.md, \"the `part`\"; docs/a.md, \"Text\".\npackage p\n")
	bad := brokenLinks(t, root)
	want := []string{
		"README.md:3: docs/a.md#no-part: docs/a.md has no heading with anchor #no-part",
		"README.md:3: docs/gone.md: no such file docs/gone.md",
		`README.md:5: docs/a.md, "Gone part": docs/a.md has no section "Gone part"`,
		"docs/a.md:5: #nope: docs/a.md has no heading with anchor #nope",
		"pkg/p.go:1: docs/a.md#missing: docs/a.md has no heading with anchor #missing",
		"pkg/p.go:1: docs/b.md: no such file docs/b.md",
		`pkg/p.go:2: docs/a.md, "Text": docs/a.md has no section "Text"`,
	}
	if strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Errorf("broken links found:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
}
