#!/bin/sh
# GPUs asked per task through metaschedd on the test bed's GPU cluster
# (gamma: two counted GPUs a node). metaschedd sends a job on the nodes it
# asks for (one where none is given), so its tasks share a node and a node
# must hold the GPUs of them all: --tres-per-task=gres/gpu:N and
# --gpus-per-task=N count N times the tasks. A job of 2 tasks x 2 GPUs (4 a
# node) is refused at submission, naming the GPUs and the largest offer,
# whatever the clusters' Slurm release; 2 tasks x 1 GPU (2 a node) fits
# gamma's nodes: it runs there with both GPUs allocated (--gpus-per-task;
# --tres-per-task where gamma's slurmrestd speaks v0.0.39 or later, Slurm
# 23.02 on, else refused for that with each cluster's reason). Takes the
# services lock exclusive. TAP.
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
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 4

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
per=$gpn # GPUs a task: the tasks of one node ask twice a node's GPUs
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-tpt2 -n 2\n#SBATCH --tres-per-task=gres/gpu:%s\nsleep 1\n' "$per" > "$d/tpt2.sh"
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-gpt2 -n 2\n#SBATCH --gpus-per-task=%s\nsleep 1\n' "$per" > "$d/gpt2.sh"
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-gpt1 -n 2\n#SBATCH --gpus-per-task=1\necho "gpus=$CUDA_VISIBLE_DEVICES"\n' > "$d/gpt1.sh"
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-tpt1 -n 2\n#SBATCH --tres-per-task=gres/gpu=1\necho "gpus=$CUDA_VISIBLE_DEVICES"\n' > "$d/tpt1.sh"
chmod 755 "$d"/*.sh
daemon_answers "$u" "$d" gpt1.sh
want="the job asks for $((2 * per)) GPUs per node; the most a partition offers is $gpn"

# 1, 2: 2 tasks x N GPUs on one node: refused, both spellings
before=$(q "SELECT count(*) FROM jobs")
out=$(msb "$u" "$d" tpt2.sh 2>&1); rc=$?
after=$(q "SELECT count(*) FROM jobs")
[ $rc != 0 ] && printf '%s' "$out" | grep -qF "$want" && [ "$before" = "$after" ]
tap_ok $? "--tres-per-task=gres/gpu:$per with 2 tasks is refused for its $((2 * per)) GPUs a node (rc $rc, nothing stored): $out"
out=$(msb "$u" "$d" gpt2.sh 2>&1); rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep -qF "$want"
tap_ok $? "--gpus-per-task=$per with 2 tasks is refused the same way (rc $rc): $out"

# 3: 2 tasks x 1 GPU: on the GPU cluster, both GPUs of the node allocated
out=$(msb "$u" "$d" -o gpt1.out gpt1.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
done_ () { case $(q "SELECT state FROM jobs WHERE id = ${id:-0}") in completed|failed|cancelled) return 0 ;; esac; return 1; }
wait_for 150 done_
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
got=$(cat "$d/gpt1.out" 2>/dev/null)
[ "$cl" = "$gc" ] && [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ] && [ "$got" = "gpus=0,1" ]
tap_ok $? "2 tasks x 1 GPU run on $cl ($gc expected) with the node's GPUs ($got)"

# 4: the --tres-per-task spelling: where gamma's slurmrestd carries it,
# the same; else refused for the option, not for GPUs
eval served=\${MS_$(upper "$gc")_REST_VERSIONS:-v0.0.38}
case " $served " in
*" v0.0.39 "*|*" v0.0.4"*)
    out=$(msb "$u" "$d" -o tpt1.out tpt1.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    wait_for 150 done_
    cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
    got=$(cat "$d/tpt1.out" 2>/dev/null)
    [ "$cl" = "$gc" ] && [ "$got" = "gpus=0,1" ]
    tap_ok $? "--tres-per-task=gres/gpu=1 with 2 tasks runs on $cl with the node's GPUs ($got)" ;;
*)
    out=$(msb "$u" "$d" tpt1.sh 2>&1); rc=$?
    [ $rc != 0 ] && printf '%s' "$out" | grep -q -- "$gc: --tres-per-task: this cluster's Slurm does not know it" \
        && ! printf '%s' "$out" | grep -q "$gc/[a-z]*: asks for"
    tap_ok $? "--tres-per-task=gres/gpu=1 with 2 tasks: $gc refused for the option ($served), not for its GPUs (rc $rc): $out" ;;
esac
exit $tap_failed
