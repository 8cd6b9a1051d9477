#!/bin/sh
# metasched simulate --outage on the embedded default workload: while a
# cluster is down it takes no new job; the engine's rule (engine_hold_down,
# the one metaschedd runs) sends the jobs that would have gone there to the
# clusters up, and holds those whose every candidate is down until one is
# up again; an outage after the last job changes nothing; bad items are
# refused naming the option, the item and its part. Runs are deterministic
# per seed, so this holds on any machine. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
ms=$MS_BUILDDIR/metasched/metasched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 6

# summary.csv without its speed column (decisions_per_s)
results () { # DIR
    awk -F, -v OFS=, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "decisions_per_s") c = i}
        {if (c) {for (i = c; i < NF; i++) $i = $(i + 1); NF--} print}' "$1/summary.csv"
}
# a column of outage-summary.csv for a policy
outage_of () { # DIR POLICY COLUMN
    awk -F, -v p="$2" -v c="$3" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == c) k = i; next}
        $1 == p {print $k; exit}' "$1/outage-summary.csv"
}

first () { printf '%s' "$1" | head -n 1; }

run () { # DIR ARGS...
    d=$1
    shift
    "$ms" simulate -p base,metasched --sweep 0.5 --jobs-csv --no-plots -q \
        -o "$tmp/$d" "$@" >"$tmp/$d.out" 2>&1
}

run none
rc0=$?
run down --outage alpha@6h+12h
rc=$?
mb=$(outage_of "$tmp/down" base moved)
mm=$(outage_of "$tmp/down" metasched-w0.5 moved)
# no job that came during the outage started on alpha before its end
t0=$(awk -F, 'NR == 2 {print $5; exit}' "$tmp/down/jobs-base.csv")
on=$(cat "$tmp/down/jobs-base.csv" "$tmp/down/jobs-metasched-w0.5.csv" | awk -F, -v a="$t0" '
    $1 != "job" && $5 >= a + 21600 && $5 < a + 64800 && $6 < a + 64800 && $10 ~ /^alpha\// {n++}
    END {print n + 0}')
nb=$(awk -F, '$1 != "job" && $10 ~ /^alpha\// {n++} END {print n + 0}' "$tmp/none/jobs-base.csv")
db=$(awk -F, '$1 != "job" && $10 ~ /^alpha\// {n++} END {print n + 0}' "$tmp/down/jobs-base.csv")
[ $rc0 = 0 ] && [ $rc = 0 ] && [ "${mb:-0}" -gt 0 ] && [ "${mm:-0}" -gt 0 ] \
    && [ "$on" = 0 ] && [ "$db" -lt "$nb" ]
tap_ok $? "alpha down 12 h: jobs go elsewhere (moved: base $mb, metasched $mm; on alpha: $db against $nb; $on came and started there during it; rc $rc0 $rc)"

[ -s "$tmp/down/summary.csv" ] \
    && [ "$(results "$tmp/none")" != "$(results "$tmp/down")" ]
tap_ok $? "the outage changes the results"

run late --outage alpha@1000d+1h
rc=$?
[ $rc = 0 ] && [ -s "$tmp/late/outage-summary.csv" ] \
    && [ "$(results "$tmp/none")" = "$(results "$tmp/late")" ]
tap_ok $? "an outage after the last job: the same results as none (rc $rc)"

run all --outage alpha@6h+2h,beta@6h+2h,gamma@6h+2h
rc=$?
hb=$(outage_of "$tmp/all" base held)
hm=$(outage_of "$tmp/all" metasched-w0.5 held)
# the clusters return together: a job let out is decided with all of
# them up, none counted as moved off a cluster down
mv=$(awk -F, 'NR > 1 {s += $6} END {print s + 0}' "$tmp/all/outage-summary.csv" 2>/dev/null)
# every job ran once (the invariants), none rejected; none started while
# every cluster was down unless it came before
during=$(cat "$tmp/all/jobs-base.csv" "$tmp/all/jobs-metasched-w0.5.csv" | awk -F, -v a="$t0" '
    $1 != "job" && $5 >= a + 21600 && $6 < a + 28800 {n++}
    END {print n + 0}')
rej=$(awk -F, '$1 == "policy" {s += $6} END {print s + 0}' "$tmp/all/summary.csv")
[ $rc = 0 ] && [ "${hb:-0}" -gt 0 ] && [ "${hm:-0}" -gt 0 ] && [ "$during" = 0 ] \
    && [ "$rej" = 0 ] && [ "$mv" = 0 ]
tap_ok $? "every cluster down 2 h: the jobs that came wait, then run (held: base $hb, metasched $hm; $during started during it; $rej rejected; $mv moved; rc $rc)"

bad=0
for item in "beta:not CLUSTER@START+DURATION" \
    "delta@1h+2h:no cluster 'delta'" \
    "alpha@1h+0:duration '0' is not a time above 0" \
    "alpha@x+2h:start 'x' is not a time" \
    "alpha@1h+2x:duration '2x' is not a time" \
    "alpha@1h:no +DURATION" \
    "alpha@-1h+2h:start '-1h' is not a time"; do
    spec=${item%%:*}
    want=${item#*:}
    out=$("$ms" simulate --outage "$spec" --no-plots -q -o "$tmp/e" 2>&1)
    rc=$?
    if [ $rc != 1 ] || ! printf '%s' "$out" | grep -qF -- "--outage: item 1 '$spec': $want"; then
        echo "# $spec: rc $rc: $(first "$out")"
        bad=1
    fi
done
out=$("$ms" simulate --outage alpha@1h+1h, --no-plots -q -o "$tmp/e" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -qF -- "--outage: item 2 is empty" || bad=1
[ $bad = 0 ]
tap_ok $? "bad items refused naming --outage, the item and what is wrong (last: rc $rc: $(first "$out"))"

out=$("$ms" simulate --outage alpha@1h+1h --outage beta@1h+1h --no-plots -q -o "$tmp/e" 2>&1)
rc=$?
[ $rc = 2 ] && printf '%s' "$out" | grep -qF -- "--outage given twice"
tap_ok $? "--outage given twice is refused (rc $rc: $(first "$out"))"
