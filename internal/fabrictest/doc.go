// Package fabrictest holds what the tests of the fabric readers know of the sample
// fat tree in topo/testdata (16 hosts, node01 to node16, host k on leaf ((k-1) mod 4)+1
// under two spines), described there as ibnetdiscover prints it (package topo) and
// as Slurm's topology.conf and topology.yaml describe it (package slurm), so that
// every reader is held to one expected network. Only tests use it.
//
// It follows no paper: it is test data.
package fabrictest
