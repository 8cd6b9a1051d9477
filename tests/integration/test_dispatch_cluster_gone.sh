#!/bin/sh
# A dispatch whose cluster goes away: metaschedd was killed while it sent a
# job to gamma, and gamma's slurmctld and slurmrestd stopped before it came
# back. The daemon cannot know whether gamma took the job, so the row stays
# `dispatching` (never queued again while gamma may hold a copy, never
# failed or lost), and says why in its last_error; once gamma answers
# without the job, it is queued again and runs there exactly once. (The
# crash is made by hand: the daemon is killed and the row set back to
# what an interrupted dispatch leaves.) Takes the services lock exclusive;
# gamma is restored on exit. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
down=gamma
need_cluster "$down"
trap cluster_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 5
all0 () { for x in "$@"; do [ "$x" = 0 ] || { echo 1; return; }; done; echo 0; }

u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3\n#SBATCH -J msd-gone\nsleep 1\n' > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"
pdown=$(getv "MS_$(upper "$down")_PARTITIONS"); pdown=${pdown%% *}

stop_clusters "$down"
log=$dtmp/msd.log
daemon_lead "allow_partition = yes"
out=$(msb "$u" "$d" -p "$down/$pdown" tiny.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
sleep 2
# the crash: killed in the middle of dispatching it to the cluster
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null
q "UPDATE jobs SET state = 'dispatching', cluster = '$down', partition = '$pdown', updated_at = now () - interval '1 hour' WHERE id = ${id:-0}" >/dev/null
st=$(q "SELECT state FROM jobs WHERE id = ${id:-0}")
tap_ok "$(all0 "$([ -n "$id" ]; echo $?)" "$([ "$st" = dispatching ]; echo $?)")" "job ${id:-?} left dispatching to $down, which is down ($st)"

start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
noted () { q "SELECT last_error FROM jobs WHERE id = $id" | grep -q "dispatch interrupted; waiting for.* $down.* to answer"; }
wait_for 30 noted; r=$?
sleep 10   # a good many cycles with the cluster down
st=$(q "SELECT state || '|' || coalesce (cluster, '') FROM jobs WHERE id = $id")
nsub=$(q "SELECT count (*) FROM job_submissions WHERE job_id = $id")
tap_ok "$(all0 $r "$([ "$st" = "dispatching|$down" ]; echo $?)" "$([ "$nsub" = 0 ]; echo $?)")" \
    "while $down is down the job stays dispatching, sent nowhere, and says why ($st, $nsub submissions: $(q "SELECT last_error FROM jobs WHERE id = $id"))"

restore_clusters; r=$?
tap_ok "$r" "testbed/start brings $down back"
done_once () { [ "$(q "SELECT state FROM jobs WHERE id = $id")" = completed ]; }
wait_for 120 done_once; r=$?
tap_ok "$r" "once $down answers without the job, it is queued again and completes ($(q "SELECT state, cluster, last_error FROM jobs WHERE id = $id"))"
n=$(cluster_jobs_tagged | grep -c "^metasched:$id:.*|$down\$")
nall=$(cluster_jobs_tagged | grep -c "^metasched:$id:")
tap_ok "$(all0 "$([ "$n" = 1 ]; echo $?)" "$([ "$nall" = 1 ]; echo $?)")" "it ran exactly once, on $down ($n there, $nall in all)"
exit $tap_failed
