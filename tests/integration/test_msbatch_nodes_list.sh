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

mold_history mslist$$ 4 5
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
