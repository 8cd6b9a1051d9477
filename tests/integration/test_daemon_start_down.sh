#!/bin/sh
# A cluster down when the daemon starts: gamma's slurmctld and slurmrestd
# are stopped (testbed/stop --cluster gamma) before metaschedd starts. The
# daemon starts anyway, says so in its log and in /v1/clusters (metasched clusters --daemon), routes
# jobs to alpha and beta, and a job pinned to gamma waits; a standby that
# starts meanwhile takes over when the leader dies; once gamma is back, its
# OpenAPI version is negotiated then (logged, in /v1/clusters) and the
# pinned job runs there. `metaschedd -t` names the unreachable cluster.
# Takes the services lock exclusive; gamma is restored on exit. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
down=gamma
need_cluster "$down"
trap cluster_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 11
all0 () { for x in "$@"; do [ "$x" = 0 ] || { echo 1; return; }; done; echo 0; }   # 0 when every status is 0

u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3\n#SBATCH -J msd-sdown\nsleep 2\n' > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"
first=$(q "SELECT coalesce (max (id), 0) FROM jobs")

stop_clusters "$down"

# 1. the configuration check names the cluster that does not answer
DAEMON_SOCKET=$dtmp/a.sock write_conf "$dtmp/a.conf" "allow_partition = yes"
out=$("$msd" -t -f "$dtmp/a.conf" 2>&1); rc=$?
printf '%s\n' "$out" | grep -q "\[cluster $down\]: .* is unreachable"; g=$?
tap_ok "$(all0 $g "$([ $rc = 1 ]; echo $?)")" "metaschedd -t names $down as unreachable (rc $rc)"

# 2. the daemon starts with it down, and leads
DAEMON_SOCKET=$dtmp/a.sock start_daemon "$dtmp/a.conf" "$dtmp/a.log"; pa=$daemon_pid
DAEMON_SOCKET=$dtmp/a.sock daemon_up "$dtmp/a.log"
wait_for 15 grep -q 'leading: this instance now schedules' "$dtmp/a.log"; r=$?
grep -q "\[cluster $down\]: .* is unreachable at the start" "$dtmp/a.log"; g=$?
tap_ok "$(all0 $r $g)" "the daemon starts and leads with $down down, and logs it"

clusters () { # clusters SOCKET: metasched clusters --daemon (GET /v1/clusters)
    METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$metasched" clusters --daemon -s "unix:$1" 2>&1
}
out=$(clusters "$dtmp/a.sock"); rc=$?
line=$(printf '%s\n' "$out" | grep "^$down: ")
case $line in "$down: DOWN, no OpenAPI version yet"*) r=0 ;; *) r=1 ;; esac
printf '%s\n' "$out" | grep -q "^  last error: "; g=$?
tap_ok "$(all0 $r $g "$([ $rc = 1 ]; echo $?)")" "metasched clusters --daemon: $down down, no version yet, its error (rc $rc: $line)"

# 3. jobs go to the others; a job pinned to the cluster waits
ids=
for i in 1 2 3 4 5 6; do
    out=$(DAEMON_SOCKET=$dtmp/a.sock msb "$u" "$d" tiny.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    ids="$ids${ids:+,}${id:-0}"
done
pdown=$(getv "MS_$(upper "$down")_PARTITIONS"); pdown=${pdown%% *}
out=$(DAEMON_SOCKET=$dtmp/a.sock msb "$u" "$d" -p "$down/$pdown" tiny.sh 2>&1)
pinned=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
placed () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state IN ('submitted', 'running', 'completed')")" = 6 ]; }
wait_for 60 placed; r=$?
ondown=$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND cluster = '$down'")
where=$(q "SELECT coalesce (cluster, '-'), count(*) FROM jobs WHERE id IN ($ids) GROUP BY 1 ORDER BY 1" | tr '\n' ' ')
tap_ok "$(all0 $r "$([ "$ondown" = 0 ]; echo $?)")" "6 jobs routed to the other clusters ($where)"
st=$(q "SELECT state FROM jobs WHERE id = ${pinned:-0}")
tap_ok "$(ok_if [ "$st" = queued ])" "the job pinned to $down/$pdown waits ($st)"

# 4. a standby that starts while the cluster is down takes over
DAEMON_SOCKET=$dtmp/b.sock write_conf "$dtmp/b.conf" "allow_partition = yes"
DAEMON_SOCKET=$dtmp/b.sock start_daemon "$dtmp/b.conf" "$dtmp/b.log"; pb=$daemon_pid
DAEMON_SOCKET=$dtmp/b.sock daemon_up "$dtmp/b.log"
sleep 2
! grep -q 'leading' "$dtmp/b.log" && grep -q "\[cluster $down\]: .* is unreachable at the start" "$dtmp/b.log"
tap_ok $? "a standby starts with $down down and stands by"
kill -9 "$pa"
wait_for 30 grep -q 'leading: this instance now schedules' "$dtmp/b.log"; r=$?
out=$(DAEMON_SOCKET=$dtmp/b.sock msb "$u" "$d" tiny.sh 2>&1); after=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
on_other () { [ "$(q "SELECT count(*) FROM jobs WHERE id = ${after:-0} AND state IN ('submitted', 'running', 'completed') AND cluster <> '$down'")" = 1 ]; }
wait_for 60 on_other; r2=$?
tap_ok "$(all0 $r $r2)" "after the leader's SIGKILL the standby leads and routes ($(q "SELECT state, cluster FROM jobs WHERE id = ${after:-0}"))"

# 5. the cluster comes back: its version is negotiated then, and it is used
restore_clusters; r=$?
tap_ok "$r" "testbed/start brings $down back"
wait_for 60 grep -q "cluster $down reachable (down since the start)" "$dtmp/b.log"; r=$?
grep -q "cluster $down: slurmrestd now speaks OpenAPI v0\.0\.[0-9]* (was none)" "$dtmp/b.log"; g=$?
tap_ok "$(all0 $r $g)" "the daemon logs $down reachable and the version it negotiated then"
reachable () { clusters "$dtmp/b.sock" | grep -q "^$down: reachable, OpenAPI v0\.0\.[0-9]* (negotiated)"; }
wait_for 30 reachable; r=$?
tap_ok "$r" "metasched clusters --daemon: $down reachable, with the version negotiated ($(clusters "$dtmp/b.sock" | grep "^$down: "))"
on_down () { [ "$(q "SELECT cluster FROM jobs WHERE id = ${pinned:-0} AND state IN ('submitted', 'running', 'completed')")" = "$down" ]; }
wait_for 120 on_down; r=$?
tap_ok "$r" "the pinned job is dispatched to $down ($(q "SELECT state, cluster, last_error FROM jobs WHERE id = ${pinned:-0}"))"
exit $tap_failed
