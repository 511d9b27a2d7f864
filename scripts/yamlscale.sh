#!/bin/sh
# Generates the 10^5-host topology.yaml inputs of docs/reliability.md's
# "topology.yaml at 10^5 hosts" section (nothing here is committed data):
#   tree.conf / tree.yaml    the 131,072-host fat tree's topology/tree, procalloc's
#                            writer (curve --format slurm-topology), the yaml the
#                            same switches as a topology.yaml tree
#   block.conf / block.yaml  its topology/block, blocks of 16 along rcm
#   ring.yaml                8,192 rings of 16 nodes (Slurm's MAX_RING_SIZE), each
#                            16 consecutive names
#   slurm.conf               the four lines (nodes, one partition)
#   lanl-tree.txt            the first 4,000 jobs of LANL-CM5 (1,024 nodes), sizes x128
#   lanl-ring.txt            the same jobs, sizes /16 capped at 16 (rings hold at most 16)
# usage: scripts/yamlscale.sh PROCALLOC OUTDIR [TRACE]
set -eu
P=$1
D=$2
T=${3:-/work/shared/traces/LANL-CM5-1994-4.1-cln.swf.gz}
M=fattree:16,16:16,16:16,16:32
H='n[000000-131071]'
mkdir -p "$D"
cd "$D"
"$P" curve --machine $M --hostlist "$H" --curve rcm --format slurm-topology -o tree.conf 2>/dev/null
"$P" curve --machine $M --hostlist "$H" --curve rcm --format slurm-block --block-size 16 -o block.conf
awk 'BEGIN { print "- topology: tree\n  cluster_default: true\n  tree:\n    switches:" }
  /^SwitchName=/ {
    split($1, a, "="); split($2, b, "=")
    printf "      - switch: %s\n", a[2]
    printf "        %s: %s\n", (b[1] == "Switches" ? "children" : "nodes"), b[2]
  }' tree.conf > tree.yaml
awk '/^BlockName=/ { split($1, a, "="); split($2, b, "="); blk = blk sprintf("      - block: %s\n        nodes: %s\n", a[2], b[2]) }
  /^BlockSizes=/ { split($1, s, "="); sizes = s[2] }
  END { printf "- topology: block\n  cluster_default: true\n  block:\n    block_sizes: [%s]\n    blocks:\n%s", sizes, blk }' block.conf > block.yaml
awk 'BEGIN { print "- topology: ring\n  cluster_default: true\n  ring:\n    rings:"
  for (r = 0; r < 8192; r++) printf "      - ring: r%d\n        nodes: n[%06d-%06d]\n", r, 16*r, 16*r+15 }' > ring.yaml
cat > slurm.conf <<EOC
ClusterName=big
SelectType=select/cons_tres
NodeName=n[000000-131071] CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE State=UP
EOC
"$P" sim --trace "$T" --machine mesh:32x32 --alloc ff:hilbert --max-jobs 1000000 --convert all.txt 2>/dev/null
head -n 4000 all.txt | awk -v OFS='\t' '{ $2 = $2 * 128; print }' > lanl-tree.txt
head -n 4000 all.txt | awk -v OFS='\t' '{ $2 = int($2 / 16); if ($2 > 16) $2 = 16; print }' > lanl-ring.txt
rm all.txt
