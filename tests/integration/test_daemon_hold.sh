#!/bin/sh
# Sibling mode holds a copy back on a busy partition (doc/daemon.md,
# sibling_hold): with every partition of every cluster full of a long
# blocker job (submitted to Slurm directly, so the daemon's view sees it
# running until its limit), a meta job goes out as two copies, and the
# copy after the first choice, on a partition whose running blocker keeps
# its nodes far over half the job's runtime there, is submitted with a
# begin time: Slurm
# shows its EligibleTime after its SubmitTime. The first choice is not
# held. With sibling_hold = 0 the next job's second copy has no begin
# time. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

hold_cleanup () {
    [ -n "${restore:-}" ] && cfg set dispatch_mode=single "siblings=$restore" \
        "max_slowdown=$restore_sd" "sibling_hold=$restore_h" >/dev/null 2>&1
    for c in $MS_CLUSTERS; do
        on_cluster "$c" scancel -n msd-block 2>/dev/null
    done
    daemon_cleanup
}
trap hold_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 6

log=$dtmp/msd.log
daemon_lead

restore_sd=$(cfg_value max_slowdown 1.3)
restore=$(cfg_value siblings 2)
restore_h=$(cfg_value sibling_hold 1)
# a wide slowdown cap, so that every job has a second candidate to go to
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 sibling_hold=1 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2, max_slowdown=100, sibling_hold=1 ($out)"

# every partition full for 20 minutes (as root; cancelled at the end)
nblock=$(block_all msd-block)
wait_for 60 all_full
tap_ok $? "every node of every cluster is busy: $nblock blocker jobs ($(for c in $MS_CLUSTERS; do on_cluster "$c" squeue -h -n msd-block -o "$c/%P:%T" 2>/dev/null; done | tr '\n' ' '))"
daemon_readings 3 # readings of every cluster begun after the blockers: the daemon's view has them
daemon_cycles 1

u=$MS_TEST_USER
d=$(job_dir "$u")
msb_sleep "$u" "$d" hold 10; out=$job_out id=$job_id
wait_for 30 two_copies "${id:-0}"; r=$?
if [ $r != 0 ] && [ "$(q "SELECT count(*) FROM job_submissions WHERE job_id = ${id:-0}")" = 1 ]; then
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP job ${id:-?} got one copy: no other candidate within the policy's reach this run"
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP (no second copy to hold)"
else
    tap_ok $r "job $id went out as two copies ($(q "SELECT cluster, partition, cluster_job_id, rank FROM job_submissions WHERE job_id = ${id:-0} ORDER BY rank" | tr '\n' ' '))"
    set -- $(copy_of "$id" 0); c0=$1 j0=$2
    set -- $(copy_of "$id" 1); c1=$1 j1=$2
    held "$c1" "$j1" && ! held "$c0" "$j0"
    tap_ok $? "the second copy is held ($c1/$j1: $(jtimes "$c1" "$j1")), the first choice is not ($c0/$j0: $(jtimes "$c0" "$j0")); candidates: $(q "SELECT candidates FROM decisions WHERE job_id = $id ORDER BY id DESC LIMIT 1" | head -c 600)"
fi

out=$(cfg set sibling_hold=0 2>&1)
tap_ok $? "an admin sets sibling_hold=0 ($out)"
daemon_cycles 2 # a whole cycle since: the daemon runs with the setting
out=$(msb "$u" "$d" hold.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
if wait_for 30 two_copies "${id2:-0}"; then
    set -- $(copy_of "$id2" 1); c1=$1 j1=$2
    ! held "$c1" "$j1"
    tap_ok $? "with sibling_hold=0 job $id2's second copy has no begin time ($c1/$j1: $(jtimes "$c1" "$j1"))"
else
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP job ${id2:-?} got one copy this run"
fi
exit $tap_failed
