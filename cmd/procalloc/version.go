package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/procalloc/procalloc/internal/buildid"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the version",
		usage:   "version",
		example: "procalloc version\nprocalloc version --json",
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			asJSON := fs.Bool("json", false, "print JSON: {\"version\": ..., \"build\": ..., \"go\": ...}")
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
					return writeJSON(e.stdout, map[string]string{"version": v, "build": buildid.ID(), "go": goVersion})
				}
				// The build is what sweep's results lines name (buildid.ID).
				_, err := fmt.Fprintf(e.stdout, "procalloc %s (build %s)\n", v, buildid.ID())
				return err
			}
		},
	})
}
