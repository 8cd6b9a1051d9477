#!/bin/sh
# metasched simulate --bound on the embedded default: OUT/bound.csv holds
# the front's two ends and one line per row; no row beats the bound (its
# own choice of partition and frequency is one of those the bound
# weighs) nor its fastest or leanest end, and its expected totals are those
# the simulation measured up to the truth's noise; --bound with
# --moldable-share or --from-db is refused naming the option. Runs are
# deterministic per seed, so this holds on any machine. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
ms=$MS_BUILDDIR/metasched/metasched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 7

"$ms" simulate -p min_runtime,eamc_priority_inc_v,metasched --t-weight 1,1.5 \
    --sweep 0.4 --bound --no-plots -o "$tmp/b" >"$tmp/out" 2>&1
tap_ok $? "--bound runs ($(tail -1 "$tmp/out"))"

csv=$tmp/b/bound.csv
n=$(tail -n +2 "$csv" 2>/dev/null | wc -l)
grep -q '^fastest,' "$csv" && grep -q '^leanest,' "$csv" && [ "$n" -eq 7 ]
tap_ok $? "bound.csv: the two ends and 5 rows ($n lines)"

# columns: policy,jobs,mean_runtime_s,job_energy_j,least_energy_j,
# least_mean_runtime_s
bad=$(awk -F, 'NR > 1 && $1 != "fastest" && $1 != "leanest" &&
    ($5 == "" || $5 > $4 * (1 + 1e-9) || $6 > $3 * (1 + 1e-9)) {print $1}' "$csv")
[ -n "$(tail -n +2 "$csv")" ] && [ -z "$bad" ]
tap_ok $? "no row uses less energy at its runtime, or less runtime at its energy, than the bound${bad:+ (not so: $bad)}"

bad=$(awk -F, '$1 == "fastest" {tf = $3} $1 == "leanest" {el = $4}
    NR > 3 && ($3 < tf * (1 - 1e-9) || $4 < el * (1 - 1e-9)) {print $1}' "$csv")
[ -z "$bad" ]
tap_ok $? "no row runs faster than every job at its fastest, or uses less energy than every job at its leanest${bad:+ (not so: $bad)}"

# The bound's expected job energy of each row against the energy its run
# measured (summary.csv, column 12): the truth's noise (5% a job) and the
# jobs killed at their limit move it by well under 3% over 2000 jobs.
bad=$(awk -F, 'NR == FNR {if (FNR > 1) e[$2] = $12; next}
    FNR > 1 && ($1 in e) {d = $4 / e[$1] - 1; if (d < 0) d = -d; if (d > 0.03) print $1 ":" d}' \
    "$tmp/b/summary.csv" "$csv")
m=$(awk -F, 'NR == FNR {if (FNR > 1) e[$2] = 1; next} FNR > 1 && ($1 in e) {n++} END {print n + 0}' \
    "$tmp/b/summary.csv" "$csv")
[ "$m" -ge 4 ] && [ -z "$bad" ]
tap_ok $? "each row's expected job energy is within 3% of its measured one ($m rows${bad:+; not so: $bad})"

out=$("$ms" simulate --bound --moldable-share 0.2 --no-plots -q -o "$tmp/m" 2>&1)
rc=$?
[ $rc = 2 ] && printf '%s' "$out" | grep -q -- '--bound: not with --moldable-share'
tap_ok $? "--bound with --moldable-share is refused naming both (rc $rc: $out)"

out=$("$ms" simulate --bound --from-db 'dbname=none' --no-plots -q -o "$tmp/d" 2>&1)
rc=$?
[ $rc = 2 ] && printf '%s' "$out" | grep -q -- '--bound: not with --from-db'
tap_ok $? "--bound with --from-db is refused naming both (rc $rc: $out)"
