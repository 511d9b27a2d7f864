package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docCommandSpan matches an inline code span of markdown.
var docCommandSpan = regexp.MustCompile("`([^`\n]+)`")

// docsCommandLines returns the procalloc command lines of a markdown page: each
// line of its code blocks that starts with "procalloc " (continued lines joined,
// comments dropped), and each inline code span that does.
func docsCommandLines(text string) []string {
	var lines []string
	add := func(l string) {
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
		if strings.HasPrefix(l, "procalloc ") {
			lines = append(lines, l)
		}
	}
	inBlock := false
	var prose strings.Builder
	var block []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if inBlock {
				body := strings.ReplaceAll(strings.Join(block, "\n"), "\\\n", " ")
				for _, b := range strings.Split(body, "\n") {
					add(b)
				}
				block = block[:0]
			}
			inBlock = !inBlock
			continue
		}
		if inBlock {
			block = append(block, l)
			continue
		}
		prose.WriteString(l)
		prose.WriteString("\n")
	}
	// Inline spans may wrap a line: join the paragraph's lines first.
	flat := strings.ReplaceAll(prose.String(), "\n", " ")
	for _, m := range docCommandSpan.FindAllStringSubmatch(flat, -1) {
		add(m[1])
	}
	return lines
}

// TestDocsCommandsNameFlagsThatExist: every procalloc command line of docs/*.md
// and README.md (code blocks and inline code, where README's tour test reads only
// the sh blocks) names a command and flags that exist. A flag renamed or removed
// left its old name in the pages, where no test read it. Lines with a placeholder
// value (--rate R) or a flag written without its value in prose are parsed too;
// only an unknown command or flag is a problem here.
func TestDocsCommandsNameFlagsThatExist(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) < 5 {
		t.Fatalf("docs pages: %v %v", pages, err)
	}
	pages = append(pages, "../../README.md")
	checked := 0
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range docsCommandLines(string(data)) {
			if f := strings.Fields(l); strings.HasSuffix(f[0], ":") || strings.HasSuffix(f[1], ":") || strings.Contains(l, "...") {
				continue // a message quoted ("procalloc sim: ..."), or an abridged line
			}
			n, problems := exampleFlagProblems(l)
			checked += n
			for _, pr := range problems {
				if strings.Contains(pr, "provided but not defined") || strings.Contains(pr, "unknown command") {
					t.Errorf("%s: %s", filepath.Base(p), pr)
				}
			}
		}
	}
	if checked < 200 {
		t.Errorf("%d procalloc command lines in the pages: the reading of the pages is broken", checked)
	}
	t.Logf("%d procalloc command lines of docs/*.md and README.md checked", checked)
}
