#!/bin/sh
# Attack (or accident): a job that claims with an identity it inherited.
# A job submitted with msbatch from inside a task of an array carries that
# task's SLURM_ARRAY_JOB_ID, SLURM_JOB_ID ... in its environment (msbatch
# exports the environment, as sbatch does), and Slurm sets no SLURM_ARRAY_*
# for a job that is no array, so the inherited ones stay. In sibling mode
# the start gate claimed the meta job with SLURM_ARRAY_JOB_ID when set: the
# new job claimed as the other job, and metaschedd then cancelled every
# copy of it, the one that ran included. Here, with metaschedd in sibling
# mode on the test bed:
#   - msbatch from an environment that names a real array job of the same
#     user (its task 3): the job runs once, as itself (its claim names one
#     of its own submissions), sees none of the other job's variables, and
#     completes; the array is untouched;
#   - an array of the user's own still claims for itself, task by task;
#   - msbatch --export naming SLURM_ARRAY_JOB_ID is told it is not exported;
#   - a start gate that claims a meta job with another job's id (the real
#     array's, of the same user, no submission of that meta job) is
#     refused by the API: the command does not run, nothing is claimed.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -x "$collect" ] || tap_skip_all "$collect not built"

ia_cleanup () {
    [ -n "${restore:-}" ] && cfg set dispatch_mode=single "siblings=$restore" "max_slowdown=$restore_sd" >/dev/null 2>&1
    daemon_cleanup
}
trap ia_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 9

log=$dtmp/msd.log
daemon_lead
restore_sd=$(cfg_value max_slowdown 1.3)
restore=$(cfg_value siblings 2)
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2 ($out)"

u=$MS_TEST_USER
d=$(job_dir "$u")

# the other job: a real array of the same user on alpha, running
c=alpha
part=$(printf '%s' "$MS_ALPHA_PARTITIONS" | cut -d' ' -f1)
arr=$(runuser -u "$u" -- env SLURM_CONF="$MS_ALPHA_CONF" "$(slurm_cmd "$c" sbatch)" \
    --parsable -p "$part" --array=0-3 -t 10 -J parent-array --chdir "$d" \
    -o /dev/null --wrap 'sleep 120' 2>&1)
arr=${arr%%;*}
case $arr in *[!0-9]* | '') tap_ok 1 "the other job: an array ($arr)" ;; *) tap_ok 0 "the other job: array $arr on $c" ;; esac

cat > "$d/child.sh" <<EOS
#!/bin/sh
#SBATCH -t 5
#SBATCH -J child-of-array
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME \$SLURM_JOB_ID array=\${SLURM_ARRAY_JOB_ID:-none} task=\${SLURM_ARRAY_TASK_ID:-none}" >> $d/ran.log
sleep 2
EOS
chmod 755 "$d/child.sh"
touch "$d/ran.log" && chown "$u" "$d/ran.log"
# msbatch as from inside task 3 of that array (what slurmd sets there)
in_task () {
    (cd "$d" && runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        SLURM_ARRAY_JOB_ID="$arr" SLURM_ARRAY_TASK_ID=3 \
        SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 \
        SLURM_JOB_ID=$((arr + 3)) SLURM_JOBID=$((arr + 3)) \
        SLURM_CLUSTER_NAME="$c" SLURM_JOB_NAME=parent-array \
        SLURM_NODELIST=a1 SLURM_JOB_NODELIST=a1 "$@")
}
out=$(in_task "$msbatch" child.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
done_ () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = ${id:-0} AND state IN ('completed', 'failed', 'cancelled', 'lost')")" ]; }
wait_for 150 done_
st=$(q "SELECT state || ' ' || coalesce (claimed_cluster || ' ' || claimed_job_id, 'unclaimed') FROM jobs WHERE id = ${id:-0}")
tap_ok "$(ok_if [ "${st%% *}" = completed ])" "job ${id:-?} submitted from the array's task completes ($st; $(q "SELECT last_error FROM jobs WHERE id = ${id:-0}"))"

# its claim names one of its own copies, and the script ran once, as
# itself, without the other job's variables
own=$(q "SELECT cluster || ' ' || cluster_job_id FROM job_submissions WHERE job_id = ${id:-0}" | tr '\n' '|')
claim=${st#* }
runs=$(grep -c "^${id:-x} " "$d/ran.log")
line=$(grep "^${id:-x} " "$d/ran.log" | head -1)
case "|$own" in *"|$claim|"*) r=0 ;; *) r=1 ;; esac
[ "$runs" = 1 ] || r=1
case $line in "${id:-x} $claim array=none task=none") ;; *) r=1 ;; esac
tap_ok $r "it claimed as itself ($claim; its copies: $own) and ran once without the array's identity ($runs: $line)"

# the array is untouched: none of its tasks cancelled on this job's account
st=$(on_cluster "$c" squeue -h -j "$arr" -o %T 2>/dev/null | sort -u | tr '\n' ' ')
case $st in *RUNNING* | *PENDING*) r=0 ;; *) r=1 ;; esac
tap_ok $r "array $arr still runs ($st)"

# an array's own tasks still claim for their array: the API takes each
# task's array from Slurm's record, and every task of one copy runs
cat > "$d/arr.sh" <<EOS
#!/bin/sh
#SBATCH -t 5
#SBATCH -J own-array
#SBATCH --array=1-3
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME \$SLURM_ARRAY_JOB_ID \$SLURM_ARRAY_TASK_ID" >> $d/arr.log
sleep 1
EOS
chmod 755 "$d/arr.sh"
touch "$d/arr.log" && chown "$u" "$d/arr.log"
out=$(msb "$u" "$d" arr.sh 2>&1); aid=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
adone () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = ${aid:-0} AND state IN ('completed', 'failed', 'cancelled', 'lost')")" ]; }
wait_for 150 adone
st=$(q "SELECT state || ' ' || coalesce (claimed_cluster || ' ' || claimed_job_id, 'unclaimed') FROM jobs WHERE id = ${aid:-0}")
lines=$(grep "^${aid:-x} " "$d/arr.log" | sort -k4 -n | tr '\n' '|')
want="${aid:-x} ${st#completed } 1|${aid:-x} ${st#completed } 2|${aid:-x} ${st#completed } 3|"
tap_ok "$(ok_if [ "${st%% *}" = completed ] && [ "$lines" = "$want" ])" "array job ${aid:-?} in sibling mode: its tasks claimed for their array, all three ran in the copy that won ($st; $lines)"

# naming an identity variable explicitly: not exported, and said so
out=$(in_task "$msbatch" --export=ALL,SLURM_ARRAY_JOB_ID,SLURM_JOB_ID=7 --test-only child.sh 2>&1)
case $out in *"not exporting SLURM_ARRAY_JOB_ID"*"not exporting SLURM_JOB_ID"*) r=0 ;; *) r=1 ;; esac
tap_ok $r "msbatch --export=...,SLURM_ARRAY_JOB_ID,SLURM_JOB_ID=7 warns that they are not exported ($(printf '%s' "$out" | grep -i 'not exporting' | tr '\n' ' ' | cut -c1-240))"

# The API side: the start gate of a meta job claiming with another job's
# id. A meta job of the user that waits (begin in an hour) and a gate that
# names the real array (the user's own job, but no copy of that meta job).
printf '#!/bin/sh\n#SBATCH -t 5\n#SBATCH --begin=now+1hour\ntrue\n' > "$d/later.sh"
chmod 755 "$d/later.sh"
out=$(msb "$u" "$d" later.sh 2>&1); mid=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
rm -f "$d/gate-ran"
gate_out=$(cd "$d" && runuser -u "$u" -- env METASCHED_GATE=1 METASCHED_JOB_ID="${mid:-0}" \
    METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    METASCHED_GATE_WAIT_S=3 SLURM_CLUSTER_NAME="$c" SLURM_JOB_ID="$arr" \
    SLURM_ARRAY_JOB_ID="$arr" SLURMD_NODENAME=a1 \
    "$collect" --config /dev/null -o "$d/gate.counters" -- touch "$d/gate-ran" 2>&1)
rc=$?
claim=$(q "SELECT coalesce (claimed_cluster || ' ' || claimed_job_id, 'unclaimed') FROM jobs WHERE id = ${mid:-0}")
[ $rc = 75 ] && [ ! -e "$d/gate-ran" ] && [ "$claim" = unclaimed ]
tap_ok $? "a gate claiming meta job ${mid:-?} with job $arr (no copy of it) is refused: exit $rc, command not run, $claim ($(printf '%s' "$gate_out" | tail -1 | cut -c1-240))"

# the API's answer names the place and the reason
case $gate_out in *"cluster_job_id"*) r=0 ;; *) r=1 ;; esac
tap_ok $r "the refusal names cluster_job_id and why ($(printf '%s' "$gate_out" | tail -1 | cut -c1-200))"
exit 0
