#!/bin/sh
# One cluster down under load: gamma's slurmctld and slurmrestd are stopped
# (testbed/stop --cluster gamma) while jobs arrive; they go to alpha and
# beta, a job pinned to gamma waits, the daemon's attempts on gamma stay
# bounded (backoff, no busy loop: counted from /metrics), and once
# testbed/start brings gamma back the daemon uses it again (the pinned job
# runs there). Takes the services lock exclusive; gamma is restored on
# exit. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
down=gamma
need_cluster "$down"
trap cluster_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
# services first, then the daemon lock: a test holding the services shared
# may be waiting for the daemon lock
tap_services_exclusive
daemon_lock
tap_plan 7

log=$dtmp/msd.log
daemon_lead "allow_partition = yes"

metric () { # metric NAME CLUSTER
    curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics |
        sed -n "s/^$1{cluster=\"$2\"} //p"
}
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3\n#SBATCH -J msd-down\nsleep 2\n' > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"

conf=$(getv "MS_$(upper "$down")_CONF")
stop_clusters "$down"
t0=$(date +%s)
SLURM_CONF=$conf timeout 10 "$(slurm_cmd "$down" scontrol)" ping 2>/dev/null | grep -q UP
tap_ok "$(ok_if [ $? != 0 ])" "$down's slurmctld and slurmrestd are stopped"

ids=
for i in 1 2 3 4 5 6 7 8 9 10; do
    out=$(msb "$u" "$d" tiny.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    ids="$ids${ids:+,}$id"
    sleep 0.5
done
pdown=$(getv "MS_$(upper "$down")_PARTITIONS"); pdown=${pdown%% *}
out=$(msb "$u" "$d" -p "$down/$pdown" tiny.sh 2>&1); pinned=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
placed () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state IN ('submitted', 'running', 'completed')")" = 10 ]; }
wait_for 60 placed
where=$(q "SELECT coalesce (cluster, '-'), count(*) FROM jobs WHERE id IN ($ids) GROUP BY 1 ORDER BY 1" | tr '\n' ' ')
ondown=$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND cluster = '$down'")
placed && [ "$ondown" = 0 ]
tap_ok $? "10 jobs submitted while $down is down all went to the others ($where)"

# keep it down about 25 s in all, then count what the daemon tried
while [ $(( $(date +%s) - t0 )) -lt 25 ]; do sleep 1; done
st=$(q "SELECT state FROM jobs WHERE id = $pinned")
tap_ok "$(ok_if [ "$st" = queued ])" "the job pinned to $down/$pdown waits ($st)"
fails=$(metric metaschedd_cluster_failures_total "$down")
cycles=$(curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_cycles_total //p')
logged=$(grep -c "cluster $down unreachable" "$log")
# backoff 1, 2, 4, 8, 16 s: at most 6 tries in 25 s; a busy loop makes hundreds
[ -n "$fails" ] && [ "$fails" -ge 1 ] && [ "$fails" -le 8 ] && [ "${cycles:-0}" -gt "$fails" ]
tap_ok $? \
    "no busy loop: $fails failed attempts on $down in 25 s ($logged logged) over $cycles cycles"

restore_clusters; r=$?
tap_ok "$r" "testbed/start brings $down back"
t1=$(date +%s)
on_down () { [ "$(q "SELECT cluster FROM jobs WHERE id = $pinned AND state IN ('submitted', 'running', 'completed')")" = "$down" ]; }
wait_for 120 on_down; r=$?
tap_ok "$r" "$down is used again: the pinned job is dispatched there $(( $(date +%s) - t1 )) s after its return ($(q "SELECT state, cluster, cluster_job_id, last_error FROM jobs WHERE id = $pinned"))"

all_done () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids, $pinned) AND state = 'completed'")" = 11 ]; }
wait_for 90 all_done; r=$?
tap_ok "$r" "every job completes ($(q "SELECT state, count(*) FROM jobs WHERE id IN ($ids, $pinned) GROUP BY 1" | tr '\n' ' '))"
exit $tap_failed
