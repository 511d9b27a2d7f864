package plan

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
)

// IncludedName is the name, relative to a deployment's directory, under which
// plan writes an included file of slurm.conf (or of topology.conf) that the
// deployment changes: the name of its Include line when that is relative (to
// slurm.conf's directory, where Slurm reads it) and stays inside the directory
// ("nodes.conf", "conf.d/nodes.conf"), else the file's base name (an absolute
// name, or one with ".."); when that name is taken (by another included file, a file of plan's
// own such as slurm.conf or apply.txt, or the directory of a deployment), the
// file's path under "included/" ("included/etc/site/nodes.conf"). apply.txt
// copies it to where slurmctld reads it (IncludedDest). "" for a file not of
// the plan's slurm.conf or topology.conf.
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

// IncludedDest is where slurmctld reads an included file (of slurm.conf or of
// topology.conf), as apply.txt names it: an absolute Include name as it is, a
// relative one in slurm.conf's directory (SlurmConfDir: Slurm joins it to the
// directory of the slurm.conf it reads, get_extra_conf_path); "" when that
// directory is not known.
func (p *Plan) IncludedDest(f slurm.IncludedFile) string {
	if filepath.IsAbs(f.Name) {
		return filepath.ToSlash(f.Name)
	}
	dir, _ := p.SlurmConfDir()
	if dir == "" {
		return ""
	}
	return path.Join(dir, filepath.ToSlash(f.Name))
}

// SlurmConfDir is the directory apply.txt installs slurm.conf in, with
// topology.conf and the included files of relative Include names, and source
// says where it comes from. Slurm's rule (src/common/read_config.c): slurmctld
// reads the slurm.conf of its -f option, else of $SLURM_CONF, else its built-in
// default_slurm_config_file, "$(sysconfdir)/slurm.conf" of its build (Debian's
// packages /etc/slurm, older ones /etc/slurm-llnl; a build from source
// /usr/local/etc, or PREFIX/etc); get_extra_conf_path reads topology.conf and a
// relative Include name in that file's directory; a configless cluster's
// daemons get the files from slurmctld, which reads them there too. procalloc
// cannot see which file slurmctld reads: the directory is Options.SlurmConfDir
// when given (--slurm-conf-dir), else the directory of Options.SlurmConfPath
// when that is absolute (the file given is the one slurmctld reads), else ""
// (standard input, or a relative name: perhaps a copy), and apply.txt says so
// and names the flag instead of guessing.
func (p *Plan) SlurmConfDir() (dir, source string) {
	switch c := p.opt.SlurmConfPath; {
	case p.opt.SlurmConfDir != "":
		return path.Clean(filepath.ToSlash(p.opt.SlurmConfDir)), "given by --slurm-conf-dir"
	case c == "-":
		return "", "slurm.conf was read from standard input"
	case filepath.IsAbs(c):
		return path.Dir(filepath.ToSlash(c)), "the directory of --slurm-conf " + c
	default:
		return "", fmt.Sprintf("--slurm-conf %s is a relative name (a copy?)", c)
	}
}

// confDirArg is SlurmConfDir as apply.txt's commands write it: the directory,
// shell-quoted when it needs it, or when it is not known "${SLURM_CONF_DIR:?}",
// which the shell refuses until it is set.
func (p *Plan) confDirArg() string {
	dir, _ := p.SlurmConfDir()
	if dir == "" {
		return `"${SLURM_CONF_DIR:?}"`
	}
	return textin.ShellWord(dir)
}

// destArg is where apply.txt installs an included file: IncludedDest, or under
// confDirArg when slurm.conf's directory is not known.
func (p *Plan) destArg(f slurm.IncludedFile) string {
	if d := p.IncludedDest(f); d != "" {
		return textin.ShellWord(d)
	}
	return p.confDirArg() + "/" + textin.ShellWord(path.Clean(filepath.ToSlash(f.Name)))
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

// changedIncludedFiles are the files a deployment writes in dir besides
// slurm.conf and topology.conf: the included files of either that it changes,
// under IncludedName.
func (p *Plan) changedIncludedFiles(d *Deployment, dir string) []File {
	var out []File
	for _, f := range d.allIncluded() {
		if f.Changed {
			out = append(out, File{Name: dir + p.IncludedName(f), Data: f.Data})
		}
	}
	return out
}

// allIncluded are the included files of a deployment's slurm.conf, then of its
// topology.conf.
func (d *Deployment) allIncluded() []slurm.IncludedFile {
	return slices.Concat(d.Included, d.TopologyIncluded)
}

// unchangedIncluded lists the included files a deployment leaves as they are.
func unchangedIncluded(d *Deployment) []string {
	var out []string
	for _, f := range d.allIncluded() {
		if !f.Changed && !slices.Contains(out, f.Path) {
			out = append(out, f.Path)
		}
	}
	return out
}
