#!/bin/sh
# GPU jobs through metaschedd on the test bed's GPU cluster (gamma: two
# counted GPUs per node, testbed/start): `metasched clusters` shows the
# GPUs configured and what slurmrestd says is free; a job asking for more
# GPUs per node than any partition has is refused at submit (HTTP 400,
# naming the largest offer); a GPU job's candidates are only the GPU
# partitions, it lands there and Slurm allocates its GPUs (scontrol show
# job -d, CUDA_VISIBLE_DEVICES in the job); the apps' GPU profiles of
# gpu_profiles (metaschedd.conf) set what a busy GPU of their jobs draws
# (each candidate's power grows by that much per GPU, not by the
# partition's gpu_busy_power_w); with that cluster down a GPU job waits
# with the reason in msqueue and runs there once it is back.
# Takes the services lock exclusive; the cluster is restored on exit. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
gc=
for c in $MS_CLUSTERS; do
    [ "$(getv "MS_$(upper "$c")_GPUS")" -gt 0 ] 2>/dev/null && { gc=$c; break; }
done
[ -n "$gc" ] || tap_skip_all "no test bed cluster has GPUs (testbed/start of an older tree)"
gpn=$(getv "MS_$(upper "$gc")_GPUS")
tb_builddir=$(sed -n "s/^MS_BUILDDIR='\(.*\)'$/\1/p" "$MS_TESTBED_RUN/env")
msqueue=$MS_BUILDDIR/metasched/msqueue

restore_cluster () {
    MS_BUILDDIR=${tb_builddir:-$MS_BUILDDIR} "$MS_SRCDIR/testbed/start" >>"$dtmp/testbed-start.log" 2>&1
}
gpu_cleanup () {
    [ -n "${stopped:-}" ] && restore_cluster
    daemon_cleanup
}
trap gpu_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 12

# 1: the configuration and the cluster's answer
out=$("$metasched" clusters -c "$MS_CLUSTERS_CONF" 2>&1)
sect=$(printf '%s\n' "$out" | sed -n "/^$gc /,/^[a-z]/p")
printf '%s\n' "$sect" | grep -q "$gpn GPUs/node" &&
    printf '%s\n' "$sect" | grep -Eq "gpus [0-9]+ idle of $(( gpn * $(getv "MS_$(upper "$gc")_NODES" | wc -w) ))"
tap_ok $? "metasched clusters shows $gc's $gpn GPUs per node and the free ones: $(printf '%s\n' "$sect" | grep -m1 'gpus ' | sed 's/^ *//')"

# the GPU profile of the jobs that name no app the predictor knows: a busy
# GPU draws 111 W more than the partition says
gb=$(sed -n "/^\[partition $gc\//,/^\[/s/^gpu_busy_power_w *= *//p" "$MS_CLUSTERS_CONF" | head -1)
xb=$(( ${gb:-0} + 111 ))
printf '# the test'"'"'s GPU profiles\n[app unknown]\ngpu_busy_power_w = %s\n' "$xb" > "$dtmp/gpu-profiles.conf"
log=$dtmp/msd.log
daemon_lead "gpu_profiles = $dtmp/gpu-profiles.conf"
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3\n#SBATCH -J msd-gpu\n#SBATCH --gres=gpu:%s\necho "gpus=$CUDA_VISIBLE_DEVICES"\nsleep 15\n' "$gpn" > "$d/gpu.sh"
printf '#!/bin/sh\n#SBATCH -t 3\n#SBATCH -J msd-gpu1\necho "gpus=$CUDA_VISIBLE_DEVICES"\nsleep 2\n' > "$d/gpu1.sh"
chmod 755 "$d/gpu.sh" "$d/gpu1.sh"

# 2: more than any partition offers
out=$(msb "$u" "$d" --gpus-per-node=$((gpn + 1)) gpu1.sh 2>&1); rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep -q "HTTP 400" &&
    printf '%s' "$out" | grep -q "the most a partition offers is $gpn ($gc/"
tap_ok $? "--gpus-per-node=$((gpn + 1)) is refused at submit: $out"
out=$(msb "$u" "$d" --gpus=v100:1 gpu1.sh 2>&1); rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep -q "HTTP 400" && printf '%s' "$out" | grep -q "type v100"
tap_ok $? "a GPU type no partition has is refused: $out"

# 3: a GPU job lands on the GPU cluster and gets its GPUs
out=$(msb "$u" "$d" -o gpu-%j.out gpu.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
running () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = running ]; }
wait_for 90 running
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0}")
other=$(q "SELECT count(*) FILTER (WHERE c->>'cluster' <> '$gc') || ' of ' || count(*) FROM decisions d, json_array_elements (d.candidates::json) c WHERE d.job_id = ${id:-0}")
[ "$cl" = "$gc" ] && [ "${other%% of *}" = 0 ] && [ "${other#* of }" -gt 0 ] 2>/dev/null
tap_ok $? "the GPU job $id runs on $gc ($cl/$(q "SELECT partition FROM jobs WHERE id = ${id:-0}")), candidates elsewhere: $other"
sj=$(on_cluster "$gc" scontrol show job -d "${cj:-0}" 2>&1)
printf '%s' "$sj" | grep -Eq "GRES=gpu[^ ]*:$gpn|GRES=gpu:$gpn" &&
    printf '%s' "$sj" | grep -Eq "TresPerNode=gres[:/]gpu:$gpn"
tap_ok $? "Slurm allocated its $gpn GPUs: $(printf '%s' "$sj" | grep -Eo 'TresPerNode=[^ ]*|GRES=[^ ]*' | tr '\n' ' ')"
st=$("$metasched" clusters -c "$MS_CLUSTERS_CONF" 2>&1 | sed -n "/^$gc /,/^[a-z]/p" | grep -m1 'gpus ')
printf '%s' "$st" | grep -Eq "gpus [0-9]+ idle" && ! printf '%s' "$st" | grep -q "gpus $(( gpn * $(getv "MS_$(upper "$gc")_NODES" | wc -w) )) idle"
tap_ok $? "while it runs, slurmrestd reports its GPUs held: $(printf '%s' "$st" | sed 's/^ *//')"
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 90 done_
jo=$(cat "$d/gpu-$cj.out" 2>/dev/null)
n=$(printf '%s' "$jo" | sed -n 's/^gpus=//p' | tr ',' '\n' | grep -c .)
[ "$n" = "$gpn" ]
tap_ok $? "the job saw $gpn GPUs ($jo), and completed ($(q "SELECT state FROM jobs WHERE id = ${id:-0}"))"

# 3b: the GPU profile: a 1-GPU job of the same app; on each partition and
# frequency both jobs' candidates have, the gpn-GPU job's power is
# (gpn - 1) x the profile's busy power above the 1-GPU job's
grep -q "GPU profiles: 1 of 1 apps of $dtmp/gpu-profiles.conf" "$log"
tap_ok $? "metaschedd applies the GPU profile: $(grep -m1 'GPU profiles' "$log")"
out=$(msb "$u" "$d" -o gpu-%j.out --gpus-per-node=1 gpu1.sh 2>&1); id1=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
decided () { [ "$(q "SELECT count(*) FROM decisions WHERE job_id = ${id1:-0}")" -gt 0 ] 2>/dev/null; }
wait_for 60 decided
dp=$(q "SELECT count(*) || ' ' || coalesce (round (min ((a->>'power_w')::numeric - (b->>'power_w')::numeric), 1), -1)
            || ' ' || coalesce (round (max ((a->>'power_w')::numeric - (b->>'power_w')::numeric), 1), -1)
        FROM (SELECT candidates FROM decisions WHERE job_id = ${id:-0} ORDER BY id LIMIT 1) da,
             (SELECT candidates FROM decisions WHERE job_id = ${id1:-0} ORDER BY id LIMIT 1) db,
             json_array_elements (da.candidates::json) a, json_array_elements (db.candidates::json) b
        WHERE a->>'partition' = b->>'partition' AND a->>'freq_khz' = b->>'freq_khz'")
want=$(( (gpn - 1) * xb )).0
[ "${dp%% *}" -gt 0 ] 2>/dev/null && [ "$dp" = "${dp%% *} $want $want" ]
tap_ok $? "each candidate of the $gpn-GPU job draws $want W more than the 1-GPU job's (pairs, min, max: $dp; the partition says $gb W a GPU)"
done1 () { [ "$(q "SELECT state FROM jobs WHERE id = ${id1:-0}")" = completed ]; }
wait_for 90 done1

# 4: the GPU cluster down: a GPU job waits, with the reason
stopped=1
"$MS_SRCDIR/testbed/stop" --cluster "$gc" 2>>"$dtmp/testbed-start.log"
out=$(msb "$u" "$d" -o gpu-%j.out --gpus-per-node=1 gpu1.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
noted () { q "SELECT last_error FROM jobs WHERE id = ${id2:-0} AND state = 'queued'" | grep -q "unreachable ($gc)"; }
wait_for 60 noted; r=$?
mq=$(runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$msqueue" 2>&1 | grep "^ *${id2:-x} ")
[ $r = 0 ] && printf '%s' "$mq" | grep -q "unreachable ($gc)"
tap_ok $? "with $gc down the GPU job $id2 waits, msqueue says why: $(printf '%s' "$mq" | tr -s ' ')"
sleep 5
st=$(q "SELECT state, coalesce (cluster, '-') FROM jobs WHERE id = ${id2:-0}")
tap_ok "$(ok_if [ "$st" = "queued|-" ])" "it goes nowhere else meanwhile ($st)"

# 5: back: it runs there
restore_cluster; stopped=
done2 () { [ "$(q "SELECT state, cluster FROM jobs WHERE id = ${id2:-0}")" = "completed|$gc" ]; }
wait_for 150 done2; r=$?
tap_ok $r "once $gc is back the job runs there and completes ($(q "SELECT state, cluster, last_error FROM jobs WHERE id = ${id2:-0}"))"
exit $tap_failed
