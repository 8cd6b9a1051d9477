#!/bin/sh
# metasched simulate --workers: the table's runs shared among processes
# give the same files to the byte as one process (every policy and the
# sweep on the embedded default, with --bound's and --jobs-csv's files
# and the utilization series the plots read); a bad count is refused
# naming the option; a run that fails in a worker process fails the
# command with that run's error. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
ms=$MS_BUILDDIR/metasched/metasched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 6

"$ms" simulate --workers 1 --bound --jobs-csv --no-plots -o "$tmp/one" \
    >"$tmp/one.out" 2>&1
rc1=$?
"$ms" simulate --workers 3 --bound --jobs-csv --no-plots -o "$tmp/three" \
    >"$tmp/three.out" 2>&1
rc3=$?
[ $rc1 = 0 ] && [ $rc3 = 0 ]
tap_ok $? "--workers 1 and --workers 3 run (rc $rc1, $rc3: $(tail -1 "$tmp/three.out"))"

# The decision rate (summary.csv's decisions_per_s, the tables' last
# column dec/s) is a speed, not a result: left out of the comparison.
nocol () {
    awk -F, -v OFS=, '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "decisions_per_s") c = i }
        { if (c) { for (i = c; i < NF; i++) $i = $(i + 1); NF-- } print }' "$1"
}
notab () { sed "s|$2|OUT|g" "$1" | awk 'NF >= 10 { $NF = "" } { print }'; }
for d in one three; do
    nocol "$tmp/$d/summary.csv" >"$tmp/$d.sum"
    notab "$tmp/$d/table.txt" "$tmp/$d" >"$tmp/$d.tab"
    notab "$tmp/$d.out" "$tmp/$d" >"$tmp/$d.txt"
    rm "$tmp/$d/summary.csv" "$tmp/$d/table.txt"
done
n=$(ls "$tmp/three" | wc -l)
diff -r "$tmp/one" "$tmp/three" >"$tmp/diff" 2>&1 \
    && diff "$tmp/one.sum" "$tmp/three.sum" >>"$tmp/diff" 2>&1 \
    && diff "$tmp/one.tab" "$tmp/three.tab" >>"$tmp/diff" 2>&1 \
    && [ "$n" -ge 20 ] && [ "$(wc -l <"$tmp/three.sum")" -ge 20 ]
tap_ok $? "the same summary, table and $n files of records and bounds ($(head -3 "$tmp/diff"))"

diff "$tmp/one.txt" "$tmp/three.txt" >"$tmp/tdiff" 2>&1 \
    && grep -q 'energy-weight sweep' "$tmp/three.txt"
tap_ok $? "the same tables on stdout, the sweep's included ($(head -3 "$tmp/tdiff"))"

# the plots' data: utilization of min_runtime and metasched, the front
"$ms" simulate --workers 1 -n 500 -o "$tmp/p1" >/dev/null 2>&1
"$ms" simulate --workers 2 -n 500 -o "$tmp/p2" >/dev/null 2>&1
cmp "$tmp/p1/utilization.dat" "$tmp/p2/utilization.dat" >"$tmp/pdiff" 2>&1 \
    && cmp "$tmp/p1/pareto.dat" "$tmp/p2/pareto.dat" >>"$tmp/pdiff" 2>&1 \
    && [ "$(grep -c -e '^# min_runtime:' -e '^# metasched-w0.5:' \
        "$tmp/p2/utilization.dat")" = 2 ]
tap_ok $? "the plots' data files are the same, both utilization series in them ($(head -2 "$tmp/pdiff"))"

bad=
for v in 0 257 1.5 two -1; do
    out=$("$ms" simulate --workers "$v" --no-plots -q -o "$tmp/x" 2>&1)
    rc=$?
    [ $rc = 2 ] && printf '%s' "$out" | grep -q -- "--workers: bad value '$v'" \
        || bad="$bad $v(rc $rc: $(printf '%s' "$out" | head -1))"
done
[ -z "$bad" ]
tap_ok $? "bad counts are refused naming --workers${bad:+ (not so:$bad)}"

# a run whose records cannot be written, in whichever process ran it
mkdir -p "$tmp/f/jobs-min_energy.csv"
out=$("$ms" simulate --workers 2 -p base,min_runtime,min_energy,metasched \
    --sweep 0.5 --jobs-csv -n 300 --no-plots -q -o "$tmp/f" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q "jobs-min_energy.csv: Is a directory"
tap_ok $? "a run failing in a worker fails the command with its error (rc $rc: $out)"
exit $tap_failed
