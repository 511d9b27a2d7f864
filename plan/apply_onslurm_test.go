package plan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestApplyStepsOnSlurm runs apply.txt's steps, as written, for the weights, names
// and tree deployments of the sample fabric's plan (Slurm 22.05), weights and names
// of a 4x4 mesh's, and the tree of fattree:4,2:4's and of a 16-host dragonfly's (the
// synthetic machines named node01..node16), on a real 16-node Slurm on loopback
// started with the plans' input slurm.conf (the "current" configuration); with a
// Slurm built from source (PROCALLOC_SLURM_NEW, default /opt/slurm-new) also the
// sample's weights, tree (SwitchAsNodeRank) and block and fattree:4,2:4's block
// planned for 26.05, and the dragonfly's tree (each cluster on free ports:
// internal/slurmtest/ports):
// every command line of the steps is run as written (the plan is given the
// cluster's slurm.conf by its path, so apply.txt installs into the cluster's
// directory), with "systemctl restart slurmctld; then on every node:
// systemctl restart slurmd" standing for scripts/slurm-cluster.sh restart (which starts from
// an empty state directory, unlike a site's restart). Then the Check line must print
// what it says, the job recipe (a batch script's SLURM_HOSTFILE along the ordering)
// must put task r on the r-th of the job's hosts in ordering order, and 40 placements
// must equal the deployment's emulation. Between deployments the cluster goes back
// to the input slurm.conf. Skipped with -short, without root or Slurm.
func TestApplyStepsOnSlurm(t *testing.T) {
	slurmtest.NeedDaemons(t, "slurmctld", "slurmd", "scontrol", "salloc", "srun", "munged")
	// Free ports (internal/slurmtest/ports), the 26.05 cluster's apart from the 22.05's.
	port, err := ports.Base(17)
	if err != nil {
		t.Fatal(err)
	}
	newPort, err := ports.Base(17, port)
	if err != nil {
		t.Fatal(err)
	}
	slurms := []applySlurm{{version: "22.05", port: port, machines: []applyMachine{
		{"fattree.ibnetdiscover", []Kind{KindWeights, KindNames, KindTree}},
		{"mesh:4x4", []Kind{KindWeights, KindNames}}, // no switches: no tree deployment
		{"fattree:4,2:4", []Kind{KindTree}},
		{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=2", []Kind{KindTree}},
	}}}
	prefix := slurmtest.NewPrefix()
	if _, err := os.Stat(filepath.Join(prefix, "sbin", "slurmctld")); err == nil {
		// 26.05: the tree with SwitchAsNodeRank's NodeName order, topology/block.
		slurms = append(slurms, applySlurm{version: "26.05", prefix: prefix, port: newPort, machines: []applyMachine{
			{"fattree.ibnetdiscover", []Kind{KindWeights, KindTree, KindBlock}},
			{"fattree:4,2:4", []Kind{KindBlock}}, // (plan cuts blocks only on switched networks)
			// Virtual group switches: the leaf choice of 24.11 and later
			// (alloc.SlurmConfig.Tree2411) shows on it.
			{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=2", []Kind{KindTree}},
		}})
	} else {
		t.Logf("no Slurm built from source in %s: apply.txt of tree and block not run on 26.05", prefix)
	}
	for _, s := range slurms {
		t.Run(s.version, func(t *testing.T) {
			n, total, differ := applyOnSlurm(t, s)
			// The line `make test-slurm` prints.
			fmt.Printf("apply.txt: %d deployments' steps run on Slurm %s, %d placements predicted, %d differ, failed: %v\n", n, s.version, total, differ, t.Failed())
		})
	}
}

// applySlurm is a Slurm apply.txt is run on: its version, installation (a
// prefix, or Debian's when empty), port, and the plans' machines and deployments.
type applySlurm struct {
	version, prefix string
	port            int
	machines        []applyMachine
}

type applyMachine struct {
	spec  string
	kinds []Kind
}

// applyOnSlurm is TestApplyStepsOnSlurm on one Slurm: the deployments run, the
// placements compared and those that differ.
func applyOnSlurm(t *testing.T, s applySlurm) (i, total, differ int) {
	script := slurmtest.Script(t)
	var prefixArgs []string
	dir := filepath.Join(t.TempDir(), "apply")
	env := append(os.Environ(), "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))
	if s.prefix != "" {
		prefixArgs = []string{"--prefix", s.prefix}
		env = append(env, "PATH="+filepath.Join(s.prefix, "bin")+":"+os.Getenv("PATH"))
	}
	clusterScript := func(args ...string) ([]byte, error) {
		return exec.Command("bash", append(append([]string{script}, args...), prefixArgs...)...).CombinedOutput()
	}
	sh := func(cwd, cmdline string) (string, error) {
		cmd := exec.Command("bash", "-c", cmdline)
		cmd.Dir, cmd.Env = cwd, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(cwd, cmdline string) string {
		t.Helper()
		out, err := sh(cwd, cmdline)
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmdline, err, out)
		}
		return out
	}
	if out, err := clusterScript("conf", "--nodes", "16", "--dir", dir, "--port-base", strconv.Itoa(s.port)); err != nil {
		t.Fatalf("slurm-cluster.sh conf: %v\n%s", err, out)
	}
	base, err := os.ReadFile(filepath.Join(dir, "slurm.conf"))
	if err != nil {
		t.Fatal(err)
	}
	basePath := filepath.Join(t.TempDir(), "current.conf")
	os.WriteFile(basePath, base, 0o644)
	t.Cleanup(func() { clusterScript("stop", "--dir", dir) })
	if _, err := ports.RunScript(nil, script, append([]string{"start", "--dir", dir, "--conf", basePath}, prefixArgs...)...); errors.Is(err, ports.ErrNoSlurm) {
		t.Skip(err)
	} else if err != nil {
		t.Fatalf("starting the cluster: %v", err)
	}
	v, _ := ParseVersion(s.version)
	restart := "systemctl restart slurmctld; then on every node: systemctl restart slurmd"
	taskRE := regexp.MustCompile(`(?m)^(\d+) (\S+)$`)
	names := slurmtest.NodeNames(16)
	for _, mc := range s.machines {
		opt := Options{MachineSource: mc.spec, SlurmConf: base, SlurmConfPath: filepath.Join(dir, "slurm.conf"), Version: v, VersionSource: "test",
			TimeLimit: 10 * time.Second, Seed: 1, SyntheticJobs: 300}
		if mc.spec == "fattree.ibnetdiscover" {
			opt.Machine = fabrictest.SampleFabric(t, "../topo/testdata")
		} else {
			if opt.Machine, err = topo.ParseMachine(mc.spec); err != nil {
				t.Fatal(err)
			}
			opt.Hosts = names
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		p, err := Make(ctx, opt)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", mc.spec, err)
		}
		for _, kind := range mc.kinds {
			i++
			t.Run(strings.Split(mc.spec, ":")[0]+"/"+string(kind), func(t *testing.T) {
				d := p.Deployment(kind)
				if d == nil || !d.Supported {
					t.Fatalf("%s not supported: %+v", kind, d)
				}
				if i > 1 { // back to the current configuration
					os.Remove(filepath.Join(dir, "topology.conf"))
					if out, err := clusterScript("restart", "--dir", dir, "--conf", basePath); err != nil {
						t.Fatalf("back to the input slurm.conf: %v\n%s", err, out)
					}
				}
				logPath := filepath.Join(dir, "log", "slurmctld.log")
				logStart, _ := os.ReadFile(logPath)
				work := t.TempDir()
				for _, f := range p.deploymentFiles(d, "") {
					os.WriteFile(filepath.Join(work, f.Name), f.Data, 0o644)
				}
				var hosts strings.Builder
				for _, v := range p.Order {
					hosts.WriteString(p.Names[v] + "\n")
				}
				os.WriteFile(filepath.Join(work, "ordering.hosts"), []byte(hosts.String()), 0o644)
				apply := p.applyText(d)
				var recipe []string
				ran := 0
				for _, l := range strings.Split(apply, "\n") {
					if _, after, ok := strings.Cut(l, ". Check: "); ok {
						out := must(work, after)
						if kind == KindWeights && strings.TrimSpace(out) != "Weight=1" {
							t.Fatalf("%s printed %q, the step says Weight=1", after, out)
						}
						if kind == KindTree && !strings.Contains(out, "SwitchName=") || kind == KindBlock && !strings.Contains(out, "BlockName=") {
							t.Fatalf("%s printed no switch or block:\n%s", after, out)
						}
						t.Logf("%s: %s", after, firstLine(out))
						ran++
						continue
					}
					cmdline, ok := strings.CutPrefix(l, "       ")
					if !ok {
						continue
					}
					switch {
					case strings.Contains(cmdline, "SLURM_JOB"):
						recipe = append(recipe, cmdline)
					case cmdline == restart:
						if kind == KindTree && s.version == "22.05" {
							// Why a restart: a reconfigure reads the new TopologyPlugin
							// but builds no topology (Slurm 22.05).
							out, _ := sh(work, "scontrol reconfigure && sleep 1 && scontrol show topology 2>&1")
							if !strings.Contains(out, "No topology information available") {
								t.Fatalf("a reconfigure instead of the restart: scontrol show topology printed\n%s", out)
							}
							t.Logf("reconfigure instead of the restart: %s", firstLine(out))
						}
						if out, err := clusterScript("restart", "--dir", dir, "--conf", filepath.Join(dir, "slurm.conf")); err != nil {
							t.Fatalf("%s (slurm-cluster.sh restart): %v\n%s", cmdline, err, out)
						}
						ran++
					default:
						must(work, cmdline)
						if cmdline == "scontrol reconfigure" { // nodes answer again within a second or two
							for range 100 {
								if out, _ := sh(work, "sinfo -h -o %t | sort -u"); strings.TrimSpace(out) == "idle" {
									break
								}
								time.Sleep(100 * time.Millisecond)
							}
						}
						ran++
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "slurm.conf.before-procalloc")); err != nil {
					t.Fatalf("the backup step made no backup: %v", err)
				}
				// slurmctld's log since the steps: nothing but what a fresh state
				// directory logs and the weight changes the weights step announces.
				logNow, _ := os.ReadFile(logPath)
				problem := regexp.MustCompile(`(?i)error|warn|ignor|invalid|fatal`)
				// (and, from the build of 26.05, its missing HTTP parser library and a
				// clock check on the loaded machine)
				expected := regexp.MustCompile(`Configured MailProg is invalid|Could not open .* state file|NOTE: Trying backup state save file|No topology information available|cannot create http_parser context|Listening for HTTP requests disabled|High latency for 1000 calls to gettimeofday`)
				if kind == KindWeights {
					expected = regexp.MustCompile(expected.String() + `|Node \S+ Weight\(\d+\) differ from slurm.conf`)
				}
				for _, l := range strings.Split(string(logNow[min(len(logStart), len(logNow)):]), "\n") {
					if problem.MatchString(l) && !expected.MatchString(l) {
						t.Errorf("slurmctld's log after the steps: %s", l)
					}
				}
				// The job recipe, PROGRAM printing each task's rank and node.
				if len(recipe) != 2 {
					t.Fatalf("apply.txt: want the two lines of the job recipe, got %q", recipe)
				}
				job := strings.Join(recipe, "\n")
				job = strings.Replace(job, "PROGRAM", `bash -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"'`, 1)
				jobPath := filepath.Join(work, "job.sh")
				os.WriteFile(jobPath, []byte("#!/bin/bash\necho \"nodes $SLURM_JOB_NODELIST\"\n"+job+"\n"), 0o755)
				// A 1-node job first, so that the recipe's job is not the ordering's start.
				first := must(work, "salloc --no-shell -N 1 2>&1")
				out := must(work, "sbatch --wait -N 5 -o job.out job.sh >/dev/null && cat job.out")
				nl := regexp.MustCompile(`(?m)^nodes (\S+)$`).FindStringSubmatch(out)
				if nl == nil {
					t.Fatalf("the job printed no nodes:\n%s", out)
				}
				jobHosts, _ := hostlist.Expand(nl[1])
				rank := map[string]int{}
				for r, v := range p.Order {
					rank[d.NodeName(v)] = r
				}
				want := slices.Clone(jobHosts)
				slices.SortFunc(want, func(a, b string) int { return rank[a] - rank[b] })
				got := make([]string, len(jobHosts))
				for _, m := range taskRE.FindAllStringSubmatch(out, -1) {
					r, _ := strconv.Atoi(m[1])
					if r < len(got) {
						got[r] = m[2]
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("the job recipe on %s: tasks on %v, want its hosts in ordering order %v\n%s", nl[1], got, want, out)
				}
				if m := regexp.MustCompile(`Granted job allocation (\d+)`).FindStringSubmatch(first); m != nil {
					must(work, "scancel "+m[1])
				}
				// Wait until no job completes: Slurm skips completing nodes.
				for range 100 {
					if o, _ := sh(work, "squeue -h -o %i"); strings.TrimSpace(o) == "" {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				a, err := d.Allocator()
				if err != nil {
					t.Fatal(err)
				}
				c := &slurmtest.Cluster{Conf: filepath.Join(dir, "slurm.conf"), Dir: work, Submit: "salloc", Names: d.NodeNames(), Prefix: s.prefix}
				r := slurmtest.Compare(t, c, a, slurmtest.Run{Seed: uint64(900 + i), Steps: 40, Pending: alloc.ErrFragmented})
				total += r.Compared
				differ += r.Differ
				t.Logf("Slurm %s, %s, %s: %d command lines of apply.txt run; job recipe tasks %v; %d placements predicted, %d differ", s.version, mc.spec, kind, ran, got, r.Compared, r.Differ)
			})
		}
	}
	return i, total, differ
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
