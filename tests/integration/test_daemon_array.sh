#!/bin/sh
# Arrays and dependencies between meta jobs, on the test bed's real Slurm
# clusters (doc/daemon.md "Arrays" and "Dependencies"):
#   - msbatch --array=1-10: one meta job, routed as one Slurm array (one
#     array job id on one cluster, ten task records); every task runs and
#     completes, and the daemon counts each among the jobs it saw end (the
#     lean of its energy odds, its what-if answer); msqueue shows ID_[1-10] with its tasks and, with -r, one
#     line per task; the API's answer lists the ten tasks;
#   - mscancel of a running array cancels every task on the cluster;
#   - afterok chain A -> B: B waits in metasched (queued, held Dependency)
#     while A runs, and Slurm starts B only after A ended (Slurm's own
#     start and end times);
#   - afternotok on a job that completed: cancelled with the reason, shown
#     by msqueue and the API; a dependency on a job that did not exist;
#   - singleton: the second job of the same user and name starts after the
#     first ended.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
msqueue=$MS_BUILDDIR/metasched/msqueue
mscancel=$MS_BUILDDIR/metasched/mscancel
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 16

log=$dtmp/msd.log
daemon_lead
q "INSERT INTO settings (key, value) VALUES ('dispatch_mode', '\"single\"')
   ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value" >/dev/null

u=$MS_TEST_USER
d=$(job_dir "$u")
cli () { # cli PROG ARGS...: a user command as $u against the daemon
    p=$1; shift
    (cd "$d" && runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$p" "$@")
}
idof () { printf '%s' "$1" | grep -o '[0-9][0-9]*$'; }
state () { q "SELECT state FROM jobs WHERE id = $1"; }
is_state () { [ "$(state "$1")" = "$2" ]; }
# slurm_time CLUSTER JOBID FIELD: StartTime or EndTime as Slurm records it
slurm_time () {
    on_cluster "$1" scontrol -o show job "$2" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$3=//p" | head -1
}

# ---- an array of ten ----
cat > "$d/arr.sh" <<'EOF'
#!/bin/sh
#SBATCH -J msd-array
#SBATCH --array=1-10
#SBATCH -t 5
echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID" > "task-$SLURM_ARRAY_TASK_ID.out"
sleep 2
EOF
chmod 755 "$d/arr.sh"
# the jobs the daemon has seen end, as its what-if answer says
seen () { msb "$u" "$d" --test-only arr.sh 2>&1 | sed -n 's/.*; \([0-9]*\) jobs seen to end.*/\1/p'; }
daemon_answers "$u" "$d" arr.sh
wait_for 20 grep -q 'calibration: ' "$log" # the decided jobs re-read
s0=$(seen)
out=$(msb "$u" "$d" arr.sh 2>&1); aid=$(idof "$out")
tap_ok "$(ok_if [ -n "$aid" ])" "msbatch takes an array of ten ($out)"
wait_for 180 is_state "$aid" completed
tap_ok $? "the array's meta job completes ($(q "SELECT state, cluster, cluster_job_id, last_error FROM jobs WHERE id = $aid" | tr '\n' ' '))"
cl=$(q "SELECT cluster FROM jobs WHERE id = $aid")
bid=$(q "SELECT cluster_job_id FROM jobs WHERE id = $aid")
# every record of the array on its cluster: one array job id, ten tasks
recs=$(on_cluster "$cl" squeue -h -a -r -t all -o '%F %K %T %k' 2>/dev/null | grep " metasched:$aid:[^ ]*\$")
other=0
for c in $MS_CLUSTERS; do
    [ "$c" = "$cl" ] && continue
    n=$(on_cluster "$c" squeue -h -a -t all -o '%k' 2>/dev/null | grep -c "^metasched:$aid:")
    other=$((other + n))
done
n=$(printf '%s\n' "$recs" | grep -c "^$bid [0-9]* COMPLETED ")
tap_ok "$(if [ "$n" = 10 ] && [ "$other" = 0 ]; then echo 0; else echo 1; fi)" "one Slurm array on $cl (array job $bid): 10 tasks completed, none elsewhere ($n; $other on other clusters; $(printf '%s' "$recs" | tr '\n' ';'))"
# each task seen to end counts as a job in the lean of the energy odds
s1=$(seen)
tap_ok "$(if [ -n "$s0" ] && [ -n "$s1" ] && [ "$s1" -ge $((s0 + 10)) ]; then echo 0; else echo 1; fi)" "the daemon saw the 10 tasks end: ${s1:-?} jobs seen to end against ${s0:-?} before the array"
files=0
for i in 1 2 3 4 5 6 7 8 9 10; do
    grep -q "^task $i of $bid\$" "$d/task-$i.out" 2>/dev/null && files=$((files + 1))
done
rows=$(q "SELECT count(*) FILTER (WHERE state = 'completed' AND exit_code = 0), count(DISTINCT cluster_job_id) FROM job_tasks WHERE job_id = $aid")
tap_ok "$(if [ "$files" = 10 ] && [ "$rows" = "10|10" ]; then echo 0; else echo 1; fi)" "each task ran once under metasched-collect and is recorded completed ($files outputs; completed|cluster jobs: $rows)"
line=$(cli "$msqueue" --noheader -j "$aid" 2>&1)
lines=$(cli "$msqueue" --noheader -r -j "$aid" 2>&1)
nl=$(printf '%s\n' "$lines" | grep -c "^ *${aid}_[0-9]* .* completed ")
printf '%s\n' "$line" | grep -q "^ *${aid}_\[1-10\] .* completed .*tasks: 10 completed"
tap_ok "$(if [ $? = 0 ] && [ "$nl" = 10 ]; then echo 0; else echo 1; fi)" "msqueue shows ${aid}_[1-10] with its tasks, and -r a line per task ($line; $nl task lines)"
nt=$(cli "$msqueue" --json -j "$aid" 2>&1 | grep -c '"task_id"')
tap_ok "$(ok_if [ "$nt" = 10 ])" "the API's answer lists the 10 tasks ($nt)"

# ---- mscancel cancels the whole array ----
printf '#!/bin/sh\n#SBATCH -J msd-array-long\n#SBATCH --array=0-3\n#SBATCH -t 5\nsleep 300\n' > "$d/long.sh"
chmod 755 "$d/long.sh"
out=$(msb "$u" "$d" long.sh 2>&1); lid=$(idof "$out")
wait_for 90 is_state "$lid" running
lcl=$(q "SELECT cluster FROM jobs WHERE id = $lid")
lbid=$(q "SELECT cluster_job_id FROM jobs WHERE id = $lid")
cli "$mscancel" "$lid" >/dev/null 2>&1
live_tasks () { on_cluster "$lcl" squeue -h -r -o '%F %T' 2>/dev/null | grep -c "^$lbid \(PENDING\|RUNNING\|COMPLETING\)"; }
no_live () { [ "$(live_tasks)" = 0 ]; }
wait_for 60 no_live
r=$?
wait_for 20 sh -c "[ \"\$(psql '$MS_PG_CONNINFO' -X -A -t -q -c \"SELECT count(*) FROM job_tasks WHERE job_id = $lid AND state IN ('pending', 'running')\")\" = 0 ]"
tap_ok "$(if [ $r = 0 ] && is_state "$lid" cancelled; then echo 0; else echo 1; fi)" "mscancel cancels every task of a running array ($(state "$lid"); live tasks on $lcl: $(live_tasks); $(q "SELECT string_agg (task_id || ':' || state, ' ' ORDER BY task_id) FROM job_tasks WHERE job_id = $lid"))"

# ---- afterok: B after A ----
printf '#!/bin/sh\n#SBATCH -J msd-dep-a\n#SBATCH -t 5\nsleep 8\n' > "$d/a.sh"
printf '#!/bin/sh\n#SBATCH -J msd-dep-b\n#SBATCH -t 5\ntrue\n' > "$d/b.sh"
chmod 755 "$d/a.sh" "$d/b.sh"
out=$(msb "$u" "$d" a.sh 2>&1); ja=$(idof "$out")
out=$(msb "$u" "$d" "--dependency=afterok:$ja" b.sh 2>&1); jb=$(idof "$out")
wait_for 60 is_state "$ja" running
sleep 2
held=$(q "SELECT state || ' ' || coalesce (held, '-') FROM jobs WHERE id = $jb")
why=$(cli "$msqueue" --noheader -j "$jb" 2>&1)
printf '%s' "$why" | grep -q "queued .*Dependency (waiting for afterok:$ja: job $ja is running)"
tap_ok "$(if [ $? = 0 ] && [ "$held" = "queued Dependency" ]; then echo 0; else echo 1; fi)" "B waits in metasched while A runs ($held; $why)"
wait_for 120 is_state "$jb" completed
rb=$?
acl=$(q "SELECT cluster FROM jobs WHERE id = $ja"); abid=$(q "SELECT cluster_job_id FROM jobs WHERE id = $ja")
bcl=$(q "SELECT cluster FROM jobs WHERE id = $jb"); bbid=$(q "SELECT cluster_job_id FROM jobs WHERE id = $jb")
aend=$(slurm_time "$acl" "$abid" EndTime)
bstart=$(slurm_time "$bcl" "$bbid" StartTime)
bsub=$(slurm_time "$bcl" "$bbid" SubmitTime)
# ISO times of one clock: text order is time order
tap_ok "$(if [ $rb = 0 ] && [ -n "$aend" ] && [ -n "$bstart" ] && ! expr "$bsub" \< "$aend" >/dev/null; then echo 0; else echo 1; fi)" "B is submitted to Slurm, and starts, only after A ended (A ended $aend on $acl; B submitted $bsub, started $bstart on $bcl; $(state "$jb"))"

# ---- afternotok on a job that completed, and a job that does not exist ----
out=$(msb "$u" "$d" "--dependency=afternotok:$ja" b.sh 2>&1); jc=$(idof "$out")
wait_for 30 is_state "$jc" cancelled
rc_=$?
err=$(q "SELECT last_error FROM jobs WHERE id = $jc")
tap_ok "$(if [ $rc_ = 0 ] && [ "$err" = "dependency never satisfied: afternotok:$ja: job $ja completed successfully" ]; then echo 0; else echo 1; fi)" "afternotok on a job that completed: cancelled with the reason ($(state "$jc"): $err)"
line=$(cli "$msqueue" --noheader -j "$jc" 2>&1)
api=$(cli "$msqueue" --json -j "$jc" 2>&1 | grep '"last_error"')
printf '%s' "$line" | grep -q "cancelled .*dependency never satisfied: afternotok:$ja"
r1=$?
printf '%s' "$api" | grep -q "job $ja completed successfully"
tap_ok "$(if [ $r1 = 0 ] && [ $? = 0 ]; then echo 0; else echo 1; fi)" "msqueue and the API show the reason ($line; $api)"
never=$((jc + 1000))
out=$(msb "$u" "$d" "--dependency=afterok:$ja?afterok:$never" b.sh 2>&1); jd=$(idof "$out")
wait_for 30 is_state "$jd" completed
tap_ok $? "afterok:A?afterok:(no such job): one that holds suffices ($(q "SELECT state, last_error FROM jobs WHERE id = $jd" | tr '\n' ' '))"
out=$(msb "$u" "$d" "--dependency=afterok:$ja,afterok:$never" b.sh 2>&1); je=$(idof "$out")
wait_for 30 is_state "$je" cancelled
tap_ok $? "afterok:A,afterok:(no such job): cancelled ($(q "SELECT state, last_error FROM jobs WHERE id = $je" | tr '\n' ' '))"

# ---- singleton ----
printf '#!/bin/sh\n#SBATCH -J msd-single\n#SBATCH -t 5\nsleep 6\n' > "$d/s.sh"
chmod 755 "$d/s.sh"
out=$(msb "$u" "$d" s.sh 2>&1); s1=$(idof "$out")
out=$(msb "$u" "$d" --dependency=singleton s.sh 2>&1); s2=$(idof "$out")
wait_for 60 is_state "$s1" running
h2=$(q "SELECT state || ' ' || coalesce (held, '-') FROM jobs WHERE id = $s2")
tap_ok "$(ok_if [ "$h2" = "queued Dependency" ])" "singleton: the second job of the name waits while the first runs ($h2)"
wait_for 120 is_state "$s2" completed
r2=$?
e1=$(slurm_time "$(q "SELECT cluster FROM jobs WHERE id = $s1")" "$(q "SELECT cluster_job_id FROM jobs WHERE id = $s1")" EndTime)
st2=$(slurm_time "$(q "SELECT cluster FROM jobs WHERE id = $s2")" "$(q "SELECT cluster_job_id FROM jobs WHERE id = $s2")" StartTime)
tap_ok "$(if [ $r2 = 0 ] && [ -n "$e1" ] && [ -n "$st2" ] && ! expr "$st2" \< "$e1" >/dev/null; then echo 0; else echo 1; fi)" "singleton: it starts after the first ended (first ended $e1, second started $st2)"
exit $tap_failed
