#!/bin/sh
# A measured run of a job that metasched dispatched is stored under its
# meta job's app (migration 0027), whatever Slurm could say: the epilog
# stores the app 'unknown' when its squeue/scontrol call times out under a
# loaded slurmctld (slurm_query_ms), and the database's own record of the
# meta job names the app instead. Rows go in as the epilog's and the
# flush's do: INSERT by the collector role (which reads nothing) on the
# test bed's PostgreSQL. Checks: a run of the meta job's Slurm job, of a
# sibling copy, of an array task and of a heterogeneous job's component is
# stored under the meta job's app ('app' in user_reported); a counter file
# rewritten to name another app is overruled; the meta job is picked only
# by root's facts, so a run of another uid (the same cluster and Slurm job
# id) keeps what the collector sent, a run of a Slurm job metasched never
# dispatched keeps 'unknown', and so does a run of a Slurm job id used
# again after the meta job that had it finished (a day before). The rows are removed at the end. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -n "${MS_PG_COLLECTOR_CONNINFO:-}" ] || tap_skip_all "the test bed has no collector role conninfo"
[ -n "${MS_PG_SUPER_CONNINFO:-}" ] || tap_skip_all "the test bed has no superuser conninfo"
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_plan 7

sq () { psql "$MS_PG_SUPER_CONNINFO" -X -A -t -q -c "$1" 2>&1; }
cq () { psql "$MS_PG_COLLECTOR_CONNINFO" -X -A -t -q -c "$1" 2>&1; }
u1=$(id -u "$MS_TEST_USER") u2=$(id -u "$MS_TEST_USER2")
cl=$(q "SELECT cluster FROM partitions ORDER BY cluster, name LIMIT 1")
pa=$(q "SELECT name FROM partitions WHERE cluster = '$cl' ORDER BY name LIMIT 1")
base=$(( 1900000000 + ($$ % 10000) * 100 )) # Slurm job ids no test bed reaches
app=msapp-$$
cleanup () {
    sq "DELETE FROM job_runs WHERE cluster = '$cl' AND slurm_job_id BETWEEN $base AND $((base + 99));
        DELETE FROM jobs WHERE app = '$app' OR name = 'msd-metaapp-$$';
        DELETE FROM apps WHERE name = '$app'" > /dev/null
}
trap cleanup EXIT

# the meta jobs, as metaschedd stores them: one dispatched (base), one with
# a sibling copy (base+10), an array's task (base+20), a hetjob (base+30)
mk () { # UID CLUSTER_JOB_ID -> meta job id
    q "INSERT INTO jobs (owner_uid, owner_gid, owner_name, name, app, script,
          state, cluster, partition, cluster_job_id)
       VALUES ($1, $1, 'u$1', 'msd-metaapp-$$', '$app', E'#!/bin/sh\ntrue\n',
          'completed', '$cl', '$pa', $2) RETURNING id"
}
j1=$(mk "$u1" "$base")
j2=$(mk "$u1" $((base + 1)))
sub=$(q "INSERT INTO job_submissions (job_id, cluster, partition, cluster_job_id, rank, state)
         VALUES (${j2:-0}, '$cl', '$pa', $((base + 10)), 1, 'ended')" 2>&1)
j3=$(mk "$u1" $((base + 2)))
task=$(q "INSERT INTO job_tasks (job_id, task_id, cluster, cluster_job_id, state)
          VALUES (${j3:-0}, 3, '$cl', $((base + 20)), 'completed')" 2>&1)
j4=$(mk "$u1" $((base + 30)))

# run ID UID APP [HET_JOB_ID OFFSET]: the collector's INSERT of a row
run () {
    het=NULL off=NULL
    [ -n "${4:-}" ] && het=$4 off=$5
    cq "INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app, user_name,
           uid, nodes, start_time, end_time, runtime_s, source, collector_version, user_reported,
           het_job_id, het_job_offset)
        VALUES ('$cl', '$pa', $1, 'n1', '$3', 'u$2', $2, 1, now () - interval '1 min',
           now (), 60, 'root-measured', 'test', '{}', $het, $off)
        ON CONFLICT DO NOTHING"
}
got () { sq "SELECT app || ' ' || array_to_string (user_reported, ',') FROM job_runs
             WHERE cluster = '$cl' AND slurm_job_id = $1 AND uid = $2"; }

# 1: Slurm could not be asked: the meta job's app
r=$(run "$base" "$u1" unknown)
[ -n "$j1" ] && [ "$(got "$base" "$u1")" = "$app app" ]
tap_ok $? "a run stored as unknown (Slurm not asked) takes meta job $j1's app: $(got "$base" "$u1") $r"

# 2: a sibling copy's and an array task's Slurm jobs
r=$(run $((base + 10)) "$u1" unknown; run $((base + 20)) "$u1" unknown)
[ "$(got $((base + 10)) "$u1")" = "$app app" ] && [ "$(got $((base + 20)) "$u1")" = "$app app" ]
tap_ok $? "a sibling copy's run and an array task's run too: $(got $((base + 10)) "$u1") / $(got $((base + 20)) "$u1") $sub $task $r"

# 3: a heterogeneous job's second component (its own Slurm id, het_job_id
# the first's)
r=$(run $((base + 31)) "$u1" unknown $((base + 30)) 1)
[ "$(got $((base + 31)) "$u1")" = "$app app" ]
tap_ok $? "a hetjob component's run takes the hetjob's app: $(got $((base + 31)) "$u1") $r"

# 4: a rewritten counter file names another app: the meta job's wins
r=$(run $((base + 1)) "$u1" someone-elses-app)
[ "$(got $((base + 1)) "$u1")" = "$app app" ]
tap_ok $? "a counter file naming another app is overruled: $(got $((base + 1)) "$u1") $r"

# 5: another uid on the same Slurm job id (as a forged record would say):
# not the meta job's app
r=$(run $((base + 2)) "$u2" unknown)
[ "$(got $((base + 2)) "$u2")" = "unknown " ]
tap_ok $? "a run of another uid keeps what was sent, not $MS_TEST_USER's app: '$(got $((base + 2)) "$u2")' $r"

# 6: a Slurm job metasched never dispatched
r=$(run $((base + 50)) "$u1" unknown)
[ "$(got $((base + 50)) "$u1")" = "unknown " ]
tap_ok $? "a run of a job submitted to Slurm directly keeps unknown: '$(got $((base + 50)) "$u1")' $r"

# 7: the id used again: the meta job that had it finished a day ago
old=$(q "INSERT INTO jobs (owner_uid, owner_gid, owner_name, name, app, script,
          state, cluster, partition, cluster_job_id, submitted_at, finished_at)
       VALUES ($u1, $u1, 'u$u1', 'msd-metaapp-$$', '$app', E'#!/bin/sh\ntrue\n',
          'completed', '$cl', '$pa', $((base + 60)), now () - interval '2 days',
          now () - interval '1 day') RETURNING id")
r=$(run $((base + 60)) "$u1" unknown)
[ -n "$old" ] && [ "$(got $((base + 60)) "$u1")" = "unknown " ]
tap_ok $? "a run of a Slurm job id used again after meta job $old finished keeps unknown: '$(got $((base + 60)) "$u1")' $r"
exit $tap_failed
