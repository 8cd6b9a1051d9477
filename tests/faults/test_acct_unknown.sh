#!/bin/sh
# A long outage on a cluster without accounting (doc/daemon.md, "Jobs
# missing from a controller"): MinJobAge=2 on a cluster that runs no
# slurmdbd. As in test_acct_outage.sh, A stops in the middle of its
# dispatch and B runs when metaschedd is killed; both end and are
# forgotten while it is down. Nothing can say how they ended: after the
# restart both are `unknown` (never failed, lost or queued again: A's copy
# ran once), with the reason in msqueue and the API, and their afterok
# dependents wait. `metasched job resolve` is refused to a user (403) and
# for a job that is not unknown (409); the admin resolves A as completed
# (its dependent runs and completes) and B as failed (its dependent is
# cancelled); each resolution has its audit row. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
. "$MS_SRCDIR/tests/faults/acct_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
acct=$(sed -n 's/^TB_ACCT_CLUSTER=//p' "$MS_SRCDIR/testbed/lib.sh")
c=
for x in $MS_CLUSTERS; do [ "$x" != "$acct" ] && { c=$x; break; }; done
[ -n "$c" ] || tap_skip_all "no cluster without accounting on the test bed"
trap 'acct_hold_off; daemon_cleanup; acct_restore' EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
# the cluster's slurmctld may start again (MinJobAge): the services first
tap_services_exclusive
daemon_lock
acct_minjobage "$c" || tap_skip_all "cannot set MinJobAge=2 on $c (see $dtmp/testbed.log)"
tap_plan 11
# generous bounds (seconds) of the waits for the daemon; MS_ACCT_WAIT sets them
W=${MS_ACCT_WAIT:-300}

log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")
daemon_lead
t0=$(date +%s)

msb_job "$u" "$d" acct-run-b "$c" 15 0; b=$job_id
msb_job "$u" "$d" acct-dep-b "$c" 1 0 "afterok:$b"; db=$job_id
wait_for 120 is_state "$b" running
rb=$?
acct_hold_on
msb_job "$u" "$d" acct-hold-a "$c" 1 0; a=$job_id
msb_job "$u" "$d" acct-dep-a "$c" 1 0 "afterok:$a"; da=$job_id
wait_for 120 has_copy "$c" "$a" && wait_for 60 acct_holding
ra=$?
tap_ok "$( { [ -n "$a" ] && [ -n "$b" ] && [ "$rb" = 0 ] && [ "$ra" = 0 ] && is_state "$a" dispatching; }; echo $? )" \
    "B ($b) runs on $c, A ($a) stops mid-dispatch: its copy is there, its row dispatching"
set -- $(copy_on "$c" "$a"); ja=${1:-0}
jb=$(q "SELECT cluster_job_id FROM jobs WHERE id = $b")
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null
acct_hold_off
wait_for 400 gone "$c" "$ja $jb"
tap_ok $? "$c forgot A's copy $ja and B's $jb while the daemon was down"

start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
wait_for $W is_state "$a" unknown; r1=$?
wait_for $W is_state "$b" unknown; r2=$?
tap_ok "$( { [ "$r1" = 0 ] && [ "$r2" = 0 ]; }; echo $? )" \
    "A and B are unknown after the restart (A $(state_of "$a"), B $(state_of "$b"))"
# A's copy ran once: nothing was submitted again
ncopies=$(q "SELECT count (*) FROM job_submissions WHERE job_id = $a")
tap_ok "$( { [ "$ncopies" -le 1 ] && ! has_copy "$c" "$a"; }; echo $? )" \
    "A was not submitted again ($ncopies submissions recorded, none listed on $c)"


# the reason, in the API and msqueue
api_le=$(METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    runuser -u "$u" -- "$MS_BUILDDIR/metasched/msqueue" -j "$a" -o '%.8i %.4t %r' 2>&1)
echo "# msqueue: $(printf '%s' "$api_le" | tr '\n' ' ')"
tap_ok "$(ok_if has "$api_le" "UN .*metasched job resolve")" \
    "msqueue shows A unknown (UN) with the reason"

# the dependents still wait, held, after the daemon's cycles since
waited () { [ "$(q "SELECT count (*) FROM jobs WHERE id IN ($da, $db) AND state = 'queued' AND held IS NOT NULL")" = 2 ]; }
tap_ok "$(ok_if waited)" "the afterok dependents wait, held: $da $(state_of "$da"), $db $(state_of "$db")"

resolve () { METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$metasched" job resolve "$@"; }
out=$(runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    "$metasched" job resolve "$a" --state completed 2>&1); rc=$?
tap_ok "$(ok_if refused "$rc" "$out" 403)" "a user may not resolve a job: $out"
out=$(resolve "$da" --state completed 2>&1); rc=$?
tap_ok "$(ok_if refused "$rc" "$out" 409)" "a job that is not unknown is not resolved: $out"

resolve "$a" --state completed --reason "its output is complete" >/dev/null 2>&1 &&
    resolve "$b" --state failed --exit 2 --reason "no output" >/dev/null 2>&1
rr=$?
wait_for $W is_state "$da" completed; r1=$?
wait_for $W is_state "$db" cancelled; r2=$?
tap_ok "$( { [ "$rr" = 0 ] && is_state "$a" completed && is_state "$b" failed && [ "$r1" = 0 ]; }; echo $? )" \
    "A resolved completed: its dependent $da ran ($(state_of "$da"))"
tap_ok "$( { [ "$r2" = 0 ] && [ "$(q "SELECT exit_code FROM jobs WHERE id = $b")" = 2 ]; }; echo $? )" \
    "B resolved failed with exit 2: its dependent $db is cancelled ($(state_of "$db"): $(q "SELECT last_error FROM jobs WHERE id = $db"))"
tap_ok "$(ok_if [ "$(q "SELECT count (*) FROM job_resolutions WHERE job_id IN ($a, $b) AND admin = 'root'")" = 2 ])" \
    "two audit rows: $(q "SELECT job_id || ' ' || state || ' by ' || admin || ': ' || coalesce (reason, '') FROM job_resolutions WHERE job_id IN ($a, $b)" | tr '\n' ';')"
