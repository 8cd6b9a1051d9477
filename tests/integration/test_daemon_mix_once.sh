#!/bin/sh
# metaschedd counts a job in its job mix once (doc/daemon.md, "The job mix
# counts a job once"). A job held under a power budget is decided again at
# every cycle, yet the jobs counted (/metrics metaschedd_jobmix_jobs) grow
# by one for it, and the daemon remembers it among the counted jobs in the
# queue (metaschedd_jobmix_queued). Restarted with the job given a decision
# row (as a job queued again after a failed submit has one), the daemon
# counts it with the history it re-reads and not again when it decides it
# at each cycle. With the budget lifted the job goes out and ends without
# being counted again, and the daemon forgets it. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

trap 'cfg set power_budget=none >/dev/null 2>&1; daemon_cleanup' EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 4

log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")
metric () {
    curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics 2>/dev/null |
        sed -n "s/^$1 //p"
}
state () { q "SELECT state FROM jobs WHERE id = ${1:-0}"; }
why () { q "SELECT last_error FROM jobs WHERE id = ${1:-0}"; }
held_by_budget () { case $(why "$1") in "power budget: "*) true ;; *) false ;; esac; }
set -- $(q "SELECT cluster || ' ' || name FROM partitions ORDER BY cluster, name LIMIT 1")
pc=$1 pp=$2

# 1: under a budget that nothing fits, a new job waits in the meta queue
daemon_lead
cfg set "power_budget=site 1 W" >/dev/null 2>&1
daemon_cycles 2
j0=$(metric metaschedd_jobmix_jobs)
msb_sleep "$u" "$d" mixonce 1
id=$job_id
wait_for 60 held_by_budget "$id"
tap_ok $? "job ${id:-?} waits under the budget ($(state "$id"): $(why "$id"))"

# 2: decided again at each cycle, counted once
dec0=$(metric metaschedd_decisions_total)
daemon_cycles 6
j1=$(metric metaschedd_jobmix_jobs) dec1=$(metric metaschedd_decisions_total)
q1=$(metric metaschedd_jobmix_queued)
[ "$(state "$id")" = queued ] && [ -n "$j0" ] && [ "${j1:-x}" = $((j0 + 1)) ] &&
    [ "${dec1:-0}" -ge $((${dec0:-0} + 5)) ] && [ "${q1:-0}" -ge 1 ]
tap_ok $? "decided $((${dec1:-0} - ${dec0:-0})) more times while it waits, it is counted once: ${j0:-?} jobs in the mix before it, ${j1:-?} after (${q1:-?} counted in the queue)"

# 3: restarted, the job has a decision (as one queued again after a failed
# submit): counted with the history re-read, not again at its decisions
kill "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null
q "INSERT INTO decisions (job_id, decided_at, policy, cluster, partition,
       freq_khz, candidates)
   VALUES (${id:-0}, now (), 'metasched', '$pc', '$pp', 1000000, '[]')" >/dev/null
: > "$log"
daemon_lead
wait_for 20 grep -q 'calibration: ' "$log"
used=$(sed -n 's/.*calibration: \([0-9]*\) of [0-9]* decided jobs re-read.*/\1/p' "$log" | tail -1)
dec0=$(metric metaschedd_decisions_total)
daemon_cycles 6
j2=$(metric metaschedd_jobmix_jobs) dec2=$(metric metaschedd_decisions_total)
[ "$(state "$id")" = queued ] && [ -n "$used" ] && [ "${j2:-x}" = "$used" ] &&
    [ "${dec2:-0}" -ge $((${dec0:-0} + 5)) ]
tap_ok $? "restarted, it re-read $used decided jobs (job ${id:-?} among them) and decided it $((${dec2:-0} - ${dec0:-0})) more times: ${j2:-?} jobs in the mix"

# 4: the budget lifted, it goes out and ends, counted no more; the daemon
# forgets it once it has left the queue
q2=$(metric metaschedd_jobmix_queued)
cfg set power_budget=none >/dev/null 2>&1
done_ () { [ "$(state "$id")" = completed ]; }
wait_for 120 done_
daemon_cycles 3
j3=$(metric metaschedd_jobmix_jobs) q3=$(metric metaschedd_jobmix_queued)
[ "$(state "$id")" = completed ] && [ "${j3:-x}" = "${used:-y}" ] &&
    [ "${q3:-x}" -lt "${q2:-0}" ]
tap_ok $? "job ${id:-?} went out and ended ($(state "$id")): ${j3:-?} jobs in the mix; counted jobs in the queue ${q2:-?} before, ${q3:-?} after"
exit $tap_failed
