#!/bin/sh
# A --nodes list (msbatch -N 1,3) through metaschedd: a moldable choice
# among the listed sizes only. The test seeds runs of an app at 1, 2 and 4
# nodes on the largest cluster (T(n) = 30 + 600 / n s: worth more nodes at
# the default energy weight), then checks that a job of that app with
# -N 1,3 is decided at a listed size on every candidate (never 2 or 4),
# at 3 where it is chosen, that Slurm's NumNodes is that count and that
# msqueue shows it. Takes the daemon lock; the seeded runs are removed on
# exit. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

app=mslist$$
big= bign=0
for c in $MS_CLUSTERS; do
    n=$(getv "MS_$(upper "$c")_NODES" | wc -w)
    [ "$n" -gt "$bign" ] && { big=$c; bign=$n; }
done
[ "$bign" -ge 4 ] || tap_skip_all "no test bed cluster has 4 nodes"
part=$(sed -n "s/^\[partition $big\/\(.*\)\]$/\1/p" "$MS_CLUSTERS_CONF" | head -1)

mold_cleanup () {
    q "DELETE FROM job_runs WHERE app = '$app'" >/dev/null
    daemon_cleanup
}
trap mold_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 5

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
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-list\necho "nodes=$SLURM_JOB_NUM_NODES"\nsleep 20\n' > "$d/list.sh"
chmod 755 "$d/list.sh"

# 2: -N 1,3: a size of the list on every candidate, 3 where chosen
out=$(msb "$u" "$d" -N 1,3 --app="$app" -o list-%j.out list.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
running () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = running ]; }
wait_for 90 running
sizes=$(q "SELECT string_agg (DISTINCT c->>'nodes', ',') FROM decisions d, json_array_elements (d.candidates::json) c WHERE d.job_id = ${id:-0}")
chosen=$(q "SELECT c->>'nodes' FROM decisions d, json_array_elements (d.candidates::json) c WHERE d.job_id = ${id:-0} AND (c->>'chosen')::boolean ORDER BY d.id DESC LIMIT 1")
case ",$sizes," in *,2,*|*,4,*|,,) r=1 ;; *) r=0 ;; esac
tap_ok $r "job $id ($out): its candidates' sizes are of the list 1,3 only ($sizes)"
tap_ok "$(ok_if [ "$chosen" = 3 ])" "the size chosen is 3 (T(n) = 30 + 600/n): $chosen"
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0}")
nn=$(on_cluster "$cl" scontrol show job "${cj:-0}" 2>&1 | grep -o 'NumNodes=[0-9-]*' | head -1 | cut -d= -f2)
mq=$(runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$MS_BUILDDIR/metasched/msqueue" -h -j "${id:-0}" -o %D 2>&1 | tr -d ' ')
[ -n "$chosen" ] && [ "$nn" = "$chosen" ] && [ "$mq" = "$chosen" ]
tap_ok $? "Slurm runs it on $cl with NumNodes=$nn, msqueue -o %D shows $mq"
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 90 done_
exit $tap_failed
