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

mold_history msmold$$ 3 6
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
