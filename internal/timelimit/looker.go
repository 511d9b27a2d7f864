package timelimit

import "context"

// LookEvery is how many units of work (names, lines, switches, items) a Looker lets
// pass between looks at its context: 4,096 names are a few milliseconds, so
// Ctrl-C or a time limit stops a reader of 10^5 hosts within milliseconds, and
// ctx.Err()'s lock is not taken once per name.
const LookEvery = 1 << 12

// Looker looks at a context once every LookEvery units of work: the one rule of the
// hostlist expander and compressor and of slurm's configuration and topology
// readers and writers. Start Work at LookEvery to look at the first Stopped (a
// cancelled context is then seen before any work); a Looker of
// context.Background() never stops. Work may also be added directly, without a
// look, where many units are done at once. Not for concurrent use.
type Looker struct {
	Ctx  context.Context // the context looked at
	Work int             // units done since the last look
}

// NewLooker returns a Looker of ctx that looks at its first Stopped.
func NewLooker(ctx context.Context) *Looker { return &Looker{Ctx: ctx, Work: LookEvery} }

// Stopped adds work units done and, once LookEvery of them have passed since the
// last look, looks: it returns context.Cause(l.Ctx), unwrapped, when the context
// has ended, else nil.
func (l *Looker) Stopped(work int) error {
	if l.Work += work; l.Work < LookEvery {
		return nil
	}
	l.Work = 0
	if l.Ctx.Err() != nil {
		return context.Cause(l.Ctx)
	}
	return nil
}
