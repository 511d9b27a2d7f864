// Package timelimit is the cause a context ends with when a time limit passes
// (context.WithTimeoutCause), so the error a solver returns through
// context.Cause says in the user's words which limit stopped it ("--time-limit 60s
// reached") and no caller has to reword "context deadline exceeded". The cause is
// still context.DeadlineExceeded to errors.Is, so code that tells a time limit from
// an interrupt keeps working.
//
// It follows no paper.
package timelimit
