#!/bin/sh
# Heterogeneous jobs through metaschedd on the test bed: a two-component
# job (#SBATCH hetjob) goes whole to one cluster and runs there as one
# Slurm heterogeneous job (scontrol shows both components under one
# HetJobId) and completes; a job whose second component asks for a GPU
# goes only where that component fits (the GPU cluster), each component
# on a partition of that cluster; mscancel of a running hetjob ends every
# component; on each cluster of the test bed (each Slurm release it runs,
# testbed/start --slurm-prefix) a hetjob runs as one. Takes the services
# lock exclusive. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
gc=
for c in $MS_CLUSTERS; do
    [ "$(getv "MS_$(upper "$c")_GPUS")" -gt 0 ] 2>/dev/null && { gc=$c; break; }
done
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan $((12 + $(echo $MS_CLUSTERS | wc -w)))

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3 -J msd-het -n 1\n#SBATCH hetjob\n#SBATCH -N 2 -n 2 -t 4\necho "size=$SLURM_HET_SIZE"\nsleep 3\n' > "$d/het.sh"
chmod 755 "$d/het.sh"

# 1: one cluster, one Slurm hetjob of two components, completed
out=$(msb "$u" "$d" -o het-%j.out het.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
tap_ok "$(ok_if [ -n "$id" ])" "msbatch takes a two-component hetjob: $out"
placed () { [ -n "$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0} AND cluster_job_id IS NOT NULL")" ]; }
wait_for 90 placed
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0}")
sj=$(on_cluster "$cl" scontrol show job "${cj:-0}" 2>&1)
offs=$(printf '%s\n' "$sj" | grep -o "HetJobId=${cj:-x} HetJobOffset=[0-9]*" | sort -u | wc -l)
[ -n "$cj" ] && [ "$offs" = 2 ]
tap_ok $? "it runs on $cl as one Slurm hetjob $cj with two components: $(printf '%s\n' "$sj" | grep -o 'HetJobId=[^ ]* HetJobOffset=[^ ]*' | tr '\n' ' ')"
comps=$(printf '%s\n' "$sj" | grep -Eo 'NumNodes=[0-9]+|NumTasks=[0-9]+' | tr '\n' ' ')
[ "$comps" = "NumNodes=1 NumTasks=1 NumNodes=2 NumTasks=2 " ]
tap_ok $? "each component has its own nodes and tasks: $comps"
# predicted as one job of all its nodes for the longest limit
nl=$(q "SELECT nodes || ' ' || time_limit_min FROM jobs WHERE id = ${id:-0}")
tap_ok "$(ok_if [ "$nl" = "3 4" ])" "it is predicted as 3 nodes for 4 minutes (nodes, limit: $nl)"
# msqueue: a row per component, as squeue names them (JobId+offset)
mq=$(runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$MS_BUILDDIR/metasched/msqueue" -j "${id:-0}" 2>&1)
printf '%s\n' "$mq" | grep -Eq "^ *$id\+0 .* $cj\+0 " && printf '%s\n' "$mq" | grep -Eq "^ *$id\+1 .* $cj\+1 "
tap_ok $? "msqueue shows both components: $(printf '%s\n' "$mq" | sed 1d | tr -s ' ' | tr '\n' ';')"
fq=$(runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$MS_BUILDDIR/metasched/msqueue" -h -j "${id:-0}" -o %i 2>&1 | tr '\n' ' ')
tap_ok "$(ok_if [ "$fq" = "$id+0 $id+1 " ])" "msqueue -o %i too: $fq"
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 120 done_; r=$?
jo=$(cat "$d/het-$cj.out" 2>/dev/null)
[ $r = 0 ] && [ "$jo" = "size=2" ]
tap_ok $? "the hetjob completed ($(q "SELECT state FROM jobs WHERE id = ${id:-0}")) and saw both components ($jo)"

# 2: a component that fits one cluster only takes the whole job there
if [ -n "$gc" ]; then
    printf '#!/bin/sh\n#SBATCH -t 3 -J msd-hetgpu\nsleep 1\n' > "$d/hetgpu.sh"
    chmod 755 "$d/hetgpu.sh"
    out=$(msb "$u" "$d" -o /dev/null -n 1 : --gres=gpu:1 -n 1 hetgpu.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    placed2 () { [ -n "$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id2:-0} AND cluster_job_id IS NOT NULL")" ]; }
    wait_for 90 placed2
    cl2=$(q "SELECT cluster FROM jobs WHERE id = ${id2:-0}")
    other=$(q "SELECT count(*) FILTER (WHERE c->>'cluster' <> '$gc') || ' of ' || count(*) FROM decisions d, json_array_elements (d.candidates::json) c WHERE d.job_id = ${id2:-0}")
    [ -n "$id2" ] && [ "$cl2" = "$gc" ] && [ "${other%% of *}" = 0 ]
    tap_ok $? "a hetjob whose second component asks for a GPU goes to $gc only ($out: $cl2; candidates elsewhere: $other)"
    cj2=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id2:-0}")
    sj=$(on_cluster "$gc" scontrol show job -d "${cj2:-0}" 2>&1)
    [ -n "$cj2" ] && printf '%s\n' "$sj" | grep -q "HetJobId=$cj2 HetJobOffset=1" && printf '%s\n' "$sj" | grep -Eq "TresPerNode=gres[:/]gpu:1"
    tap_ok $? "its second component holds the GPU: $(printf '%s\n' "$sj" | grep -Eo 'HetJobOffset=[0-9]*|TresPerNode=[^ ]*|Partition=[^ ]*' | tr '\n' ' ')"
    done2 () { [ "$(q "SELECT state FROM jobs WHERE id = ${id2:-0}")" = completed ]; }
    wait_for 120 done2
else
    tap_skip 2 "no test bed cluster has GPUs"
fi

# on each cluster of the test bed (each Slurm release and OpenAPI version
# it runs): one Slurm hetjob of two components that completes
printf '#!/bin/sh\n#SBATCH -t 3 -J msd-hetc -n 1\n#SBATCH hetjob -n 1\nsleep 1\n' > "$d/hetc.sh"
chmod 755 "$d/hetc.sh"
for c in $MS_CLUSTERS; do
    out=$(msb "$u" "$d" -o /dev/null -M "$c" hetc.sh 2>&1); idc=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    donec () { [ "$(q "SELECT state FROM jobs WHERE id = ${idc:-0}")" = completed ]; }
    wait_for 120 donec; r=$?
    cjc=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${idc:-0}")
    sj=$(on_cluster "$c" scontrol show job "${cjc:-0}" 2>&1 | grep -o "HetJobId=[0-9]* HetJobOffset=[0-9]*" | sort -u | tr '\n' ' ')
    [ $r = 0 ] && [ -n "$cjc" ] && [ "$sj" = "HetJobId=$cjc HetJobOffset=0 HetJobId=$cjc HetJobOffset=1 " ]
    tap_ok $? "on $c ($(on_cluster "$c" scontrol --version 2>/dev/null)): $out, $(q "SELECT state FROM jobs WHERE id = ${idc:-0}"), $sj"
done

# a component no cluster can hold: refused whole at submission, saying why
out=$(msb "$u" "$d" -o /dev/null -n 1 : --gres=gpu:9 -n 1 het.sh 2>&1); rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep -q "HTTP 409" && printf '%s' "$out" | grep -q "component 1 fits no partition"
tap_ok $? "a hetjob whose component fits no cluster is refused: $out"

# 3: mscancel ends every component
printf '#!/bin/sh\n#SBATCH -t 5 -J msd-hetlong -n 1\n#SBATCH hetjob -n 1\nsleep 300\n' > "$d/hetlong.sh"
chmod 755 "$d/hetlong.sh"
out=$(msb "$u" "$d" -o /dev/null hetlong.sh 2>&1); id3=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
running3 () { [ "$(q "SELECT state FROM jobs WHERE id = ${id3:-0}")" = running ]; }
wait_for 120 running3
cl3=$(q "SELECT cluster FROM jobs WHERE id = ${id3:-0}")
cj3=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id3:-0}")
cancel_meta "$u" "$d" "${id3:-0}"
states3 () { on_cluster "$cl3" scontrol show job "${cj3:-0}" 2>&1 | grep -o 'JobState=[A-Z]*' | tr '\n' ' '; }
gone () { [ "$(states3)" = "JobState=CANCELLED JobState=CANCELLED " ]; }
wait_for 90 gone
st=$(states3)
[ "$st" = "JobState=CANCELLED JobState=CANCELLED " ]
tap_ok $? "mscancel of hetjob $id3 ($cl3 $cj3) cancels both components: $st"
cancelled () { [ "$(q "SELECT state FROM jobs WHERE id = ${id3:-0}")" = cancelled ]; }
wait_for 60 cancelled
tap_ok $? "metasched records it cancelled ($(q "SELECT state FROM jobs WHERE id = ${id3:-0}"))"
exit $tap_failed
