#!/bin/sh
# PostgreSQL crashes (testbed/pgctl stop -m immediate: no goodbye to the
# clients) under a running metaschedd whose API holds an open connection.
# The first submission after the crash meets that dead connection: it is
# refused with the API's 503 "database unavailable, retry later" like every
# submission while the database is down (doc/daemon.md "Database
# outages"), never a 500 with libpq's "server closed the connection
# unexpectedly" (which tells the user nothing about retrying, and left the
# dead connection in place). Once PostgreSQL is back the API accepts again
# within RECOVER_S seconds, and every accepted job completes. Takes the
# services lock and pg-down.lock exclusive; the database is started again
# on exit. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
pgctl=$MS_SRCDIR/testbed/pgctl
crash_cleanup () {
    "$pgctl" status 2>/dev/null || "$pgctl" start
    daemon_cleanup
}
trap crash_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
exec 9>"$MS_TESTBED_RUN/pg-down.lock"
flock -x 9
daemon_lock
RECOVER_S=60
tap_plan 5

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-pg-crash\nsleep 1\n' > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"
ids=
sub () { # sub: one submission; its answer on one line in $out, its status in $rc
    out=$(msb "$u" "$d" tiny.sh 2>&1); rc=$?
    out=$(printf '%s' "$out" | tr '\n' ' ')
    case $out in "Submitted meta job "*) ids="$ids${ids:+,}${out##* }" ;; esac
}

sub
tap_ok "$(ok_if [ $rc = 0 ])" "a submission before the crash is accepted ($out)"

"$pgctl" stop -m immediate; rs=$?
sub
clear=1
case $out in *"database unavailable, retry later"*"[HTTP 503]"*) [ $rc != 0 ] && clear=0 ;; esac
[ $rs = 0 ] && [ $clear = 0 ]
tap_ok $? \
    "PostgreSQL crashed (rc $rs): the first submission after it is refused with 503, retry later (rc $rc: $out)"
sub
clear=1
case $out in *"database unavailable, retry later"*"[HTTP 503]"*) [ $rc != 0 ] && clear=0 ;; esac
tap_ok "$clear" "and so is the next one while it is down (rc $rc: $out)"

"$pgctl" start; rt=$?
back () { sub; [ $rc = 0 ]; }
wait_for $RECOVER_S back; r=$?
[ $rt = 0 ] && [ $r = 0 ]
tap_ok $? "PostgreSQL started (rc $rt): a submission is accepted again within $RECOVER_S s ($out)"

done_ () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state = 'completed'")" = "$(printf '%s' "$ids" | tr ',' '\n' | grep -c .)" ]; }
wait_for 180 done_; r=$?
[ $r = 0 ] && kill -0 "$daemon_pid"
tap_ok $? "the daemon lives and every accepted job completes ($(q "SELECT state, count(*) FROM jobs WHERE id IN ($ids) GROUP BY 1" | tr '\n' ' '))"
exit $tap_failed
