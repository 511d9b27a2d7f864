package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

func init() {
	register(&command{
		name:    "hostlist",
		summary: "expand or compress Slurm hostlist expressions (node[001-016,020]), as scontrol does",
		usage:   "hostlist expand EXPR...|- | hostlist compress [NAME...|-] (names on stdin when none or -)",
		details: `"hostlist expand" prints one host name per line for each expression, as
"scontrol show hostnames" does: node[001-003,010] gives node001 node002 node003 node010,
rack[0-1]_blade[7-8] the four combinations, the first bracket outermost (with three
brackets or more in Slurm's order: the last fastest, then the first, second, ...);
zero padding is kept, n[1-] is n1. Names are separated by commas or white space
outside brackets, and empty elements are skipped, as in Slurm ('a b' and 'n[1-2],,n3'
are lists). Reversed ranges, text after the last bracket, an expression with no name
and more than 4,194,304 names in all (over every expression given) are errors; so
are, unlike scontrol, an unmatched '[' (scontrol prints n[1-2 as n]), nested brackets
and numbers of 2^63 and more. "hostlist expand -" reads the expressions from
standard input, one line each.

"hostlist compress" prints the names given (as arguments, or, given none or -,
one per line or separated by commas or spaces on stdin) as one expression, keeping
their order, as "scontrol show hostlist" does: n1,n2,n3,n7 gives n[1-3,7]. Both are checked against
Slurm's scontrol on random sets, expand on 600 generated expressions, valid and not
(topo/hostlist tests).`,
		example: `procalloc hostlist expand 'node[001-016,020]'
procalloc hostlist compress node1 node2 node3 node7
scontrol show hostnames | procalloc hostlist compress
procalloc hostlist expand 'rack[1-2]_node[01-48]' --json -o nodes.json`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			asJSON := fs.Bool("json", false, "print JSON: a list of names (expand) or the expression (compress)")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return usagef("want expand or compress")
				}
				switch args[0] {
				case "expand":
					if len(args) < 2 {
						return usagef("hostlist expand needs at least one expression")
					}
					exprs, lines, err := hostArgs(ctx, e, args[1:], func(line string) []string {
						if line = strings.TrimSpace(line); line != "" {
							return []string{line}
						}
						return nil
					})
					if err != nil {
						return err
					}
					if len(exprs) == 0 {
						return fmt.Errorf("%s: no hostlist expression", inputName("-"))
					}
					names, err := hostlist.ExpandContext(ctx, exprs...)
					if err != nil && ctx.Err() != nil {
						return err // interrupted
					}
					if err != nil {
						// The line of the expression at fault: the first refused
						// alone, or the one the total passes MaxHosts on.
						total := 0
						return stdinErr(lines, exprs, err, func(expr string) bool {
							n, err := hostlist.Count(expr)
							total += n
							return err != nil || total > hostlist.MaxHosts
						})
					}
					return writeFileAtomic(e, *out, func(w io.Writer) error {
						if *asJSON {
							return writeJSON(w, names)
						}
						_, err := io.WriteString(w, strings.Join(names, "\n")+"\n")
						return err
					})
				case "compress":
					names := args[1:]
					if len(names) == 0 {
						names = []string{"-"} // names on stdin
					}
					names, lines, err := hostArgs(ctx, e, names, func(line string) []string {
						return strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
					})
					if err != nil {
						return err
					}
					if len(names) == 0 && len(args) == 1 {
						return usagef("hostlist compress needs host names (arguments or stdin)")
					}
					if len(names) == 0 {
						return fmt.Errorf("%s: no host names", inputName("-"))
					}
					expr, err := hostlist.CompressContext(ctx, names)
					if err != nil && ctx.Err() != nil {
						return err // interrupted
					}
					if err != nil {
						return stdinErr(lines, names, err, func(name string) bool {
							_, err := hostlist.Compress([]string{name})
							return err != nil
						})
					}
					return writeFileAtomic(e, *out, func(w io.Writer) error {
						if *asJSON {
							return writeJSON(w, map[string]string{"hostlist": expr})
						}
						_, err := io.WriteString(w, expr+"\n")
						return err
					})
				}
				return usagef("hostlist %q: want expand or compress%s", args[0], textin.DidYouMean(args[0], []string{"expand", "compress"}))
			}
		},
	})
}

// hostArgs is the hostlist command's arguments args, or, when they are "-" alone,
// the items split from the lines of standard input (none when it is empty), and
// then lines, the line of each item (non-nil; nil for arguments). Without this,
// "-" was taken as a host name and printed back.
func hostArgs(ctx context.Context, e *env, args []string, split func(line string) []string) (items []string, lines []int, err error) {
	if !slices.Contains(args, "-") {
		return args, nil, nil
	}
	if len(args) > 1 {
		return nil, nil, usagef("- (standard input) goes alone, not with other names or expressions %q", args)
	}
	const maxLine = 16 << 20
	sc := bufio.NewScanner(textin.Decompress(textin.ContextReader(ctx, e.stdin)))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	lines = []int{}
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			// As every other reader of text (textin.Lines): gzip and bzip2 are
			// read (textin.Decompress), UTF-16 and xz refused, a UTF-8 byte-order
			// mark skipped (it was part of the first host name, compressed to
			// "\ufeffn1,n[2-4]").
			if err := textin.CheckStart(text[:min(len(text), textin.StartLen)]); err != nil {
				return nil, lines, fmt.Errorf("%s: line 1: %w", inputName("-"), err)
			}
			text = strings.TrimPrefix(text, textin.BOM)
		}
		for _, it := range split(text) {
			items = append(items, it)
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, lines, context.Cause(ctx) // "procalloc hostlist: interrupted"
		}
		return nil, lines, fmt.Errorf("%s: %w", inputName("-"), textin.ScanErr(err, line+1, maxLine))
	}
	return items, lines, nil
}

// stdinErr is err, the error of items, naming standard input and the line of the
// first item at(item) reports as its cause (at is called on the items in order)
// when the items came from it (lines non-nil: hostArgs); an argument's error
// names the argument, which the user typed, and is a usage error (exit 2), as the
// same expression's is given to --hostlist. A line of stdin, maybe one of
// thousands, was named by its text alone.
func stdinErr(lines []int, items []string, err error, at func(item string) bool) error {
	if lines == nil {
		return usageError{err.Error()}
	}
	for i, it := range items {
		if at(it) {
			return fmt.Errorf("%s: line %d: %w", inputName("-"), lines[i], err)
		}
	}
	return fmt.Errorf("%s: %w", inputName("-"), err)
}
