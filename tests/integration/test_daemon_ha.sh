#!/bin/sh
# Two metaschedd instances on one database: one leads (the advisory lock),
# the other stands by and serves the API; after SIGKILL of the leader the
# standby takes over within leader_takeover_s, and no job is dispatched
# twice meanwhile (each on exactly one cluster). TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 6
takeover=5

u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3\nsleep 60\n' > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"
first=$(q "SELECT coalesce (max (id), 0) FROM jobs")

DAEMON_SOCKET=$dtmp/a.sock write_conf "$dtmp/a.conf"
DAEMON_SOCKET=$dtmp/b.sock write_conf "$dtmp/b.conf"
DAEMON_SOCKET=$dtmp/a.sock start_daemon "$dtmp/a.conf" "$dtmp/a.log"; pa=$daemon_pid
DAEMON_SOCKET=$dtmp/a.sock daemon_up "$dtmp/a.log"
wait_for 10 grep -q 'leading' "$dtmp/a.log"
DAEMON_SOCKET=$dtmp/b.sock start_daemon "$dtmp/b.conf" "$dtmp/b.log"; pb=$daemon_pid
DAEMON_SOCKET=$dtmp/b.sock daemon_up "$dtmp/b.log"
sleep 3
grep -q 'leading' "$dtmp/a.log" && ! grep -q 'leading' "$dtmp/b.log"
tap_ok $? \
    "the first instance leads, the second stands by"

# submissions through the standby's API are dispatched by the leader
for i in 1 2 3 4 5 6 7 8 9 10; do
    DAEMON_SOCKET=$dtmp/b.sock msb "$u" "$d" tiny.sh >/dev/null 2>&1
done
settled () { [ "$(q "SELECT count(*) FROM jobs WHERE id > $first AND state IN ('queued', 'deciding', 'dispatching')")" = 0 ]; }
wait_for 60 settled
n=$(q "SELECT count(*) FROM jobs WHERE id > $first AND state IN ('submitted', 'running')")
tap_ok "$(ok_if [ "$n" = 10 ])" "jobs sent to the standby's API are dispatched by the leader ($n of 10)"

# more submissions, then the leader dies
mpids=
for i in 1 2 3 4 5 6 7 8 9 10; do
    DAEMON_SOCKET=$dtmp/b.sock msb "$u" "$d" tiny.sh >/dev/null 2>&1 &
    mpids="$mpids $!"
done
sleep 0.3
t0=$(date +%s.%N)
kill -9 "$pa"
wait_for 30 grep -q 'leading' "$dtmp/b.log"; r=$?
t1=$(date +%s.%N)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
[ $r = 0 ] && awk -v t="$took" -v m="$takeover" 'BEGIN { exit !(t <= m) }'
tap_ok $? \
    "the standby leads ${took}s after the leader's SIGKILL (at most ${takeover}s)"
# wait for the submitters only: a bare wait would wait for the daemon too
for p in $mpids; do wait "$p"; done
wait_for 90 settled; r=$?
tap_ok "$r" "every job was dispatched ($(q "SELECT state, count(*) FROM jobs WHERE id > $first GROUP BY state" | tr '\n' ' '))"

q "SELECT id FROM jobs WHERE id > $first ORDER BY id" > "$dtmp/all"
cluster_jobs_tagged | grep '^metasched:' | grep -v '|CANCELLED|' > "$dtmp/tagged"
awk -F'[:|]' 'NR == FNR { n[$2]++; next } { c = n[$1] + 0; if (c == 0) z++; else if (c > 1) m++ } END { printf "%d %d\n", z + 0, m + 0 }' "$dtmp/tagged" "$dtmp/all" > "$dtmp/counts"
read -r zero multi < "$dtmp/counts"
[ "$zero" = 0 ] && [ "$(wc -l < "$dtmp/all")" = 20 ]
tap_ok $? "all 20 jobs are on a cluster ($zero on none)"
tap_ok "$(ok_if [ "$multi" = 0 ])" "none was dispatched twice ($multi on more than one cluster)"
