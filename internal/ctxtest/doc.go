// Package ctxtest has contexts for the tests of code that polls ctx.Err to stop
// on Ctrl-C or a time limit: one that ends after a given number of looks (a
// deterministic interrupt in the middle of a computation, where a timer would
// depend on the machine's speed) and one that counts the looks. Both are safe for
// concurrent use; their Done channel is the parent's (only Err changes).
//
// It follows no paper: it is test support.
package ctxtest
