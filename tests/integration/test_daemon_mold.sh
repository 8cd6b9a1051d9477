#!/bin/sh
# Moldable jobs through metaschedd (msbatch -N MIN-MAX): the daemon sizes
# a moldable job per candidate with its app's speedup model, fitted from
# the app's runs at several node counts in job_runs when the predictor is
# loaded, and sends the chosen count as a fixed one (nodes = min = max).
# The test seeds runs of an app at 1, 2 and 4 nodes on the largest
# cluster (T(n) = 30 + 600 / n s: worth more nodes at the default energy
# weight), then checks that a moldable job of that app gets more than its
# minimum, that Slurm's NumNodes is the decision's count and that the
# cluster job asks no range; a moldable job of an app without history
# gets its minimum. Takes the daemon lock; the seeded runs are removed on
# exit. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

app=msmold$$
big= bign=0
for c in $MS_CLUSTERS; do
    n=$(getv "MS_$(upper "$c")_NODES" | wc -w)
    [ "$n" -gt "$bign" ] && { big=$c; bign=$n; }
done
[ "$bign" -ge 3 ] || tap_skip_all "no test bed cluster has 3 nodes"
part=$(sed -n "s/^\[partition $big\/\(.*\)\]$/\1/p" "$MS_CLUSTERS_CONF" | head -1)

mold_cleanup () {
    q "DELETE FROM job_runs WHERE app = '$app'" >/dev/null
    daemon_cleanup
}
trap mold_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 6

# 1: the history: three jobs at each of 1, 2 and 4 nodes (one row per node)
vals= jid=$(( 900000000 + $$ * 16 ))
for n in 1 2 4; do
    for r in 1 2 3; do
        jid=$((jid + 1))
        t=$(( 30 + 600 / n + r ))
        i=1
        while [ $i -le $n ]; do
            vals="$vals${vals:+,}('$big', '$part', $jid, 'n$i', '$app', 'alice', $n, NULL, now () - interval '1 day', now () - interval '1 day' + interval '$t seconds', $t, $((t * 200)), $((t * 20)), 1.2, 0.01, true, 'root-measured', 't')"
            i=$((i + 1))
        done
    done
done
out=$(q "INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app, user_name, nodes, freq_req_khz, start_time, end_time, runtime_s, pkg_energy_j, dram_energy_j, cpi, tpi, exclusive, source, collector_version) VALUES $vals")
rows=$(q "SELECT count(*) FROM job_runs WHERE app = '$app'")
tap_ok "$(ok_if [ "$rows" = 21 ])" "seeded runs of $app on $big/$part at 1, 2 and 4 nodes: $rows rows $out"

log=$dtmp/msd.log
daemon_lead
# the leader loads the models at the start of its first cycle, after it
# has said it leads
wait_for 20 grep -q "speedup of $app" "$log"
sm=$(grep -m1 "speedup of $app" "$log" | sed 's/.*speedup of/speedup of/')
[ -n "$sm" ]
tap_ok $? "the daemon fitted the app's speedup model: ${sm:-$(grep -i speedup "$log" | tail -2 | tr '\n' ' ')}"

u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-mold\necho "nodes=$SLURM_JOB_NUM_NODES"\nsleep 20\n' > "$d/mold.sh"
chmod 755 "$d/mold.sh"

# 2: a moldable job of that app gets more than its minimum, as a fixed count
out=$(msb "$u" "$d" -N "1-$bign" --app="$app" -o mold-%j.out mold.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
running () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = running ]; }
wait_for 90 running
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0}")
chosen=$(q "SELECT c->>'nodes' FROM decisions d, json_array_elements (d.candidates::json) c WHERE d.job_id = ${id:-0} AND (c->>'chosen')::boolean ORDER BY d.id DESC LIMIT 1")
sj=$(on_cluster "$cl" scontrol show job "${cj:-0}" 2>&1)
nn=$(printf '%s' "$sj" | grep -o 'NumNodes=[0-9-]*' | head -1 | cut -d= -f2)
[ -n "$chosen" ] && [ "$chosen" -gt 1 ] 2>/dev/null && [ "$nn" = "$chosen" ]
tap_ok $? "the moldable job $id ($out) runs on $cl with NumNodes=$nn, the decision's count $chosen (range 1-$bign)"
printf '%s' "$sj" | grep -q "NumNodes=$nn " || printf '%s' "$sj" | grep -q "NumNodes=$nn\$"
tap_ok $? "Slurm holds a fixed count, no range: $(printf '%s' "$sj" | grep -o 'NumNodes=[^ ]*')"
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 90 done_
jo=$(cat "$d/mold-$cj.out" 2>/dev/null)
[ "$jo" = "nodes=$chosen" ]
tap_ok $? "the job ran on its $chosen nodes ($jo) and completed ($(q "SELECT state FROM jobs WHERE id = ${id:-0}"))"

# 3: an app without history: the user's minimum
out=$(msb "$u" "$d" -N "2-$bign" --app="${app}none" -o mold-%j.out mold.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
decided () { [ -n "$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id2:-0} AND cluster_job_id IS NOT NULL")" ]; }
wait_for 90 decided
cl2=$(q "SELECT cluster FROM jobs WHERE id = ${id2:-0}")
cj2=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id2:-0}")
ch2=$(q "SELECT c->>'nodes' FROM decisions d, json_array_elements (d.candidates::json) c WHERE d.job_id = ${id2:-0} AND (c->>'chosen')::boolean ORDER BY d.id DESC LIMIT 1")
nn2=$(on_cluster "$cl2" scontrol show job "${cj2:-0}" 2>&1 | grep -o 'NumNodes=[0-9-]*' | head -1 | cut -d= -f2)
# (a pending job shows MIN-MAX: fixed, 2-2)
[ "$ch2" = 2 ] && { [ "$nn2" = 2 ] || [ "$nn2" = 2-2 ]; }
tap_ok $? "a moldable job of an app without history ($id2) gets its minimum: decision $ch2, NumNodes=$nn2"
exit $tap_failed
