// Package shared finds the project's shared data (real traces, QAPLIB instances,
// papers) that is kept outside the repository, in a directory "shared" beside it
// (/work/shared for /work/main): the tests and benchmarks that need it find it here
// from the main tree and from any worktree, and when it is absent their skip message
// says what is missing and every place looked in, so no test is skipped silently.
//
// It follows no paper: it is test support.
package shared
