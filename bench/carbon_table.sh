#!/bin/sh
# carbon_table.sh - doc/evaluation.md's Carbon table: carbon per job, mean
# response and late jobs of the baselines and of metasched's joint choice
# (metasched and metasched_window, w_carbon 0, 1 and 4) over the shipped
# carbon signals (tests/data/carbon), mean +- standard deviation over
# seeds, for 10% and 50% of the jobs with a deadline.
#
# Usage: bench/carbon_table.sh METASCHED "SEEDS" [START [SIMULATE_ARGS...]]
#   METASCHED      the metasched program
#   SEEDS          e.g. "1 2 3 4 5"
#   START          --carbon-start (default: the year's first hour)
#   SIMULATE_ARGS  the scenario, e.g. -s kth -d ../shared/data (and
#                  --workers 1 on a loaded machine)
# Prints one Markdown row per deadline share and policy.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 METASCHED SEEDS [START [ARGS...]]" >&2; exit 2; }
prog=$1
seeds=$2
start=${3:-2022-01-01T00:00Z}
[ $# -ge 3 ] && shift 3 || shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
z=CISO=$src/tests/data/carbon/CISO-2022.csv,ERCO=$src/tests/data/carbon/ERCO-2022.csv,MISO=$src/tests/data/carbon/MISO-2022.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the rows of a run's carbon table: D POLICY G RESPONSE LATE
rows () {
    d=$1
    shift
    "$prog" simulate --carbon "$z" --carbon-start "$start" --deadline-share "$d" \
        --no-plots -o "$tmp/run" "$@" |
        awk -v d="$d" '/^carbon \(/ { on = 1; next } on && /^policy/ { next }
            on && NF == 0 { exit } on { print d, $1, $2, $3, $5 }'
}
for d in 0.1 0.5; do
    for s in $seeds; do
        rows "$d" -p base,eamc_priority_inc_v,metasched,metasched_window \
            --t-weight 1 --sweep 0.5 --w-carbon 1 --shift-base --seed "$s" "$@"
        for w in 0 4; do
            rows "$d" -p metasched,metasched_window --sweep 0.5 \
                --w-carbon "$w" --seed "$s" "$@"
        done
    done
done >"$tmp/all"
echo "| deadlines | policy | carbon g/job | mean response s | late |"
echo "|---|---|---|---|---|"
awk '{ k = $1 SUBSEP $2; if (!(k in n)) order[++m] = k
       n[k]++; g[k] += $3; gg[k] += $3 * $3; r[k] += $4; rr[k] += $4 * $4
       l[k] += $5 }
     function sd (s, ss, c) { v = (ss - s * s / c) / (c > 1 ? c - 1 : 1)
                              return sqrt (v > 0 ? v : 0) }
     END { for (i = 1; i <= m; i++) { k = order[i]; split (k, p, SUBSEP)
             c = n[k]
             printf "| %d%% | %s | %.1f +- %.1f | %.0f +- %.0f | %.1f |\n",
                 p[1] * 100, p[2], g[k] / c, sd(g[k], gg[k], c),
                 r[k] / c, sd(r[k], rr[k], c), l[k] / c } }' "$tmp/all"
