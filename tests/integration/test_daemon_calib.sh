#!/bin/sh
# A restarted metaschedd re-reads the jobs it decided before (doc/daemon.md,
# "Calibrated energy odds"): the last 32,768 jobs with a decision go
# through the count each decision makes (the drain price's counts and the
# calibration's fronts), so its energy odds are calibrated from its first
# decision instead of plain until 64 new jobs, and the jobs that started
# and finished give the observed waits that set the odds' lean. 70
# finished jobs of the test user, each with a decision, are written into
# the meta queue; the daemon, started on it, logs how many decided jobs
# it re-read (all of them, the test bed's earlier ones too), how many of
# them had a choice, how many it saw end (as many as the queue has), the
# waits' share of their response and the lean it gives (from
# cal_lean_idle where no job waits to cal_lean at 3%), and the calibrated
# scale of its odds; a job submitted then is decided with those odds, and
# once it has ended the daemon's what-if answer counts it among the jobs
# seen to end. Without the 70 (the rows removed, the daemon restarted) it
# re-reads the others and says which odds it has. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

calib_cleanup () {
    q "DELETE FROM jobs WHERE name LIKE 'msd-calhist-%'" >/dev/null 2>&1
    daemon_cleanup
}
trap calib_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 7

u=$MS_TEST_USER
uid=$(id -u "$u") gid=$(id -g "$u")
set -- $(q "SELECT cluster || ' ' || name FROM partitions ORDER BY cluster, name LIMIT 1")
pc=$1 pp=$2
# 70 finished jobs of 1 to 2 nodes and 10 to 79 minutes, decided two
# hours ago, that waited 0 to 2 minutes and ran 5 to 39.5 minutes; every
# seventh asked to begin 20 minutes after its submission (--begin), and
# its wait counts from then
q "DELETE FROM jobs WHERE name LIKE 'msd-calhist-%'" >/dev/null
out=$(q "WITH j AS (INSERT INTO jobs (owner_uid, owner_gid, owner_name, name,
             script, state, cluster, partition, cluster_job_id, nodes,
             time_limit_min, user_time_limit_min, submitted_at, started_at,
             finished_at, options)
         SELECT $uid, $gid, '$u', 'msd-calhist-' || g, E'#!/bin/sh\ntrue\n',
             'completed', '$pc', '$pp', 900000 + g, 1 + g % 2, 10 + g, 10 + g,
             now () - interval '2 hours',
             now () - interval '2 hours' + (g % 3) * interval '1 minute'
                 + (g % 7 = 0)::int * interval '20 minutes',
             now () - interval '2 hours' + (g % 3) * interval '1 minute'
                 + (g % 7 = 0)::int * interval '20 minutes'
                 + (10 + g) * interval '30 seconds',
             CASE WHEN g % 7 = 0 THEN jsonb_build_object ('begin_time',
                 extract (epoch FROM now () - interval '100 minutes')::bigint)
             ELSE '{}' END
         FROM generate_series (1, 70) g RETURNING id)
     INSERT INTO decisions (job_id, decided_at, policy, cluster, partition,
             freq_khz, candidates)
         SELECT id, now () - interval '1 hour', 'metasched', '$pc', '$pp',
             1000000, '[]' FROM j" 2>&1)
n=$(q "SELECT count (*) FROM jobs WHERE EXISTS (SELECT 1 FROM decisions WHERE job_id = jobs.id)")
nh=$(q "SELECT count (*) FROM jobs WHERE name LIKE 'msd-calhist-%'")
[ "$nh" = 70 ]
tap_ok $? "70 decided jobs written into the meta queue ($nh; $n decided jobs in all) ${out}"

log=$dtmp/msd.log
daemon_lead
wait_for 20 grep -q 'calibration: ' "$log"
line=$(grep 'calibration: ' "$log" | tail -1)
set -- $(printf '%s\n' "$line" | sed -n 's/.*calibration: \([0-9]*\) of \([0-9]*\) decided jobs re-read, \([0-9]*\) with a choice kept.*/\1 \2 \3/p')
used=${1:-0} all=${2:-0} kept=${3:-0}
[ "$all" = "$n" ] && [ "$used" -ge 70 ] && [ "$used" -le "$all" ]
tap_ok $? "the daemon re-read the decided jobs at its start: $used of $all (the queue has $n) [$line]"
[ "$kept" -ge 64 ] && printf '%s\n' "$line" | grep -q 'energy odds times [0-9.e+-]*$' &&
    awk -v s="$(printf '%s\n' "$line" | sed -n 's/.*energy odds times //p')" 'BEGIN { exit !(s + 0 > 0) }'
tap_ok $? "with $kept of them kept (64 or more) its energy odds are calibrated before its first decision [$line]"

# the jobs seen to end: every decided one that started (after it was
# submitted and its --begin) and finished
ended_rows="FROM jobs WHERE EXISTS (SELECT 1 FROM decisions WHERE job_id = jobs.id)
    AND started_at >= greatest (submitted_at, coalesce (
        to_timestamp ((options->>'begin_time')::float8), submitted_at))
    AND finished_at >= started_at"
ne=$(q "SELECT count (*) $ended_rows")
set -- $(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) seen to end (waits \([0-9.e+-]*\)% of their response: lean \([0-9.e+-]*\)).*/\1 \2 \3/p')
hi=$(cfg_value cal_lean 1.2) lo=$(cfg_value cal_lean_idle 0.95)
# the waits' share as the daemon counts it: oldest first, each job's weight
# 1 - 1/8192 less than the next one's; a wait from the job's --begin
share=$(q "SELECT 100 * sum (k * w) / sum (k * (w + r)) FROM (SELECT
    power (1 - 1.0 / 8192, row_number () OVER (ORDER BY id DESC) - 1) AS k,
    extract (epoch FROM started_at - greatest (submitted_at, coalesce (
        to_timestamp ((options->>'begin_time')::float8), submitted_at))) AS w,
    extract (epoch FROM finished_at - started_at) AS r
    $ended_rows) AS o")
[ "${1:-x}" = "$ne" ] && [ "$ne" -ge 70 ] &&
    awk -v q="${2:-x}" -v l="${3:-x}" -v hi="$hi" -v lo="$lo" -v s="$share" 'BEGIN {
        f = q / 3; if (f > 1) f = 1; w = lo + (hi - lo) * f
        # the log prints 3 significant digits: within half of the third
        u = exp (log (10) * (int (log (s) / log (10) + 100) - 102))
        exit !(q + 0 > 0 && l - w < 0.001 && w - l < 0.001 &&
               (q - s) * (q - s) <= (0.51 * u) * (0.51 * u)) }'
tap_ok $? "it saw the $ne decided jobs that started and finished end (${1:-?}), waiting ${2:-?}% of their response (the queue's rows: ${share:-?}%): lean ${3:-?} [$line]"

d=$(job_dir "$u")
msb_sleep "$u" "$d" calib 1; id=$job_id
decided () { [ -n "$(q "SELECT 1 FROM decisions WHERE job_id = ${id:-0}")" ]; }
wait_for 30 decided
tap_ok $? "a job submitted then is decided (job ${id:-?}: $(q "SELECT cluster || '/' || partition || ' ' || freq_khz FROM decisions WHERE job_id = ${id:-0}" | tr '\n' ' '))"

# that job's end is seen as it happens: the what-if answer says with which
# odds the daemon chooses and how many jobs it has seen end, one more
# (at least: any other job that ends counts too) than at its start
seen_now () {
    sn=$(msb "$u" "$d" --test-only calib.sh 2>&1 | sed -n 's/.*; \([0-9]*\) jobs seen to end.*/\1/p')
    [ -n "$sn" ] && [ "$sn" -gt "${ne:-0}" ]
}
job_done () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 60 job_done && wait_for 30 seen_now
tap_ok $? "the daemon saw job ${id:-?} end ($(q "SELECT state FROM jobs WHERE id = ${id:-0}")): ${sn:-?} jobs seen to end against $ne at its start [$(msb "$u" "$d" --test-only calib.sh 2>&1 | grep '^energy odds')]"

# without the 70: the daemon restarted re-reads only the others
kill "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null
q "DELETE FROM jobs WHERE name LIKE 'msd-calhist-%'" >/dev/null
n2=$(q "SELECT count (*) FROM jobs WHERE EXISTS (SELECT 1 FROM decisions WHERE job_id = jobs.id)")
: > "$log"
daemon_lead
wait_for 20 grep -q 'calibration: ' "$log"
line=$(grep 'calibration: ' "$log" | tail -1)
all2=$(printf '%s\n' "$line" | sed -n 's/.*calibration: [0-9]* of \([0-9]*\) decided jobs.*/\1/p')
[ "${all2:-x}" = "$n2" ]
tap_ok $? "restarted without them it re-reads the $n2 decided jobs left [$line]"
exit $tap_failed
