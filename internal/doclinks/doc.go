// Package doclinks holds no code, only a test: TestDocLinksResolve reads README.md and
// docs/*.md and every Go source of the module, and fails listing each link that leads
// nowhere:
//   - every relative markdown link `[text](path)` or `[text](path#anchor)` of README.md
//     and docs/*.md (outside code fences and inline code): the file must exist, and
//     when it is a markdown file and an anchor is given, one of its headings must have
//     that anchor (`#anchor` alone: the page itself);
//   - every `docs/NAME.md#anchor` named in a Go source (doc comments, help text, test
//     messages): the page and the heading must exist; and every `docs/NAME.md` named
//     there: the page must exist;
//   - every section named by its title, `docs/NAME.md, "Title"` in a Go source or
//     (`docs/` optional) in README.md and docs/*.md: the page must have a heading
//     containing the title, or a paragraph or list item starting with it (a run-in
//     heading such as "**Decisions remembered**"), compared without backticks and
//     case. A page outside the module (reference-simulators.md) is not checked.
//
// Anchors are GitHub's: the heading's text (inline code, links and emphasis reduced
// to their text) in lower case, every character that is not a letter, a digit, a
// space, '-' or '_' dropped, spaces made '-'; a second heading with the same anchor
// gets "-1", a third "-2", and so on.
//
// It follows no paper.
package doclinks
