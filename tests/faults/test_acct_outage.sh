#!/bin/sh
# A long outage on a cluster with accounting (doc/daemon.md, "Jobs missing
# from a controller"): MinJobAge=2 on the test bed's accounting cluster.
# Two jobs end while metaschedd is down (SIGKILL), and the cluster forgets
# them before it is back:
#  - A was in the middle of its dispatch: the cluster took its copy, the
#    commit of "submitted" never came (a trigger of the test holds it until
#    the kill), so the row is left dispatching;
#  - B was running.
# After the restart each ran exactly once (the cluster's accounting holds
# one record of each tag) and is completed with Slurm's exit code, taken
# from the accounting; their afterok dependents run. Two forged records in
# the accounting claim A (another user's job with A's copied tag, and the
# owner's own job with a tag whose MAC does not verify): neither is
# adopted. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
. "$MS_SRCDIR/tests/faults/acct_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
c=$(sed -n 's/^TB_ACCT_CLUSTER=//p' "$MS_SRCDIR/testbed/lib.sh")
[ -n "$c" ] && on_cluster "$c" sacctmgr -n show cluster "$c" 2>/dev/null | grep -q "$c" \
    || tap_skip_all "the test bed's cluster ${c:-?} runs no slurmdbd"
trap 'acct_hold_off; daemon_cleanup; acct_restore' EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
# the cluster's slurmctld may start again (MinJobAge): the services first
tap_services_exclusive
daemon_lock
acct_minjobage "$c" || tap_skip_all "cannot set MinJobAge=2 on $c (see $dtmp/testbed.log)"
tap_plan 10
# generous bounds (seconds) of the waits for the daemon; MS_ACCT_WAIT sets them
W=${MS_ACCT_WAIT:-300}

log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")
d2=$(job_dir "$MS_TEST_USER2")
daemon_lead
t0=$(date +%s)

# B runs, with its dependent; then A stops in the middle of its dispatch
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
set -- $(copy_on "$c" "$a"); ja=${1:-0} taga=${2:-}
jb=$(q "SELECT cluster_job_id FROM jobs WHERE id = $b")
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null
acct_hold_off

# the forgeries: msuser2's job with A's tag, the owner's own with a bad MAC
f1=$(cd "$d2" && runuser -u "$MS_TEST_USER2" -- sh -c "$(printf 'SLURM_CONF=%s %s' "$(getv "MS_$(upper "$c")_CONF")" "$(slurm_cmd "$c" sbatch)") --parsable -t 1 -o /dev/null --comment='$taga' --wrap 'exit 3'" 2>&1 | cut -d';' -f1)
f2=$(cd "$d" && runuser -u "$u" -- sh -c "$(printf 'SLURM_CONF=%s %s' "$(getv "MS_$(upper "$c")_CONF")" "$(slurm_cmd "$c" sbatch)") --parsable -t 1 -o /dev/null --comment='metasched:$a:1.0:00000000000000000000000000000000' --wrap 'exit 4'" 2>&1 | cut -d';' -f1)
echo "# forged records: $MS_TEST_USER2's $f1 ($taga), $u's $f2"

# everything ends and is forgotten while the daemon is down
wait_for 400 gone "$c" "$ja $jb $f1 $f2"
tap_ok $? "$c forgot A's copy $ja, B's $jb and the forgeries $f1 $f2 while the daemon was down"

start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
wait_for $W is_state "$a" completed
tap_ok $? "A is completed after the restart ($(state_of "$a"): $(q "SELECT last_error FROM jobs WHERE id = $a"))"
wait_for $W is_state "$b" completed
tap_ok $? "B is completed after the restart ($(state_of "$b"): $(q "SELECT last_error FROM jobs WHERE id = $b"))"

# Slurm's exit codes, as its accounting recorded them
acct_exit () { on_cluster "$c" sacct -n -X -j "$1" -o ExitCode 2>/dev/null | head -1 | tr -d ' ' | cut -d: -f1; }
ea=$(q "SELECT exit_code FROM jobs WHERE id = $a") eb=$(q "SELECT exit_code FROM jobs WHERE id = $b")
sa=$(acct_exit "$ja") sb=$(acct_exit "$jb")
[ -n "$sa" ] && [ "$ea" = "$sa" ] && [ -n "$sb" ] && [ "$eb" = "$sb" ]
tap_ok $? \
    "exit codes as Slurm's accounting: A $ea ($sa), B $eb ($sb)"
tap_ok "$(ok_if [ "$(q "SELECT cluster || ' ' || cluster_job_id FROM jobs WHERE id = $a")" = "$c $ja" ])" \
    "A's row names its copy $c $ja, adopted ($(q "SELECT cluster || ' ' || cluster_job_id FROM jobs WHERE id = $a"))"

# ran exactly once: the owner's records tagged for each, the forged MAC aside
wait_for $W is_state "$da" completed; rda=$?
wait_for $W is_state "$db" completed; rdb=$?
since=$(date -d "@$((t0 - 60))" +%Y-%m-%dT%H:%M:%S)
runs () {
    on_cluster "$c" sacct -n -X -a -u "$u" -S "$since" -o JobID,Comment%120 2>/dev/null \
        | awk -v t="metasched:$1:" 'index ($2, t) == 1 && $2 !~ /:0000000000/' | wc -l
}
tap_ok "$( { [ "$(runs "$a")" = 1 ] && [ "$(runs "$b")" = 1 ]; }; echo $? )" \
    "each ran once on $c (accounting: A $(runs "$a"), B $(runs "$b") records)"
tap_ok "$( { [ "$rda" = 0 ] && [ "$rdb" = 0 ]; }; echo $? )" \
    "the afterok dependents ran: $da $(state_of "$da"), $db $(state_of "$db")"

tap_ok "$(ok_if [ "$(q "SELECT count (*) FROM job_submissions WHERE cluster = '$c' AND cluster_job_id IN (${f1:-0}, ${f2:-0})")" = 0 ])" \
    "neither forged record ($f1, $f2) is adopted or recorded"
tap_ok "$(ok_if grep -q "forged tag in accounting: $c job $f1 of user $MS_TEST_USER2" "$log")" \
    "the copied tag on $MS_TEST_USER2's job is logged as a forgery"
