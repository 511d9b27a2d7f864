package plan

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/slurm"
)

// IncludedName is the name, relative to a deployment's directory, under which
// plan writes an included file of slurm.conf that the deployment changes: the
// name of its Include line when that is relative (to slurm.conf's directory,
// where Slurm reads it) and stays inside the directory ("nodes.conf",
// "conf.d/nodes.conf"), else the file's base name (an absolute name, or one with
// ".."); when that name is taken (by another included file, a file of plan's
// own such as slurm.conf or apply.txt, or the directory of a deployment), the
// file's path under "included/" ("included/etc/site/nodes.conf"). apply.txt
// copies it to where slurmctld reads it (IncludedDest). "" for a file not of
// the plan's slurm.conf.
func (p *Plan) IncludedName(f slurm.IncludedFile) string { return p.includedAs[f.Path] }

// includedName is IncludedName's first choice.
func includedName(f slurm.IncludedFile) string {
	n := filepath.ToSlash(f.Name)
	if !filepath.IsAbs(f.Name) {
		n = path.Clean(n)
		if n != ".." && !strings.HasPrefix(n, "../") {
			return n
		}
	}
	return path.Base(filepath.ToSlash(f.Path))
}

// IncludedDest is where slurmctld reads an included file, as apply.txt names it:
// an absolute Include name as it is, a relative one in the directory of
// apply.txt's slurm.conf (/etc/slurm).
func IncludedDest(f slurm.IncludedFile) string {
	if filepath.IsAbs(f.Name) {
		return filepath.ToSlash(f.Name)
	}
	return path.Join("/etc/slurm", filepath.ToSlash(f.Name))
}

// planNames are the files plan writes in a deployment's directory (and the
// top directory): an included file is not written under one of these names.
var planNames = []string{"slurm.conf", "topology.conf", "topology.yaml", "apply.txt", "ordering.pairs", "ordering.hosts", "report.json", "report.html", "predictions"}

// includedNames names the site's included files (IncludedName), by path; an
// error when even the fallback name is taken.
func includedNames(files []slurm.IncludedFile) (map[string]string, error) {
	taken := map[string]string{}
	for _, n := range planNames {
		taken[n] = "a file of plan's own"
	}
	for _, k := range kinds {
		taken[string(k)] = fmt.Sprintf("the directory of --deployment %s", k)
	}
	taken["included"] = "the directory of included files whose names are taken"
	free := func(n string) bool {
		top, _, _ := strings.Cut(n, "/")
		_, a := taken[n]
		_, b := taken[top]
		return !a && !b
	}
	out := map[string]string{}
	for _, f := range files {
		if _, done := out[f.Path]; done {
			continue
		}
		n := includedName(f)
		if !free(n) {
			n = path.Join("included", strings.TrimPrefix(filepath.ToSlash(f.Path), "/"))
			if _, dup := taken[n]; dup {
				return nil, fmt.Errorf("the included file %s would be written as %s, the name of %s: rename it (and its Include line)", f.Path, n, taken[n])
			}
		}
		taken[n] = "the included file " + f.Path
		out[f.Path] = n
	}
	return out, nil
}

// changedIncludedFiles are the files a deployment writes in dir besides slurm.conf: the
// included files it changes, under IncludedName.
func (p *Plan) changedIncludedFiles(d *Deployment, dir string) []File {
	var out []File
	for _, f := range d.Included {
		if f.Changed {
			out = append(out, File{Name: dir + p.IncludedName(f), Data: f.Data})
		}
	}
	return out
}

// unchangedIncluded lists the included files a deployment leaves as they are.
func unchangedIncluded(d *Deployment) []string {
	var out []string
	for _, f := range d.Included {
		if !f.Changed && !slices.Contains(out, f.Path) {
			out = append(out, f.Path)
		}
	}
	return out
}
