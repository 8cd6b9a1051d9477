#!/bin/sh
# Re-routing keeps a job's rules, on the test bed: a job asking 8 GB a
# node (beta's nodes have 16 GB, alpha's 4 and gamma's 2) waiting on a
# full beta is never cancelled to go to alpha or gamma, which start jobs at
# once but may not run it, however long it waits past reroute_after_s: one
# submission, no re-route, and it runs on beta once beta frees. Before the
# re-route took the job's placement rules, such a job was cancelled and
# queued again every reroute_after_s (max_reroutes times) for nothing.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

rr_cleanup () {
    [ -n "${restore:-}" ] && cfg set "reroute_after_s=$restore" "max_slowdown=$restore_sd" >/dev/null 2>&1
    daemon_cleanup
}
trap rr_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 5

log=$dtmp/msd.log
daemon_lead

restore_sd=$(cfg_value max_slowdown 1.3)
restore=$(cfg_value reroute_after_s 600)
# a wide slowdown cap, so that alpha and gamma are candidates the job
# would go to if its rules did not keep it off them
out=$(cfg set dispatch_mode=single reroute_after_s=2 max_reroutes=2 max_slowdown=100 2>&1)
tap_ok $? "an admin sets reroute_after_s=2, max_reroutes=2, max_slowdown=100 ($out)"

u=$MS_TEST_USER
d=$(job_dir "$u")
cat > "$d/fill.sh" <<'EOS'
#!/bin/sh
#SBATCH -N 3
#SBATCH -t 60
#SBATCH --mem=8G
#SBATCH --exclusive
#SBATCH -J msd-fill
sleep 90
EOS
cat > "$d/wait.sh" <<'EOS'
#!/bin/sh
#SBATCH -N 1
#SBATCH -t 5
#SBATCH --mem=8G
#SBATCH -J msd-wait
echo "on $SLURM_CLUSTER_NAME"
EOS
chmod 755 "$d/fill.sh" "$d/wait.sh"
idof () { printf '%s' "$1" | grep -o '[0-9][0-9]*$'; }
fill=$(idof "$(msb "$u" "$d" fill.sh 2>&1)")
running () { [ "$(q "SELECT state || cluster FROM jobs WHERE id = ${fill:-0}")" = runningbeta ]; }
wait_for 60 running
tap_ok $? "a job of 8 GB a node takes all three of beta's nodes ($(q "SELECT id, state, cluster FROM jobs WHERE id = ${fill:-0}"))"

id=$(idof "$(msb "$u" "$d" wait.sh 2>&1)")
pending_on_beta () { [ "$(q "SELECT state || cluster FROM jobs WHERE id = ${id:-0}")" = submittedbeta ]; }
wait_for 30 pending_on_beta
tap_ok $? "a second one waits on beta, the only cluster with the memory ($(q "SELECT id, state, cluster FROM jobs WHERE id = ${id:-0}"))"

# well past reroute_after_s, over several cycles, while beta is still full
sleep 10
subs=$(q "SELECT count(*) FROM job_submissions WHERE job_id = ${id:-0}")
subcl=$(q "SELECT cluster FROM job_submissions WHERE job_id = ${id:-0}")
rr=$(q "SELECT reroutes FROM jobs WHERE id = ${id:-0}")
tap_ok "$(if [ "$subs" = 1 ] && [ "$subcl" = beta ] && [ "$rr" = 0 ] && ! grep -q "job ${id:-0}: re-routed" "$log"; then echo 0; else echo 1; fi)" \
    "12 s past reroute_after_s it is still its one submission on beta, not re-routed to a cluster that may not run it (submissions $subs, reroutes $rr; $(q "SELECT cluster, partition, state FROM job_submissions WHERE job_id = ${id:-0}" | tr '\n' ' '))"

done_on_beta () { [ "$(q "SELECT state || cluster FROM jobs WHERE id = ${id:-0}")" = completedbeta ]; }
wait_for 180 done_on_beta
tap_ok $? "it runs on beta once beta frees ($(q "SELECT id, state, cluster, reroutes FROM jobs WHERE id = ${id:-0}"))"
exit $tap_failed
