#!/bin/sh
# sim_tables.sh - the simulator's tables for the shipped scenarios (seed 1,
# every policy), to compare two builds digit by digit: a change that
# should not move results leaves `diff -r OUT1 OUT2` empty.
#
# Usage: bench/sim_tables.sh METASCHED OUTDIR [SHARED_DATA_DIR]
#   METASCHED  the metasched program of the build to check
#   OUTDIR     where each scenario's summary goes (created)
# Each scenario's summary.csv is kept without its decisions_per_s column
# (a speed, not a result) as OUTDIR/<scenario>.csv.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 METASCHED OUTDIR [SHARED_DATA_DIR]" >&2
    exit 2
fi
prog=$1
out=$2
data=${3:-../shared/data}
[ -x "$prog" ] || { echo "$0: $prog: not an executable" >&2; exit 2; }
[ -d "$data/traces" ] || { echo "$0: $data: no traces/ in it" >&2; exit 2; }
mkdir -p "$out"
run () {
    name=$1
    shift
    "$prog" simulate "$@" -d "$data" --seed 1 --no-plots -q \
        -o "$out/$name.dir" >/dev/null
    # drop the column named decisions_per_s wherever it is
    awk -F, -v OFS=, '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "decisions_per_s") c = i }
        { if (c) { for (i = c; i < NF; i++) $i = $(i + 1); NF-- } print }' \
        "$out/$name.dir/summary.csv" >"$out/$name.csv"
    rm -rf "$out/$name.dir"
}
run default
run eamc-13 -s eamc --mix uniform
run eamc-50 -s eamc --mix 50
run kth -s kth
run curie -s curie
