#!/bin/sh
# `metasched simulate --from-db`: the site's own history replayed. Jobs of
# two apps run through metaschedd on the test bed (msbatch, no partition, a
# node's worth of CPUs each, energy added to their node's test powercap
# tree while they run, as test_daemon_learn.sh does); then the replay of
# the last minutes, read with the report role, shows a row for every
# policy, the measured row holds exactly what job_runs holds of those jobs,
# and the row of the policy as it ran (the daemon's settings) agrees with
# the measurement: where the replay places a job where it ran, the truth
# is what was measured there, so job energy and runtime agree within 1%
# when every job is placed as it ran (and the test says how many were);
# waits differ by the daemon's cycle and Slurm's start latency, which the
# simulator does not have: the as-run mean response lies between the mean
# runtime and the measured mean response plus 10 s. The daemon decides with
# plain energy odds (cal_lean = 0): calibrated on the test bed's history,
# whose short jobs have one sensible choice each, its odds put the
# partitions within a few seconds of each other, and the live queue's
# seconds (a job still pending in Slurm) then decide, which the replay does
# not have. The replay counts the jobs metaschedd decided before its
# window first, in every policy's job mix, as the daemon had re-read them:
# as many as the meta queue holds. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -x "$metasched" ] || tap_skip_all "$metasched not built"
conf_file=${MS_COLLECT_CONF_FILE:-$MS_TESTBED_RUN/collect.conf}
[ -r "$conf_file" ] || tap_skip_all "no $conf_file (run testbed/start of this tree)"
[ -n "${MS_PG_REPORT_CONNINFO:-}" ] || tap_skip_all "the test bed has no report role conninfo"

hist_cleanup () {
    # shellcheck disable=SC2086
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    [ "$tap_failed" = 1 ] && [ -r "${log:-}" ] && tail -15 "$log" | sed 's/^/# /'
    [ "$tap_failed" = 1 ] && [ -r "$dtmp/sim.out" ] && sed 's/^/# /' "$dtmp/sim.out"
    daemon_cleanup
}
trap hist_cleanup EXIT
trap 'exit 143' HUP INT TERM
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
# The replay reads every job measured since the test began: no other test
# may run jobs meanwhile, so the services are ours alone (taken before the
# daemon lock, as every test that takes both does).
tap_services_exclusive
daemon_lock
tap_plan 9

log=$dtmp/msd.log
daemon_lead
tap_ok $? "the daemon starts and leads"
# A job an earlier test left in flight (its cluster job cancelled by that
# test, a run measured) ends when this daemon reconciles it and its cluster
# job is gone: the replay's window opens after that.
quiet () {
    for c in $MS_CLUSTERS; do
        [ -z "$(on_cluster "$c" squeue -h -u "$MS_TEST_USER,$MS_TEST_USER2" -o %i 2>/dev/null)" ] || return 1
    done
}
wait_for 30 grep -q 'reconciled [0-9]* in-flight jobs' "$log"
wait_for 60 quiet
sleep 1
t0=$(date +%s)

restore=$(settings_now policy dispatch_mode w_energy max_slowdown cal_lean)
out=$(cfg set policy=metasched dispatch_mode=single w_energy=0.8 max_slowdown=1.3 cal_lean=0 2>&1); r=$?
[ $r = 0 ] && out=
tap_ok $r "an admin sets policy = metasched, w_energy = 0.8, cal_lean = 0, one cluster job per job${out:+: $out}"

u1=$MS_TEST_USER u2=$MS_TEST_USER2
d1=$(job_dir "$u1") d2=$(job_dir "$u2")
appa=msd-hist-a-$$ appb=msd-hist-b-$$
measured_jobs hist 2 "$d1" "$d2"

jobs=$dtmp/jobs
: > "$jobs"
for ua in "$u1:$appa" "$u2:$appb" "$u1:$appb" "$u2:$appa" "$u1:$appa" "$u2:$appb"; do
    u=${ua%%:*} app=${ua#*:}
    if [ "$u" = "$u1" ]; then d=$d1; else d=$d2; fi
    id=$(msb "$u" "$d" --app "$app" hist.sh 2>&1 | grep -o '[0-9][0-9]*$')
    [ -n "$id" ] && echo "$id $u $app $d" >> "$jobs"
done
ids=$(cut -d' ' -f1 "$jobs" | paste -sd,)
[ "$(wc -l < "$jobs")" = 6 ]
tap_ok $? "two users submit 6 jobs of two apps through metaschedd ($ids)"

# as each job starts, add its energy to its node (600 J for the first app,
# 300 J for the second) and let it go on
: > "$jobs.added"
end=$(( $(date +%s) + 150 ))
while [ "$(wc -l < "$jobs.added")" -lt 6 ] && [ "$(date +%s)" -lt "$end" ]; do
    while read -r id u app d; do
        grep -q "^$id " "$jobs.added" && continue
        [ -s "$d/m.$id.started" ] || continue
        read -r cl node cjid < "$d/m.$id.started"
        case $node in '' | *[!a-z0-9]*) continue ;; esac
        if [ "$app" = "$appa" ]; then powercap_add "$node" 550000000 50000000
        else powercap_add "$node" 275000000 25000000; fi
        echo "$id $cl $node $cjid" >> "$jobs.added"
        touch "$d/m.$id.go"
    done < "$jobs"
    sleep 0.2
done
all_done () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state = 'completed'")" = 6 ]; }
all_rows () { [ "$(q "SELECT count(DISTINCT j.id) FROM jobs j JOIN job_runs r ON r.cluster = j.cluster AND r.slurm_job_id = j.cluster_job_id WHERE j.id IN ($ids)")" = 6 ]; }
wait_for 120 all_done && wait_for 30 all_rows
tap_ok $? "every job ran and was measured ($(q "SELECT cluster || '/' || partition || ' ' || freq_khz, count(*) FROM jobs WHERE id IN ($ids) GROUP BY 1 ORDER BY 1" | tr '\n' ' '))"

# the replay of the minutes since this test began: only its jobs
since=$(awk -v s=$(( $(date +%s) - t0 )) 'BEGIN { printf "%.6f", s / 86400 }')
nice -n 19 "$metasched" simulate --from-db "$MS_PG_REPORT_CONNINFO" -c "$MS_CLUSTERS_CONF" \
    --since "$since" -o "$dtmp/sim" --no-plots > "$dtmp/sim.out" 2>&1
r=$?
tap_ok $r "metasched simulate --from-db (report role) replays the history of the last $since days ($(grep '^workload:' "$dtmp/sim.out"))"

csv=$dtmp/sim/summary.csv
missing=
for p in base min_runtime min_energy ear_min_energy eamc_reorder eamc_priority_inc eamc_priority_inc_v metasched; do
    grep -q "^policy,$p" "$csv" 2>/dev/null || missing="$missing $p"
done
[ -z "$missing" ] && grep -q '^measured,measured,6,6,' "$csv" && grep -q '^as-run,as run: metasched' "$csv" && [ "$(grep -c '^sweep,' "$csv")" -ge 2 ]
tap_ok $? "a row for every policy, the measured one (6 jobs), the policy as run and the weight sweep${missing:+; missing:$missing}"

# the measured row is what job_runs holds of the test's jobs
want=$(q "SELECT sum (coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0)) || ' ' || sum (t.runtime_s) FROM job_run_totals t JOIN jobs j ON j.cluster = t.cluster AND j.cluster_job_id = t.slurm_job_id WHERE j.id IN ($ids)")
got=$(awk -F, '$1 == "measured" { print $12, $16 }' "$csv")
echo "$want $got" | awk '{ exit !($1 > 0 && ($1 - $3) ^ 2 <= (1e-5 * $1) ^ 2 && ($2 - $4) ^ 2 <= 0.1 ^ 2) }'
tap_ok $? "the measured row holds the jobs' measured energy and runtime (job_runs: $want; row: $got)"

# as run against measured
same=$(sed -n 's/.*; \([0-9]*\) jobs on the partition and at the frequency where they ran.*/\1/p' "$dtmp/sim.out")
m=$(awk -F, '$1 == "measured" { print $12, $16, $9 }' "$csv")
a=$(awk -F, '$1 == "as-run" { print $12, $16, $9 }' "$csv")
echo "# measured (energy J, runtime s, response s): $m; as run: $a; placed as they ran: ${same:-0}"
agree="$(grep '^as run against measured' "$dtmp/sim.out" | sed 's/^as run against measured, //')"
if [ "${same:-0}" = 6 ]; then
    # every job placed where it ran: its measured runtime and power, so the
    # row must agree within 1%, and the replay's response lie between the
    # runtime and the measured response plus Slurm's start delays (10 s)
    echo "$m $a" | awk '{ e = ($4 - $1) / $1; r = ($5 - $2) / $2
        exit !($6 >= $5 / 6 - 1e-9 && $6 <= $3 + 10 && e * e <= 1e-4 && r * r <= 1e-4) }'
    tap_ok $? "the policy as run agrees with the measurement: $agree"
else
    # the daemon decided with the live clusters' queues and waits, which the
    # replay does not have: a job it places elsewhere runs by the profile's
    # scaling, and nothing is promised of the sum
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP the replay placed ${same:-0} of 6 jobs where the daemon had placed them (it decides without the live queues); agreement is asserted when all 6 are: $agree"
fi

# the jobs decided before the window: as many as the meta queue holds
# (submitted before the window's first job; at most 32,768), all counted,
# and those of them that started and finished seen to end (the lean)
set -- $(q "SELECT count (*), count (*) FILTER (WHERE started_at IS NOT NULL AND finished_at IS NOT NULL) FROM (SELECT started_at, finished_at FROM jobs WHERE EXISTS (SELECT 1 FROM decisions WHERE job_id = jobs.id) AND submitted_at < (SELECT min (submitted_at) FROM jobs WHERE id IN ($ids)) ORDER BY id DESC LIMIT 32768) AS d" | tr '|' ' ')
want=$1 wseen=$2
line=$(grep '^before the window: ' "$dtmp/sim.out")
set -- $(printf '%s\n' "$line" | sed -n 's/^before the window: \([0-9]*\) jobs metaschedd decided.*, \([0-9]*\) counted first.*, \([0-9]*\) seen to end.*/\1 \2 \3/p')
[ -n "$want" ] && [ "${1:-x}" = "$want" ] && [ "${2:-x}" = "$want" ] && [ "${3:-x}" = "$wseen" ]
tap_ok $? "the replay counts the $want jobs metaschedd decided before its window first, the ${wseen:-?} of them that started and finished seen to end [$line]"
exit $tap_failed
