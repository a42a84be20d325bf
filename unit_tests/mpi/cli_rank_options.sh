#!/bin/sh
# fgdd-solve under mpirun on 2 ranks where rank 1 gets extra arguments: every rank must exit 2
# and the root must print the expected text; none may hang (ctest's timeout).
# Usage: cli_rank_options.sh MPIEXEC FGDD_SOLVE 'RANK 1 EXTRA ARGUMENTS' 'EXPECTED TEXT'
set -u
if [ "$1" = "--rank" ]; then  # inside mpirun, one rank (Open MPI names it)
  exe=$2
  extra=""
  if [ "${OMPI_COMM_WORLD_RANK:-0}" = 1 ]; then extra=$3; fi
  # shellcheck disable=SC2086  # the extra arguments are meant to split
  "$exe" --matrix gen:lap7:8 --subdomain-rows 100 $extra
  echo "rank ${OMPI_COMM_WORLD_RANK:-?} exited $?"
  exit 0  # a non-zero exit would let mpirun end the other rank before it reports
fi
output=$("$1" -np 2 --oversubscribe sh "$0" --rank "$2" "$3" 2>&1)
echo "$output"
for expected in "rank 0 exited 2" "rank 1 exited 2" "$4"; do
  if ! printf '%s\n' "$output" | grep -qF -- "$expected"; then
    echo "missing: $expected"
    exit 1
  fi
done
