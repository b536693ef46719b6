#!/usr/bin/env bash
# Grade in a job array, then merge once all its tasks have ended. Run from the course folder.
set -euo pipefail
here=$(dirname "$0")
array=$(sbatch --parsable "$here/grade-class.sbatch")
sbatch --dependency="afterany:${array%%;*}" "$here/merge.sbatch"
