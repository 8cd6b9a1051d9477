#!/bin/sh
# A dispatch interrupted after the cluster took the copy and before the
# daemon recorded it (metaschedd killed in between), and the copy ends
# while the daemon is down (well within MinJobAge: the controller still
# lists it). The next daemon finds the copy by its tag and adopts it; the
# job must then end as the copy did: completed, with Slurm's exit code,
# exactly one submission, run once. (It stayed "submitted" for good: the
# cycle followed the adopted copy on its reading from before the adoption,
# marked the submission ended and left the job as it was; the chaos run,
# seed 4242, found it.) The interrupted dispatch is made exactly: the job
# runs through the daemon, the daemon is killed, and the database is put
# back as the kill between the submit and its record leaves it (the row
# dispatching to that cluster, no cluster job id, no submission row).
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -n "${MS_PG_SUPER_CONNINFO:-}" ] || tap_skip_all "the test bed names no superuser conninfo"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 4

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-adopt-ended\necho ran >> %s/ran\nsleep 3\nexit 0\n' "$d" > "$d/job.sh"
chmod 755 "$d/job.sh"
: > "$d/ran"; chown "$u" "$d/ran"
out=$(msb "$u" "$d" job.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
on_cl () { [ -n "$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0} AND state IN ('submitted', 'running')")" ]; }
wait_for 60 on_cl
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0}")
tap_ok "$(ok_if [ -n "$cj" ])" "job ${id:-?} went to $cl as cluster job $cj ($out)"

kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null
# the state a kill between the submit and its record leaves
psql "$MS_PG_SUPER_CONNINFO" -X -q -v ON_ERROR_STOP=1 >/dev/null 2>&1 <<EOS
BEGIN;
SET LOCAL session_replication_role = replica;
DELETE FROM job_submissions WHERE job_id = ${id:-0};
UPDATE jobs SET state = 'dispatching', cluster_job_id = NULL, started_at = NULL,
    last_error = NULL, updated_at = now () - interval '10 minutes'
    WHERE id = ${id:-0};
COMMIT;
EOS
r=$?
ended () { on_cluster "$cl" squeue -h -a -t all -j "$cj" -o %T 2>/dev/null | grep -qx COMPLETED; }
wait_for 120 ended
[ $r = 0 ] && ended && [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = dispatching ]
tap_ok $? "daemon killed; the job is dispatching with no record of its copy, which completed on $cl meanwhile ($(on_cluster "$cl" squeue -h -a -t all -j "$cj" -o '%T %k' 2>/dev/null))"

start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
wait_for 60 grep -q "job $id: found on $cl as job $cj after an interrupted dispatch" "$log"
tap_ok $? "the next daemon adopts the copy ($(grep "job $id: found" "$log"))"

done_ () { [ "$(q "SELECT state || ' ' || exit_code FROM jobs WHERE id = ${id:-0}")" = "completed 0" ]; }
wait_for 60 done_
[ $? = 0 ] && [ "$(q "SELECT count(*) || ' ' || string_agg (state, ',') FROM job_submissions WHERE job_id = ${id:-0}")" = "1 ended" ] &&
    [ "$(grep -c . "$d/ran")" = 1 ]
tap_ok $? "the job ends completed with Slurm's exit code, one submission, run once ($(q "SELECT state, exit_code, last_error FROM jobs WHERE id = ${id:-0}" | tr '\n' ' '); submissions: $(q "SELECT cluster || ' ' || cluster_job_id || ' ' || state FROM job_submissions WHERE job_id = ${id:-0}" | tr '\n' ';'); ran $(grep -c . "$d/ran") times)"
exit $tap_failed
