// Package apidoc holds no code, only a test: TestExportedNamesDocumented parses every
// non-test Go file of the module outside package main (go/parser, whatever its build
// tags) and fails listing each exported name that `go doc` would show without a doc
// comment of its own: package-level functions, types, constants and variables,
// methods of exported types, exported fields of exported struct types (nested
// anonymous structs included) and methods of exported interfaces.
//
// What counts as documented:
//   - a function, method or type: a comment directly above it; for a type in a
//     parenthesized `type ( ... )` group, the group's comment counts when the type
//     has none, because go/doc gives it to each type of the group.
//   - a struct field or interface method: a comment above it or at the end of its
//     line (go doc prints both); one comment covers all names of a line `X, Y int`.
//     An embedded field is a field like any other: it must say why it is there.
//   - a constant or variable: a comment above it or at the end of its line, or the
//     comment of its parenthesized group. `go doc pkg.Name` prints the whole group
//     under the group's comment, so the reader of any member sees that comment; a
//     member of a group without a comment needs its own.
//
// It follows no paper.
package apidoc
