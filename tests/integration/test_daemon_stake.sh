#!/bin/sh
# Sibling mode holds a copy on an idle partition when its job has a stake
# in its first choice (doc/daemon.md, stake_margin): with every partition
# of every cluster full of a blocker job (submitted to Slurm directly, so
# the daemon's view sees it running until its limit), a meta job goes out
# as two copies. The blocker of the second copy's partition is then
# cancelled. With a stake margin of 0.01 (any loss outweighs a hundredth
# of the first choice's predicted wait) the next such job's second copy,
# on the now idle partition, is submitted with a begin time, until the
# first choice's predicted wait (its blocker's limit) has passed: Slurm
# shows its EligibleTime after its SubmitTime. With stake_margin = 0 the
# same job's second copy has no begin time (an idle partition holds no
# sibling back). TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

stake_cleanup () {
    # shellcheck disable=SC2086
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    for c in $MS_CLUSTERS; do
        on_cluster "$c" scancel -n msd-block 2>/dev/null
    done
    daemon_cleanup
}
trap stake_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 7

log=$dtmp/msd.log
daemon_lead

restore=$(settings_now dispatch_mode siblings max_slowdown sibling_hold sibling_ahead stake_margin)
# a wide slowdown cap, so that every job has a second candidate to go to;
# no copy ahead, so that only the stake decides the idle partition's hold
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 sibling_hold=1 sibling_ahead=0 stake_margin=0.01 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2, max_slowdown=100, sibling_hold=1, sibling_ahead=0, stake_margin=0.01 ($out)"

# every partition full for 20 minutes (as root; cancelled at the end)
nblock=$(block_all msd-block)
wait_for 60 all_full
tap_ok $? "every node of every cluster is busy: $nblock blocker jobs"
daemon_readings 3 # readings of every cluster begun after the blockers: the daemon's view has them
daemon_cycles 1

u=$MS_TEST_USER
d=$(job_dir "$u")
msb_sleep "$u" "$d" stake 5; out=$job_out id=$job_id
if ! wait_for 30 two_copies "${id:-0}"; then
    tap_skip 5 "job ${id:-?} got one copy: no other candidate within the policy's reach this run ($out)"
    exit $tap_failed
fi
set -- $(copy_at "$id" 0); c0=$1 p0=$2
set -- $(copy_at "$id" 1); c1=$1 p1=$2
tap_ok 0 "job $id went out as two copies: first choice $c0/$p0, then $c1/$p1"
cancel_meta "$u" "$d" "$id"

# the second copy's partition idle again; the first choice's stays busy
on_cluster "$c1" scancel -n msd-block -p "$p1" 2>/dev/null
wait_for 60 part_idle "$c1" "$p1"
tap_ok $? "$c1/$p1 is idle again, $c0/$p0 still runs its blocker"
daemon_readings 3 # readings of every cluster begun since: the daemon's view has it
daemon_cycles 1


out=$(msb "$u" "$d" stake.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
if copies_on "$id2" "$c0" "$p0" "$c1" "$p1"; then
    set -- $(copy_at "$id2" 1); j1=$3
    held "$c1" "$j1"
    tap_ok $? "job $id2's second copy on the idle $c1/$p1 waits for its first choice: held ($(jtimes "$c1" "$j1")); candidates: $(q "SELECT candidates FROM decisions WHERE job_id = $id2 ORDER BY id DESC LIMIT 1" | head -c 400)"
else
    tap_skip 1 "job ${id2:-?} went out as $(copies_where "$id2"), not first $c0/$p0 and then $c1/$p1: the ranking moved with the idle partition this run"
fi
cancel_meta "$u" "$d" "${id2:-0}"

out=$(cfg set stake_margin=0 2>&1)
tap_ok $? "an admin sets stake_margin=0 ($out)"
daemon_cycles 2 # a whole cycle since: the daemon runs with the setting
wait_for 60 part_idle "$c1" "$p1"
out=$(msb "$u" "$d" stake.sh 2>&1); id3=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
if copies_on "$id3" "$c0" "$p0" "$c1" "$p1"; then
    set -- $(copy_at "$id3" 1); j1=$3
    ! held "$c1" "$j1"
    tap_ok $? "with stake_margin=0 job $id3's second copy on the idle $c1/$p1 is not held ($(jtimes "$c1" "$j1"))"
else
    tap_skip 1 "job ${id3:-?} went out as $(copies_where "$id3") this run"
fi
cancel_meta "$u" "$d" "${id3:-0}"
exit $tap_failed
