// Package hostlist reads and writes Slurm hostlist expressions such as
// node[001-016,020] or rack[0-3]_blade[0-41], the way Slurm's scontrol show hostnames
// and scontrol show hostlist do (Slurm's hostlist.c; checked against scontrol in the
// tests): Expand lists the names of an expression in order (Each gives them one at a
// time, for a caller that keeps fewer: the distinct names, those of a machine),
// Compress writes names as one expression, keeping their order. A job history's node lists are Lists of one
// Table (each host name stored once, a list as runs of ids); a Compressor writes
// many lists of one set of names.
//
// It follows no paper: the rules are Slurm's (hostlist.c).
package hostlist
