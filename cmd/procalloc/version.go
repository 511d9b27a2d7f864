package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the version",
		usage:   "version",
		example: "procalloc version",
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				v := "(devel)"
				if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
					v = bi.Main.Version
				}
				_, err := fmt.Fprintf(e.stdout, "procalloc %s\n", v)
				return err
			}
		},
	})
}
