#!/bin/sh
# metaschedd end to end on the test bed: jobs submitted through the API
# (msbatch, as two users) land on exactly one cluster with the partition,
# CPU frequency and scaled time limit that the jobs row says, the comment
# tag metasched:<id>, run as their user through metasched-collect, reach
# COMPLETED, and the row follows; the decision row holds every candidate;
# a cancel through the API cancels the cluster job. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 18

log=$dtmp/msd.log
write_conf "$dtmp/msd.conf"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
tap_ok "$(ok_if wait_for 10 grep -q 'leading: this instance now schedules' "$log")" \
    "the daemon starts and leads"

u1=$MS_TEST_USER u2=$MS_TEST_USER2
d1=$(job_dir "$u1") d2=$(job_dir "$u2")
for d in "$d1" "$d2"; do
cat > "$d/job.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 7
#SBATCH -J msd-e2e
echo "ran as $(id -un) on $SLURM_CLUSTER_NAME partition $SLURM_JOB_PARTITION freq $SLURM_CPU_FREQ_REQ meta $METASCHED_JOB_ID"
EOS
chmod 755 "$d/job.sh"
done
out=$(msb "$u1" "$d1" job.sh 2>&1); id1=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
out2=$(msb "$u2" "$d2" job.sh 2>&1); id2=$(printf '%s' "$out2" | grep -o '[0-9][0-9]*$')
tap_ok "$([ -n "$id1" ] && [ -n "$id2" ] && echo 0 || echo 1)" "two users submit through the API ($out; $out2)"

done_state () { [ "$(q "SELECT state FROM jobs WHERE id = $1")" = completed ]; }
wait_for 90 done_state "$id1"; r1=$?
wait_for 30 done_state "$id2"; r2=$?
tap_ok "$([ $r1 = 0 ] && [ $r2 = 0 ] && echo 0 || echo 1)" "both jobs reach completed in the queue ($(q "SELECT id, state, last_error FROM jobs WHERE id IN ($id1, $id2)" | tr '\n' ' '))"

for pair in "$id1:$u1:$d1" "$id2:$u2:$d2"; do
    id=${pair%%:*}; rest=${pair#*:}; u=${rest%%:*}; d=${rest#*:}
    row=$(q "SELECT cluster, partition, freq_khz, cluster_job_id, time_limit_min, user_time_limit_min, exit_code FROM jobs WHERE id = $id")
    IFS='|' read -r cl part freq cjid lim ulim ec <<EOR
$row
EOR
    # every cluster: exactly one job with this tag
    n=$(cluster_jobs_tagged | grep -c "^metasched:$id:")
    tap_ok "$([ "$n" = 1 ] && echo 0 || echo 1)" "job $id: exactly one cluster job carries metasched:$id (saw $n)"
    sq=$(on_cluster "$cl" squeue -h -a -t all -j "$cjid" -o '%P|%u|%k|%T|%l' 2>&1)
    # the tag: metasched:ID, the dispatch and copy numbers, the MAC
    sqt=$(printf '%s' "$sq" | sed 's/|metasched:\([0-9]*\):[0-9]*\.[0-9]*:[0-9a-f]\{32\}|/|metasched:\1|/')
    tap_ok "$(ok_if [ "$sqt" = "$part|$u|metasched:$id|COMPLETED|$(printf '%d:00' "$lim")" ])" \
        "job $id: $cl job $cjid is on $part, as $u, tagged, COMPLETED, limit $lim min ($sq)"
    sf=$(on_cluster "$cl" scontrol show job "$cjid" 2>/dev/null | grep -o 'CPU_max_freq=[0-9]*')
    [ "$sf" = "CPU_max_freq=$freq" ] && [ "$lim" -ge "$ulim" ] && [ "$ulim" = 7 ]
    tap_ok $? \
        "job $id: frequency $freq kHz requested ($sf), limit $lim >= the user's $ulim min"
    out=$(cat "$d"/slurm-"$cjid".out 2>/dev/null | grep '^ran as')
    tap_ok "$(ok_if [ "$out" = "ran as $u on $cl partition $part freq $freq meta $id" ])" \
        "job $id: the script ran as $u under the wrapper, with its environment ($out)"
done

nc=$(q "SELECT json_array_length (candidates) FROM decisions WHERE job_id = $id1")
ch=$(q "SELECT count(*) FROM decisions d, json_array_elements (d.candidates) c WHERE d.job_id = $id1 AND (c->>'chosen')::boolean AND c->>'cluster' = d.cluster AND c->>'partition' = d.partition AND (c->>'freq_khz')::int = d.freq_khz")
[ "${nc:-0}" -gt 4 ] && [ "$ch" = 1 ]
tap_ok $? "the decision row holds every candidate ($nc) and marks the chosen one ($ch)"

# a long job cancelled through the API: the cluster job goes too
cat > "$d1/long.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 10
sleep 300
EOS
chmod 755 "$d1/long.sh"
out=$(msb "$u1" "$d1" long.sh 2>&1); id3=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
st () { [ "$(q "SELECT state FROM jobs WHERE id = $id3")" = "$1" ]; }
wait_for 60 st running; r=$?
tap_ok "$r" "a long job runs ($(q "SELECT state, cluster, cluster_job_id FROM jobs WHERE id = $id3"))"
row=$(q "SELECT cluster, cluster_job_id FROM jobs WHERE id = $id3")
cl=${row%%|*}; cjid=${row#*|}
mscancel=$MS_BUILDDIR/metasched/mscancel
(cd "$d1" && runuser -u "$u1" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$mscancel" "$id3") >/dev/null 2>&1
gone () { s=$(on_cluster "$cl" squeue -h -a -t all -j "$cjid" -o %T 2>/dev/null); [ "$s" = CANCELLED ]; }
wait_for 30 gone; r=$?
[ $r = 0 ] && st cancelled
tap_ok $? "cancelled through the API: the row is cancelled and $cl job $cjid CANCELLED"

# --exclusive reaches the cluster as whole nodes and runs
out=$(msb "$u1" "$d1" --exclusive job.sh 2>&1); idx=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
if [ -n "$idx" ]; then wait_for 90 done_state "$idx"; r=$?; else r=1; fi
tap_ok $r "an --exclusive job runs and completes ($out: $(q "SELECT state, cluster, cluster_job_id, last_error FROM jobs WHERE id = ${idx:-0}"))"

# a job every cluster refuses (more CPUs a task than any node has) is not
# sent again for ever: cancelled with the clusters' answer
out=$(msb "$u1" "$d1" --cpus-per-task=5000 job.sh 2>&1); idr=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
refused () { [ "$(q "SELECT state FROM jobs WHERE id = $idr")" = cancelled ]; }
if [ -n "$idr" ]; then wait_for 60 refused; r=$?; else r=1; fi
[ $r = 0 ] && q "SELECT last_error FROM jobs WHERE id = $idr" | grep -q 'refused at each of 5 dispatches'
tap_ok $? "a job every cluster refuses is cancelled after 5 dispatches, with the reason ($out: $(q "SELECT state, attempts, left (last_error, 160) FROM jobs WHERE id = ${idr:-0}"))"

tap_ok "$(ok_if test "$(grep -c 'next try in' "$log")" = 0)" "no cluster was ever unreachable meanwhile"
grep -q "$(head -c 24 "$MS_ALPHA_TOKEN_FILE")" "$log"
tap_ok "$([ $? = 1 ] && echo 0 || echo 1)" "the log holds no token"
