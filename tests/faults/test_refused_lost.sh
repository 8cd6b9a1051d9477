#!/bin/sh
# Copies that ended unclaimed and that their clusters forgot (doc/daemon.md,
# "Refused copies"), on the test bed in sibling mode with MinJobAge=2 on
# every cluster. A job goes out as two gated copies, both held back by busy
# partitions; metaschedd is killed (SIGKILL), then both copies start: their
# start gates cannot reach the API and refuse (exit 75), and the clusters
# forget both before the daemon is back. After the restart neither copy is
# known to its cluster and none claimed the job, so none ran the script:
# each is recorded lost, an end of its own, and the dispatch was refused:
# the job is queued again (not left submitted for ever, not failed, not
# cancelled), routed anew, and runs exactly once. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
. "$MS_SRCDIR/tests/faults/acct_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

rl_cleanup () {
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    for c in $MS_CLUSTERS; do on_cluster "$c" scancel -n msd-rlblk 2>/dev/null; done
    daemon_cleanup
    acct_restore
}
trap rl_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
# the clusters' slurmctld may start again (MinJobAge): the services first
tap_services_exclusive
daemon_lock
# shellcheck disable=SC2086
acct_minjobage $MS_CLUSTERS || tap_skip_all "cannot set MinJobAge=2 (see $dtmp/testbed.log)"
tap_plan 6
W=${MS_ACCT_WAIT:-300}

log=$dtmp/msd.log
daemon_lead "gate_wait_s = 3"
restore=$(settings_now dispatch_mode siblings max_slowdown sibling_hold stake_margin)
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 sibling_hold=0 stake_margin=0 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2 ($out)"

u=$MS_TEST_USER
d=$(job_dir "$u")
touch "$d/ran.log" && chown "$u" "$d/ran.log"
cat > "$d/lost.sh" <<EOS
#!/bin/sh
#SBATCH -t 5
#SBATCH -J msd-rlost
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME \$SLURM_JOB_ID" >> $d/ran.log
EOS
chmod 755 "$d/lost.sh"

nb=$(block_all msd-rlblk)
wait_for 60 all_full
out=$(msb "$u" "$d" lost.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
wait_for 60 two_copies "${id:-0}"; r=$?
read -r ac aj _ <<EOF
$(copy_of "${id:-0}" 0)
EOF
read -r bc bj _ <<EOF
$(copy_of "${id:-0}" 1)
EOF
[ $r = 0 ] && [ "$(q "SELECT bool_and (gated) FROM job_submissions WHERE job_id = ${id:-0}")" = t ]
tap_ok $? "job ${id:-?} went out as two gated copies, $ac job $aj and $bc job $bj, behind $nb blockers ($out)"

# the daemon gone; both copies start, their gates refuse, the clusters forget
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null
for c in $MS_CLUSTERS; do on_cluster "$c" scancel -n msd-rlblk 2>/dev/null; done
wait_for 400 gone "$ac" "$aj" && wait_for 400 gone "$bc" "$bj"
tap_ok $? "both copies ended while the daemon was down and $ac, $bc forgot them ($ac job $aj, $bc job $bj)"

start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
sub_state () { q "SELECT state FROM job_submissions WHERE cluster = '$1' AND cluster_job_id = $2"; }
again () { [ "$(q "SELECT CASE WHEN attempts >= 2 OR refusals >= 1 THEN 1 ELSE 0 END FROM jobs WHERE id = ${id:-0}")" = 1 ]; }
over () { case "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" in completed | failed | cancelled | lost | unknown) return 0 ;; esac; return 1; }
wait_for "$W" again || wait_for 10 over
why=$(grep "job ${id:-0}: no copy ran the job" "$log" | head -1)
[ "$(sub_state "$ac" "$aj")" = lost ] && [ "$(sub_state "$bc" "$bj")" = lost ]
tap_ok $? "each forgotten unclaimed copy is recorded lost ($(sub_state "$ac" "$aj"), $(sub_state "$bc" "$bj"))"
again && printf '%s' "$why" | grep -q "no copy ran the job: 0 refused by the start gate, 0 ended before a claim, 2 lost .*; queued again"
tap_ok $? "the dispatch counts as refused: the job is routed again ($(q "SELECT state || ' attempts ' || attempts || ' refusals ' || refusals FROM jobs WHERE id = ${id:-0}"): $why)"

wait_for "$W" over
st=$(q "SELECT state FROM jobs WHERE id = ${id:-0}")
runs=$(grep -c "^$id " "$d/ran.log")
[ "$st" = completed ] && [ "$runs" = 1 ]
tap_ok $? "job ${id:-?} completes, its script run once ($st, $runs runs: $(grep "^$id " "$d/ran.log" | tr '\n' ' '))"
