#!/bin/sh
# metasched simulate --power-budget on the KTH-SP2 trace (../shared/data):
# a site budget at 70% of the peak power of metasched's uncapped run. What
# metasched starts never draws over it (no time over the budget, no start
# into a draw over it, the peak under it), every job still runs, and the
# budget did hold jobs; the capped baseline (home, first-come first-served)
# keeps it too. Budgets that are wrong are refused naming the place. Runs
# are deterministic per seed, so this holds on any machine. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
ms=$MS_BUILDDIR/metasched/metasched
data=${MS_SHARED_DATA:-${MS_SRCDIR:-.}/../shared/data}
trace=$data/traces/KTH-SP2-1996-2.1-cln.swf.gz
[ -r "$trace" ] || tap_skip_all "no $trace (the shared data beside the project)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 10

# power-summary.csv: policy,jobs,mean_wait_s,mean_response_s,job_energy_j,
# peak_w,mean_w,site_budget_at_peak_w,over_budget_s,over_budget_j,
# starts_over_budget,held,never_started
"$ms" simulate -s kth -d "$data" -p metasched --sweep 0.5 --power \
    --no-plots -q -o "$tmp/u" >"$tmp/u.out" 2>&1
rc=$?
peak=$(awk -F, '$1 == "metasched-w0.5" {print $6; exit}' \
    "$tmp/u/power-summary.csv" 2>/dev/null)
[ $rc = 0 ] && [ -n "$peak" ]
tap_ok $? "the uncapped run (rc $rc) has a peak ($peak W)"

budget=$(awk -v p="${peak:-0}" 'BEGIN {printf "%.0f", 0.7 * p}')
"$ms" simulate -s kth -d "$data" -p metasched,home --sweep 0.5 \
    --power-budget "site ${budget}W" --no-plots -q -o "$tmp/c" \
    >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "power under site ${budget}W" "$tmp/c.out"
tap_ok $? "the run under a site budget of $budget W (70% of the peak) keeps every invariant of the simulator (rc $rc)"

row() { awk -F, -v l="$1" '$1 == l {print; exit}' "$tmp/c/power-summary.csv"; }
m=$(row metasched-w0.5)
h=$(row home)
printf '%s\n' "$m" | awk -F, -v b="$budget" \
    '$9 == 0 && $11 == 0 && $6 <= b + 1e-6 {ok = 1} END {exit !ok}'
tap_ok $? "metasched: no time over the budget, no start into a draw over it, peak under it ($m)"

# summary.csv: group,policy,jobs,done,killed,rejected,...
s=$(awk -F, '$2 == "metasched-w0.5" {print; exit}' "$tmp/c/summary.csv")
printf '%s\n' "$s" | awk -F, '$6 == 0 && $4 == $3 && $3 > 28000 {ok = 1} END {exit !ok}' &&
    printf '%s\n' "$m" | awk -F, '$13 == 0 {ok = 1} END {exit !ok}'
tap_ok $? "metasched: every job ran ($(printf '%s' "$s" | cut -d, -f2-6))"

printf '%s\n' "$m" | awk -F, '$12 > 0 {ok = 1} END {exit !ok}'
tap_ok $? "the budget held jobs back (held: $(printf '%s' "$m" | cut -d, -f12))"

printf '%s\n' "$h" | awk -F, -v b="$budget" \
    '$9 == 0 && $11 == 0 && $6 <= b + 1e-6 {ok = 1} END {exit !ok}'
tap_ok $? "the capped baseline keeps the budget too ($h)"

# the draw over time: every change of metasched's run under the budget
bad=$(awk -F, -v b="$budget" 'NR > 1 && ($2 > b + 1e-6 || $3 != b) {n++}
    END {print n + 0}' "$tmp/c/power-metasched-w0.5.csv" 2>/dev/null)
n=$(wc -l <"$tmp/c/power-metasched-w0.5.csv" 2>/dev/null)
[ "${n:-0}" -gt 1000 ] && [ "$bad" = 0 ]
tap_ok $? "power-metasched-w0.5.csv: the site's draw and budget at each of $n changes, none over ($bad)"

out=$("$ms" simulate -s kth -d "$data" -p metasched --sweep 0.5 \
    --power-budget 'site 60kW; omega 5kW' --no-plots -q -o "$tmp/x" 2>&1)
rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep -q \
    "power-budget:1: 'omega 5kW': scope: 'site' or a cluster (home, beta, gamma), not 'omega'"
tap_ok $? "an unknown cluster is refused naming the entry (rc $rc: $out)"

printf 'site 60kW\n# the afternoon\nbeta 20kW from 25:00\n' >"$tmp/b.txt"
out=$("$ms" simulate -s kth -d "$data" -p metasched --sweep 0.5 \
    --power-budget "@$tmp/b.txt" --no-plots -q -o "$tmp/x" 2>&1)
rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep -q \
    "$tmp/b.txt:3: 'beta 20kW from 25:00': from: HH:MM"
tap_ok $? "a budget file's bad time is refused naming file:line (rc $rc: $out)"

out=$("$ms" simulate --power-budget 'site 1MW' --power-budget 'site 2MW' \
    --no-plots -q -o "$tmp/x" 2>&1)
rc=$?
[ $rc = 2 ] && printf '%s' "$out" | grep -q -- '--power-budget given twice'
tap_ok $? "--power-budget twice is refused (rc $rc: $out)"
exit $tap_failed
