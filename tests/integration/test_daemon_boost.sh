#!/bin/sh
# metaschedd's priority boost (EAMC PriorityInc): a job placed on its
# optimal partition gets its Slurm priority raised on that cluster once the
# daemon next reads the cluster's job list. Jobs ask to begin ten minutes
# later (msbatch --begin) so that they stay pending; each boosted job's
# priority is compared with a job submitted straight to the same partition
# just after it. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
boost_cleanup () {
    [ -n "${restore:-}" ] && cfg set "priority_boost=$restore" >/dev/null 2>&1
    daemon_cleanup
}
trap boost_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 5

log=$dtmp/msd.log
daemon_lead

restore=$(cfg_value priority_boost)
out=$(cfg set priority_boost=yes dispatch_mode=single 2>&1)
tap_ok $? "an admin turns the priority boost on ($(printf '%s' "$out" | tr '\n' ' '))"

u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 5\n#SBATCH -J msd-boost\ntrue\n' > "$d/later.sh"
chmod 755 "$d/later.sh"
ids=
for i in 1 2 3; do
    out=$(msb "$u" "$d" --begin=now+600 later.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    ids="$ids${ids:+,}$id"
done
placed () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state = 'submitted'")" = 3 ]; }
wait_for 60 placed
tap_ok $? "3 jobs that begin in ten minutes are on their clusters, pending ($(q "SELECT id, state, cluster, partition, cluster_job_id FROM jobs WHERE id IN ($ids)" | tr '\n' ' '))"

# each job the daemon says it boosted: its priority there, against a job
# submitted straight to the same partition now (priority/basic numbers
# jobs down by submission: the newer one would be above only by luck)
boosted () { [ "$(grep -c 'priority boost of .*: [0-9]* -> [0-9]*' "$log")" -ge 1 ]; }
wait_for 60 boosted
tap_ok $? "the daemon boosted at least one of them ($(grep -c 'priority boost of .* -> ' "$log") boosted; $(grep 'priority boost' "$log" | tail -3 | tr '\n' ' '))"

bad=0 checked=0 detail=
for row in $(q "SELECT cluster || ':' || partition || ':' || cluster_job_id FROM jobs WHERE id IN ($ids)"); do
    c=${row%%:*} rest=${row#*:}; p=${rest%%:*} bid=${rest#*:}
    grep -q "priority boost of $c job $bid: " "$log" || continue
    conf=$(getv "MS_$(upper "$c")_CONF")
    ref=$(cd "$d" && SLURM_CONF=$conf runuser -u "$u" -- "$(slurm_cmd "$c" sbatch)" --parsable -p "$p" --begin=now+600 -t 5 -J msd-boost-ref later.sh 2>&1)
    pb=$(on_cluster "$c" squeue -h -j "$bid" -o %Q 2>/dev/null)
    pr=$(on_cluster "$c" squeue -h -j "$ref" -o %Q 2>/dev/null)
    on_cluster "$c" scancel "$ref" 2>/dev/null
    checked=$((checked + 1))
    detail="$detail $c/$p job $bid: $pb against $pr;"
    if [ -z "$pb" ] || [ -z "$pr" ] || [ $((pb - pr)) -lt 9000 ]; then bad=$((bad + 1)); fi
done
[ "$checked" -ge 1 ] && [ "$bad" = 0 ]
tap_ok $? "each boosted job's priority is at least 9000 above a job submitted after it to the same partition ($checked checked, $bad not:$detail)"

# the metric counts them
n=$(curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_priority_boosts_total //p')
[ -n "$n" ] && [ "$n" -ge "$checked" ]
tap_ok $? "metaschedd_priority_boosts_total counts them ($n)"
exit $tap_failed
