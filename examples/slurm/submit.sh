#!/usr/bin/env bash
# Grade in a job array, then merge once all its tasks have ended. Run from the course folder.
#
#   bash examples/slurm/submit.sh                                  # the array as grade-class.sbatch asks
#   bash examples/slurm/submit.sh --cpus-per-task=2 --mem=4G -p short   # options for the array, passed to sbatch
#
# Options given here override grade-class.sbatch's #SBATCH lines (sbatch's rule): fit them to the partition's
# nodes (a task asking for more CPUs or memory than a node has is never started). The job ids are printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable "$@" "$here/grade-class.sbatch")
array=${array%%;*}  # --parsable prints "id;cluster" on a multi-cluster system
merge=$(sbatch --parsable --dependency="afterany:$array" "$here/merge.sbatch")
merge=${merge%%;*}
echo "grading: job array $array; merging: job $merge (after every task of $array has ended)"
