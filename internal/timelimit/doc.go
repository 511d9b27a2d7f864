// Package timelimit is the cause a context ends with when a time limit passes
// (context.WithTimeoutCause), so the error a solver returns through
// context.Cause says in the user's words which limit stopped it ("--time-limit 60s
// reached") and no caller has to reword "context deadline exceeded". The cause is
// still context.DeadlineExceeded to errors.Is, so code that tells a time limit from
// an interrupt keeps working.
//
// Looker is the other half of stopping in time: the one rule by which long loops
// over names, lines or switches (the hostlist expander and compressor, slurm's
// configuration and topology readers and writers) look at their context, once every
// LookEvery units of work, so that Ctrl-C or a limit stops them within
// milliseconds.
//
// It follows no paper.
package timelimit
