#!/bin/sh
# metasched simulate --carbon on the embedded default workload with the
# shipped 2022 carbon intensity of three grid zones (tests/data/carbon):
# the carbon table has a line per policy, every job with a signal; with a
# carbon weight metasched's carbon per job is below PriorityInc-V's at a
# mean response no worse than PriorityInc-V's; a weight without a signal
# changes nothing; bad files, rows and zones are refused naming the flag,
# file:line and field; half the jobs given deadlines, the shifting
# baseline cuts base's carbon, and home-shift runs every job at its home
# partition; --carbon-start moves the run to another season and refuses
# a time off the signal's steps; metasched_window weighs carbon as
# metasched does (alpha, the partition most jobs prefer on energy, on the
# dirtiest zone: a carbon weight cuts the carbon of both). Runs are
# deterministic per seed, so this holds on any machine. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
ms=$MS_BUILDDIR/metasched/metasched
d=${MS_SRCDIR:-.}/tests/data/carbon
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 13
zones=CISO=$d/CISO-2022.csv,ERCO=$d/ERCO-2022.csv,MISO=$d/MISO-2022.csv

# the column of a policy's line in the carbon table
carbon_of () { # FILE LABEL COLUMN
    awk -v l="$2" -v c="$3" '/^carbon \(/ {t = 1; next} t && $1 == l {print $c; exit}' "$1"
}

"$ms" simulate -p eamc_priority_inc_v,metasched --t-weight 1 --sweep 0.5 \
    --carbon "$zones" --no-plots -o "$tmp/a" >"$tmp/a.out" 2>&1
rc=$?
g0=$(carbon_of "$tmp/a.out" metasched-w0.5 2)
ge=$(carbon_of "$tmp/a.out" eamc_priority_inc_v-1 2)
re=$(carbon_of "$tmp/a.out" eamc_priority_inc_v-1 3)
miss=$(awk '/^carbon \(/ {t = 1; next} t && NF == 4 && $1 != "policy" {s += $4} END {print s + 0}' "$tmp/a.out")
[ $rc = 0 ] && grep -q '^carbon (alpha CISO, beta ERCO, gamma MISO)$' "$tmp/a.out" \
    && [ -n "$g0" ] && [ -n "$ge" ] && [ "$miss" = 0 ]
tap_ok $? "--carbon: a carbon line per policy, every job with a signal (rc $rc; g/job metasched $g0, PriorityInc-V $ge; $miss without)"

"$ms" simulate -p metasched --sweep 0.5 --w-carbon 2 --carbon "$zones" \
    --no-plots -o "$tmp/b" >"$tmp/b.out" 2>&1
g2=$(carbon_of "$tmp/b.out" metasched-w0.5-c2-p0 2)
r2=$(carbon_of "$tmp/b.out" metasched-w0.5-c2-p0 3)
[ -n "$g2" ] && [ -n "$r2" ] && [ -n "$re" ] &&
    awk -v a="$g2" -v b="$ge" -v ra="$r2" -v rb="$re" 'BEGIN {exit !(a < b && ra <= rb)}'
tap_ok $? "--w-carbon 2: metasched's carbon per job under PriorityInc-V's at no worse mean response ($g2 g, $r2 s against $ge g, $re s)"

"$ms" simulate -p metasched --sweep 0.5 --no-plots -q -o "$tmp/c" >/dev/null 2>&1
"$ms" simulate -p metasched --sweep 0.5 --w-carbon 2 --no-plots -q -o "$tmp/e" >/dev/null 2>&1
cut -d, -f1,3- "$tmp/c/summary.csv" | sed 's/metasched-w0.5-c2-p0/metasched-w0.5/' | \
    awk -F, -v OFS=, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "decisions_per_s") c = i} {if (c) $c = ""; print}' >"$tmp/c.csv"
cut -d, -f1,3- "$tmp/e/summary.csv" | sed 's/metasched-w0.5-c2-p0/metasched-w0.5/' | \
    awk -F, -v OFS=, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "decisions_per_s") c = i} {if (c) $c = ""; print}' >"$tmp/e.csv"
[ -s "$tmp/c.csv" ] && cmp -s "$tmp/c.csv" "$tmp/e.csv"
tap_ok $? "--w-carbon without --carbon: the same results as without it"

# metasched_window with a carbon weight: its window's costs read each
# candidate's carbon, so the weight moves its carbon as metasched's
zz=alpha=MISO,beta=CISO,gamma=ERCO
for w in 0 1; do
    "$ms" simulate -p metasched,metasched_window --sweep 0.5 --w-carbon $w \
        --carbon "$zones" --carbon-zones $zz --no-plots -o "$tmp/w$w" \
        >"$tmp/w$w.out" 2>&1
done
m0=$(carbon_of "$tmp/w0.out" metasched-w0.5 2)
m1=$(carbon_of "$tmp/w1.out" metasched-w0.5-c1-p0 2)
x0=$(carbon_of "$tmp/w0.out" metasched_window-w0.5 2)
x1=$(carbon_of "$tmp/w1.out" metasched_window-w0.5-c1-p0 2)
[ -n "$m0" ] && [ -n "$m1" ] && [ -n "$x0" ] && [ -n "$x1" ] &&
    awk -v m0="$m0" -v m1="$m1" -v x0="$x0" -v x1="$x1" \
        'BEGIN {exit !(m1 < m0 && x1 < x0)}'
tap_ok $? "metasched_window --w-carbon 1: less carbon per job than without ($x1 g against $x0 g), as metasched ($m1 g against $m0 g)"

out=$("$ms" simulate --carbon "CISO=$tmp/none.csv" --no-plots -q -o "$tmp/f" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--carbon: .*none.csv"
tap_ok $? "a missing file is refused naming the flag and file (rc $rc: $out)"

printf 'time_utc,gco2eq_per_kwh\n2022-01-01T00:00:00Z,100\n2022-01-01T01:00:00Z,-3\n' >"$tmp/bad.csv"
out=$("$ms" simulate --carbon "CISO=$tmp/bad.csv" --no-plots -q -o "$tmp/f" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--carbon: $tmp/bad.csv:3: gco2eq_per_kwh: bad value '-3'"
tap_ok $? "a bad row is refused at file:line and field (rc $rc: $out)"

out=$("$ms" simulate --carbon "$zones" --carbon-zones delta=CISO --no-plots -q -o "$tmp/f" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--carbon-zones: no cluster 'delta'"
tap_ok $? "a zone for an unknown cluster is refused (rc $rc: $out)"

out=$("$ms" simulate --carbon "$zones" --carbon-zones alpha=NYIS --no-plots -q -o "$tmp/f" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--carbon-zones: cluster 'alpha': zone 'NYIS' has no signal"
tap_ok $? "a cluster on a zone without signal is refused (rc $rc: $out)"

# time shifting: half the jobs with a deadline (submit + 2 x limit); the
# shifting baseline cuts base's carbon
"$ms" simulate -p base --shift-base --deadline-share 0.5 --carbon "$zones" \
    --sweep 0.5 --no-plots -o "$tmp/s" >"$tmp/s.out" 2>&1
rc=$?
gb=$(carbon_of "$tmp/s.out" base 2)
gs=$(carbon_of "$tmp/s.out" base-shift 2)
[ $rc = 0 ] && grep -q '^jobs with a deadline: ' "$tmp/s.out" && [ -n "$gb" ] && [ -n "$gs" ] \
    && awk -v a="$gs" -v b="$gb" 'BEGIN {exit !(a < b)}'
tap_ok $? "--shift-base: deadline jobs held for cleaner hours cut base's carbon ($gs g against $gb g; rc $rc)"

# home-shift: the shifting baseline at each job's home partition (the
# default scenario's alpha/batch), not base's optimal one
"$ms" simulate -p base --shift-base --deadline-share 0.5 --carbon "$zones" \
    --jobs-csv --no-plots -o "$tmp/h" >"$tmp/h.out" 2>&1
rc=$?
gh=$(carbon_of "$tmp/h.out" home-shift 2)
nh=$(awk -F, 'NR > 1 && $10 != "" {n++} NR > 1 && $10 != "" && $10 != "alpha/batch" {o++} END {print n + 0, o + 0}' "$tmp/h/jobs-home-shift.csv" 2>/dev/null)
[ $rc = 0 ] && [ -n "$gh" ] && [ "${nh#* }" = 0 ] && [ "${nh% *}" -gt 0 ]
tap_ok $? "--shift-base: a home-shift row, every job at its home partition (rc $rc; $gh g/job; jobs, elsewhere: $nh)"

# --carbon-start: July's first hour gives other carbon; a time between
# steps, or without --carbon, is refused naming the flag
"$ms" simulate -p metasched --sweep 0.5 --carbon "$zones" \
    --carbon-start 2022-07-01T00:00Z --no-plots -o "$tmp/j" >"$tmp/j.out" 2>&1
rc=$?
gj=$(carbon_of "$tmp/j.out" metasched-w0.5 2)
[ $rc = 0 ] && [ -n "$gj" ] && [ "$gj" != "$g0" ]
tap_ok $? "--carbon-start 2022-07-01T00:00Z: another season ($gj g/job against $g0 g in January; rc $rc)"
out=$("$ms" simulate --carbon "$zones" --carbon-start 2022-07-01T00:30Z --no-plots -q -o "$tmp/f" 2>&1)
rc=$?
out2=$("$ms" simulate --carbon-start 2022-07-01T00:00Z --no-plots -q -o "$tmp/f" 2>&1)
rc2=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--carbon-start: '2022-07-01T00:30Z' is not on a step of zone CISO's signal" \
    && [ $rc2 = 1 ] && printf '%s' "$out2" | grep -q -- "--carbon-start needs --carbon"
tap_ok $? "--carbon-start off the signal's steps or without --carbon is refused (rc $rc: $out; rc $rc2: $out2)"

out=$("$ms" simulate --deadline-share 1.5 --no-plots -q -o "$tmp/f" 2>&1)
rc=$?
[ $rc = 2 ] && printf '%s' "$out" | grep -q -- "--deadline-share: bad value '1.5'"
tap_ok $? "a share over 1 is refused naming the flag (rc $rc: $out)"
