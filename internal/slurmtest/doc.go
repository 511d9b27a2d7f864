// Package slurmtest drives a real Slurm started by scripts/slurm-cluster.sh (several
// slurmd on loopback) for the tests that compare procalloc's emulation of Slurm's
// node selection with Slurm itself: it submits jobs (salloc --no-shell, or sbatch),
// reads where Slurm put them (squeue), cancels them and waits until their nodes are
// free again, and plays a seeded sequence of submissions and cancellations against
// an allocator that predicts every placement (Compare). What every such test asks
// first is here too, each skipping the test with a message saying what is missing:
// the cluster script (Script), whether daemons may be started (NeedDaemons), a
// Slurm built from source (NewSlurm), the cluster `make test-slurm` started
// (Running), counts from the environment (EnvCount) and the script's node names
// (NodeNames). Only tests use it; it does not import alloc (Compare takes a
// Predictor), so that the slurm package's own tests use it too. Its subpackage
// ports chooses the clusters' ports (free when checked, another base when a daemon
// meets a port taken since).
//
// It follows no paper: it drives Slurm's own commands.
package slurmtest
