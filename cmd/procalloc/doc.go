// Command procalloc generates node orderings, solves k-point subset problems, and
// replays workload traces to compare processor allocators. Run "procalloc help" for
// the list of commands and "procalloc help COMMAND" for one command's flags.
//
// The command follows no paper of its own: each package it calls names the paper it
// follows in its doc comment (README.md, "Packages").
package main
