#!/bin/sh
# No cluster up when the daemon starts: every cluster's slurmctld and
# slurmrestd stopped. metaschedd starts all the same, leads, logs each
# cluster unreachable, accepts a job and keeps it queued; once the clusters
# are back the job is routed and completes. Takes the services lock
# exclusive; the clusters are restored on exit. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap cluster_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 4

u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3\n#SBATCH -J msd-none\nsleep 1\n' > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"
stop_clusters $MS_CLUSTERS
log=$dtmp/msd.log
daemon_lead; r=$?
n=$(grep -c 'is unreachable at the start' "$log")
tap_ok "$([ $r = 0 ] && [ "$n" = "$(echo $MS_CLUSTERS | wc -w)" ] && echo 0 || echo 1)" \
    "with no cluster up the daemon starts, leads and logs each unreachable ($n)"
out=$(msb "$u" "$d" tiny.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
sleep 5
st=$(q "SELECT state FROM jobs WHERE id = ${id:-0}")
tap_ok "$([ -n "$id" ] && [ "$st" = queued ] && echo 0 || echo 1)" "a job is accepted and waits queued ($out: $st)"
restore_clusters; r=$?
tap_ok "$r" "testbed/start brings the clusters back"
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 120 done_; r=$?
tap_ok "$r" "the job is routed once they answer, and completes ($(q "SELECT state, cluster FROM jobs WHERE id = ${id:-0}"))"
exit $tap_failed
