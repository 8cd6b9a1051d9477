#!/bin/sh
# Sibling mode sends a copy ahead (doc/daemon.md, sibling_ahead): with
# every partition of every cluster full of a long blocker job (submitted
# to Slurm directly, so the daemon's view sees it running until its
# limit), a meta job goes out as two copies, the second at a sibling's
# nice (over 0). Then the blocker of that second copy's partition is
# cancelled: the next such job's second copy, on the now idle partition,
# would end before the first choice's blocker ends, and goes at nice 0
# with no begin time. With sibling_ahead = 0 the same job's second copy
# keeps a sibling's nice. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

ahead_cleanup () {
    # shellcheck disable=SC2086
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    for c in $MS_CLUSTERS; do
        on_cluster "$c" scancel -n msd-block 2>/dev/null
    done
    daemon_cleanup
}
trap ahead_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 7

log=$dtmp/msd.log
daemon_lead

restore=$(settings_now dispatch_mode siblings max_slowdown sibling_hold sibling_ahead)
# a wide slowdown cap, so that every job has a second candidate to go to
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 sibling_hold=1 sibling_ahead=0.25 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2, max_slowdown=100, sibling_hold=1, sibling_ahead=0.25 ($out)"

# every partition full for 20 minutes (as root; cancelled at the end)
nblock=$(block_all msd-block)
wait_for 60 all_full
tap_ok $? "every node of every cluster is busy: $nblock blocker jobs"
daemon_readings 3 # readings of every cluster begun after the blockers: the daemon's view has them
daemon_cycles 1

u=$MS_TEST_USER
d=$(job_dir "$u")
msb_sleep "$u" "$d" ahead 5; out=$job_out id=$job_id
if ! wait_for 30 two_copies "${id:-0}"; then
    tap_skip 5 "job ${id:-?} got one copy: no other candidate within the policy's reach this run ($out)"
    exit $tap_failed
fi
set -- $(copy_at "$id" 0); c0=$1 p0=$2
set -- $(copy_at "$id" 1); c1=$1 p1=$2 n1=$4
[ "${n1:-0}" -gt 0 ]
tap_ok $? "with every partition busy, job $id's second copy ($c1/$p1) has a sibling's nice ($n1); first choice $c0/$p0"
cancel_meta "$u" "$d" "$id"

# the second copy's partition idle again; the first choice's stays busy
on_cluster "$c1" scancel -n msd-block -p "$p1" 2>/dev/null
wait_for 60 part_idle "$c1" "$p1"
tap_ok $? "$c1/$p1 is idle again, $c0/$p0 still runs its blocker"
daemon_readings 3 # readings of every cluster begun since: the daemon's view has it
daemon_cycles 1

out=$(msb "$u" "$d" ahead.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
if copies_on "$id2" "$c0" "$p0" "$c1" "$p1"; then
    set -- $(copy_at "$id2" 1); j1=$3 n1=$4
    [ "$n1" = 0 ] && ! held "$c1" "$j1"
    tap_ok $? "job $id2's second copy on the idle $c1/$p1 goes ahead: nice ${n1:-?}, not held ($(jtimes "$c1" "$j1")); candidates: $(q "SELECT candidates FROM decisions WHERE job_id = $id2 ORDER BY id DESC LIMIT 1" | head -c 400)"
    cancel_meta "$u" "$d" "$id2"
else
    tap_skip 1 "job ${id2:-?} went out as $(copies_where "$id2"), not first $c0/$p0 and then $c1/$p1: the ranking moved with the idle partition this run"
    cancel_meta "$u" "$d" "${id2:-0}"
fi

out=$(cfg set sibling_ahead=0 2>&1)
tap_ok $? "an admin sets sibling_ahead=0 ($out)"
daemon_cycles 2 # a whole cycle since: the daemon runs with the setting
wait_for 60 part_idle "$c1" "$p1"
out=$(msb "$u" "$d" ahead.sh 2>&1); id3=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
if wait_for 30 two_copies "${id3:-0}" &&
    [ "$(copy_at "$id3" 1 | cut -d' ' -f1-2)" = "$c1 $p1" ]; then
    set -- $(copy_at "$id3" 1); n1=$4
    [ "${n1:-0}" -gt 0 ]
    tap_ok $? "with sibling_ahead=0 job $id3's second copy on the idle $c1/$p1 keeps a sibling's nice ($n1)"
else
    tap_skip 1 "job ${id3:-?} went out as $(copies_where "$id3") this run"
fi
exit $tap_failed
