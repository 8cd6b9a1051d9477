#!/bin/sh
# Sibling mode and the start gate on the test bed: with dispatch_mode =
# siblings and siblings = 2 (set through the API as an admin) each meta job
# goes to two partitions at once, and exactly one copy runs the script (it
# appends a line to a file); the other copy is cancelled by metaschedd or
# loses the claim in metasched-collect and exits 0 without running it.
# The gate itself: a claim lost exits 0 at once without running anything;
# an API that cannot be reached makes the wrapper refuse to run (exit 75);
# either way the counter file tells the epilog (gate=lost, gate=refused).
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
njobs=6

sib_cleanup () {
    [ -n "${restore:-}" ] && cfg set dispatch_mode=single "siblings=$restore" "max_slowdown=$restore_sd" >/dev/null 2>&1
    daemon_cleanup
}
trap sib_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 9

log=$dtmp/msd.log
daemon_lead

restore_sd=$(cfg_value max_slowdown 1.3)
restore=$(cfg_value siblings 2)
# a wide slowdown cap, so that every job has a second candidate to go to
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2, max_slowdown=100 ($out)"

u=$MS_TEST_USER
d=$(job_dir "$u")
touch "$d/ran.log" && chown "$u" "$d/ran.log"
cat > "$d/sib.sh" <<EOS
#!/bin/sh
#SBATCH -t 5
#SBATCH -J msd-sib
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME \$SLURM_JOB_ID" >> $d/ran.log
sleep 4
EOS
chmod 755 "$d/sib.sh"
ids=
i=0
while [ $i -lt $njobs ]; do
    out=$(msb "$u" "$d" sib.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    ids="$ids${ids:+,}$id"
    i=$((i + 1))
done
n=$(printf '%s' "$ids" | tr ',' '\n' | grep -c .)
tap_ok "$(ok_if [ "$n" = $njobs ])" "$njobs jobs submitted ($ids)"

all_done () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state IN ('completed', 'failed', 'cancelled')")" = $njobs ]; }
wait_for 150 all_done; r=$?
[ $r = 0 ] && [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state = 'completed'")" = $njobs ]
tap_ok $? "every job completes ($(q "SELECT id, state, cluster, cluster_job_id, last_error FROM jobs WHERE id IN ($ids)" | tr '\n' ' '))"

# in sibling mode every candidate partition may take a copy (the slowdown
# cap is 100 and every job has four partitions), so each job went to
# exactly two (siblings=2): the settings were set before the jobs were
# queued, so the daemon decided them with the new settings, also when the
# change came while its cycle was reading the clusters
n2=$(q "SELECT count(*) FROM (SELECT job_id FROM job_submissions WHERE job_id IN ($ids) GROUP BY job_id HAVING count(*) = 2) s")
tap_ok "$(ok_if [ "$n2" = $njobs ])" "jobs went out as siblings: $n2 of $njobs with two copies ($(q "SELECT job_id, cluster, partition, cluster_job_id, rank, state FROM job_submissions WHERE job_id IN ($ids) ORDER BY 1, 5" | tr '\n' ' '))"

# exactly one run per job, and it is the copy the row names
bad=
for id in $(printf '%s' "$ids" | tr ',' ' '); do
    runs=$(grep -c "^$id " "$d/ran.log")
    row=$(q "SELECT cluster || ' ' || cluster_job_id FROM jobs WHERE id = $id")
    line=$(grep "^$id " "$d/ran.log" | head -1)
    [ "$runs" = 1 ] && [ "$line" = "$id $row" ] || bad="$bad $id:$runs($line/$row)"
done
tap_ok "$(ok_if [ -z "$bad" ])" "each job's script ran exactly once, as the copy the row names${bad:+ (bad:$bad)}"

# the other copy: cancelled on its cluster, or it ran the wrapper, lost
# the claim and ended without the script; a lost copy wrote nothing into
# its output file (the wrapper's note goes to the node's log), and its
# epilog's line in the hooks' log says why it recorded no run.  The
# daemon cancels the other copy once the winner runs, so a copy can lose
# the claim and be cancelled in the same moment: then its output holds
# the step daemon's line saying it was cancelled, and nothing else
lost=0 cancelled=0 other=
hooklog=$MS_TESTBED_RUN/collect.log
for id in $(printf '%s' "$ids" | tr ',' ' '); do
    q "SELECT s.cluster || ' ' || s.cluster_job_id FROM job_submissions s, jobs j WHERE j.id = $id AND s.job_id = j.id AND (s.cluster, s.cluster_job_id) <> (j.cluster, j.cluster_job_id)" > "$dtmp/other"
    [ -s "$dtmp/other" ] || continue   # a single copy: nothing to lose
    read -r oc ocj < "$dtmp/other"
    st=$(on_cluster "$oc" squeue -h -a -t all -j "$ocj" -o %T 2>/dev/null)
    lost_logged () { grep -q "epilog: job $oc\.$ocj node [^:]*: no job_runs row: the start gate did not run the command (lost: another sibling claimed meta job $id)" "$hooklog" 2>/dev/null; }
    if lost_logged || { [ "$st" != CANCELLED ] && wait_for 10 lost_logged; }; then
        if grep -qv "^slurmstepd[^:]*: error: \*\*\* JOB $ocj ON [^ ]* CANCELLED AT [^ ]* \*\*\*\$" "$d/slurm-$ocj.out" 2>/dev/null; then
            other="$other $id:$oc/$ocj:lost,output:'$(head -c 120 "$d/slurm-$ocj.out" | tr '\n' '|')'"
        else
            lost=$((lost + 1))
        fi
    elif [ "$st" = CANCELLED ]; then
        cancelled=$((cancelled + 1))
    else
        other="$other $id:$oc/$ocj:$st"
    fi
done
tap_ok "$(ok_if [ -z "$other" ])" "every other copy was cancelled ($cancelled) or lost the start gate ($lost)${other:+; not so:$other}"
n=$(cluster_jobs_tagged | grep -c "^metasched:\($(printf '%s' "$ids" | sed 's/,/\\|/g')\):[^|]*|\(RUNNING\|PENDING\)")
tap_ok "$(ok_if [ "$n" = 0 ])" "no copy is left pending or running ($n)"

# the gate by hand, as the owner: a claim lost exits 0 without running
first=${ids%%,*}
rm -f "$d/gate-ran"
gate_env () {
    runuser -u "$u" -- env METASCHED_GATE=1 METASCHED_JOB_ID="$first" \
        SLURM_CLUSTER_NAME=alpha SLURM_JOB_ID=999999 METASCHED_GATE_WAIT_S=2 \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$@"
}
out=$(cd "$d" && gate_env METASCHED_SERVER="unix:$dtmp/msd.sock" \
    "$collect" -q -o "$d/gate.counters" -- /bin/sh -c "touch $d/gate-ran" 2>&1)
rc=$?
[ $rc = 0 ] && [ ! -e "$d/gate-ran" ] && [ -z "$out" ] &&
    grep -qx 'gate=lost' "$d/gate.counters" && grep -qx "gate_job=$first" "$d/gate.counters"
tap_ok $? "a claim lost: exit 0 at once, the command not run, nothing on the job's output ('$out'), gate=lost in the counter file for the epilog (rc $rc; $(grep '^gate' "$d/gate.counters" 2>/dev/null | tr '\n' ' '))"

# the API unreachable: retry, then refuse to run (exit 75)
out=$(cd "$d" && gate_env METASCHED_SERVER="unix:$dtmp/nothing.sock" \
    "$collect" -q -o "$d/gate.counters" -- /bin/sh -c "touch $d/gate-ran" 2>&1)
rc=$?
[ $rc = 75 ] && [ ! -e "$d/gate-ran" ] && printf '%s' "$out" | grep -q 'cannot claim meta job.*not running the script' &&
    grep -qx 'gate=refused' "$d/gate.counters"
tap_ok $? "the API unreachable: the wrapper retries, then refuses to run, exit 75, gate=refused in the counter file (rc $rc: $(printf '%s' "$out" | tail -1))"
exit $tap_failed
