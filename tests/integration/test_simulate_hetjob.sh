#!/bin/sh
# A heterogeneous job in the site's history: its components run on the
# test bed as Slurm jobs of their own ids, the epilog records which
# hetjob each belongs to (job_runs.het_job_id, het_job_offset: migration
# 0024), and `metasched simulate --from-db` reads the components as one
# job (the report role). Takes the services lock exclusive. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -x "$metasched" ] || tap_skip_all "$metasched not built"
[ -n "${MS_PG_REPORT_CONNINFO:-}" ] || tap_skip_all "the test bed has no report role conninfo"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 3

log=$dtmp/msd.log
t0=$(date +%s)
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-hetsim\n#SBATCH hetjob\n#SBATCH -N 1\nsleep 1\n' > "$d/hetsim.sh"
chmod 755 "$d/hetsim.sh"
daemon_answers "$u" "$d" hetsim.sh

# 1: both components measured, each with the hetjob it belongs to
out=$(msb "$u" "$d" -o /dev/null hetsim.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
done_ () { case $(q "SELECT state FROM jobs WHERE id = ${id:-0}") in completed|failed|cancelled) return 0 ;; esac; return 1; }
wait_for 150 done_
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0}")
rows () { [ "$(q "SELECT count(DISTINCT het_job_offset) FROM job_runs WHERE cluster = '$cl' AND het_job_id = ${cj:-0}")" = 2 ]; }
wait_for 60 rows
got=$(q "SELECT slurm_job_id || ':' || het_job_id || '+' || het_job_offset FROM job_runs WHERE cluster = '$cl' AND slurm_job_id IN (${cj:-0}, ${cj:-0} + 1) ORDER BY slurm_job_id" | sort -u | sort -t: -k1,1n | tr '\n' ' ')
[ -n "$cj" ] && [ "$got" = "$cj:$cj+0 $((cj + 1)):$cj+1 " ]
tap_ok $? "the hetjob ($out, $cl job $cj, $(q "SELECT state FROM jobs WHERE id = ${id:-0}")): each component's run names it: $got"

# 2: the replay's history reads it as one job of both components
since=$(awk -v s=$(( $(date +%s) - t0 + 60 )) 'BEGIN { printf "%.6f", s / 86400 }')
nice -n 19 "$metasched" simulate --from-db "$MS_PG_REPORT_CONNINFO" -c "$MS_CLUSTERS_CONF" \
    --since "$since" -o "$dtmp/sim" --no-plots > "$dtmp/sim.out" 2>&1
r=$?
het=$(grep '^heterogeneous jobs:' "$dtmp/sim.out")
n=$(printf '%s' "$het" | sed -n 's/^heterogeneous jobs: \([0-9]*\) read whole (\([0-9]*\) components.*/\1 \2/p')
[ $r = 0 ] && [ "${n%% *}" -ge 1 ] 2>/dev/null && [ "${n#* }" -ge $((2 * ${n%% *})) ]
tap_ok $? "metasched simulate --from-db reads the hetjob whole (rc $r): ${het:-$(tail -3 "$dtmp/sim.out" | tr '\n' ' ')}"
cnt=$(psql "$MS_PG_REPORT_CONNINFO" -X -A -t -q -c "SELECT count(*) FROM job_run_totals WHERE cluster = '$cl' AND het_job_id = ${cj:-0}" 2>&1)
[ "$cnt" = 2 ]
tap_ok $? "the report role sees the components in job_run_totals ($cnt)"
exit $tap_failed
