// Package slurmtest drives a real Slurm started by scripts/slurm-cluster.sh (several
// slurmd on loopback) for the tests that compare procalloc's emulation of Slurm's
// node selection with Slurm itself: it submits jobs (salloc --no-shell, or sbatch),
// reads where Slurm put them (squeue), cancels them and waits until their nodes are
// free again, and plays a seeded sequence of submissions and cancellations against
// an allocator that predicts every placement (Compare). Only tests use it. Its
// subpackage ports chooses the clusters' ports (free when checked, another base when
// a daemon meets a port taken since).
//
// It follows no paper: it drives Slurm's own commands.
package slurmtest
