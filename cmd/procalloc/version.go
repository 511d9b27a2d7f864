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
		example: "procalloc version\nprocalloc version --json",
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			asJSON := fs.Bool("json", false, "print JSON: {\"version\": ..., \"go\": ...}")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				v, goVersion := "(devel)", ""
				if bi, ok := debug.ReadBuildInfo(); ok {
					if bi.Main.Version != "" {
						v = bi.Main.Version
					}
					goVersion = bi.GoVersion
				}
				if *asJSON {
					return writeJSON(e.stdout, map[string]string{"version": v, "go": goVersion})
				}
				_, err := fmt.Fprintf(e.stdout, "procalloc %s\n", v)
				return err
			}
		},
	})
}
