#!/bin/sh
# metaschedd starts at once whatever its http(s) carbon sources do: the
# first cluster's zone is polled from a local server that takes the
# connection and never answers (the daemon's poll runs to its timeout).
# The API serves /metrics while that first poll still hangs (the server
# has the connection open, none closed); later the poll's failure is
# logged, and the what-if says the zone's carbon signal is missing and
# the job is scored on energy alone. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
command -v python3 >/dev/null || tap_skip_all "python3 not installed"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"
hang_pid=
trap '[ -z "$hang_pid" ] || kill "$hang_pid" 2>/dev/null; daemon_cleanup' EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 4

log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")

# the first cluster in zone Z1, the others in none
awk '{ print } /^\[cluster / && !z { z = 1; print "zone = Z1" }' "$MS_CLUSTERS_CONF" >"$dtmp/clusters.conf"
DAEMON_CLUSTERS_CONF=$dtmp/clusters.conf

# a server that takes each connection, reads what comes and never
# answers; it writes "accept N" and "closed N" (the client gave up) to
# hang.log and its port to hang.port
cat >"$dtmp/hang.py" <<'EOF'
import select, socket, sys
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
out = open(sys.argv[1], "a", buffering=1)
open(sys.argv[2], "w").write("%d\n" % srv.getsockname()[1])
conns, n = {}, 0
while True:
    r, _, _ = select.select([srv] + list(conns), [], [])
    for s in r:
        if s is srv:
            c, _ = srv.accept()
            n += 1
            conns[c] = n
            out.write("accept %d\n" % n)
        elif not s.recv(4096):
            out.write("closed %d\n" % conns.pop(s))
            s.close()
EOF
python3 "$dtmp/hang.py" "$dtmp/hang.log" "$dtmp/hang.port" >"$dtmp/hang.err" 2>&1 &
hang_pid=$!
wait_for 20 test -s "$dtmp/hang.port" || tap_skip_all "the local server did not start: $(cat "$dtmp/hang.err")"
port=$(cat "$dtmp/hang.port")
url=http://127.0.0.1:$port/z1.json

api () { curl -sf --unix-socket "$dtmp/msd.sock" http://localhost/metrics -o /dev/null; }

# 1: the API answers while the first poll hangs: the server holds the
# daemon's connection, and no connection of it has closed
write_conf "$dtmp/msd.conf" "carbon_signal = Z1=$url" "carbon_poll_s = 300"
start_daemon "$dtmp/msd.conf" "$log"
wait_for 300 api
up=$?
seen=$(cat "$dtmp/hang.log" 2>/dev/null | tr '\n' ' ')
[ $up = 0 ] && grep -q '^accept ' "$dtmp/hang.log" && ! grep -q '^closed ' "$dtmp/hang.log"
tap_ok $? "/metrics answers while the first poll of $url still waits (server: ${seen:-nothing})"

# 2: the poll fails later, logged with the source
failed () { grep -q "carbon: zone Z1: .*$url: " "$log"; }
wait_for 300 failed
tap_ok $? "the failed poll is logged: $(grep "carbon: zone Z1: .*$url" "$log" | tail -1)"

# 3: the daemon leads and decides meanwhile
wait_for 60 grep -q 'leading: this instance now schedules' "$log"
tap_ok $? "metaschedd leads while its carbon source fails"

# 4: the what-if of a job says the zone's carbon signal is missing and
# that it is scored on energy alone
msb_sleep "$u" "$d" cs-wi 1
daemon_answers "$u" "$d" cs-wi.sh
note=$(msb "$u" "$d" --test-only cs-wi.sh 2>&1 | grep '^note:')
case $note in *"zone Z1: carbon signal missing"*"energy alone"*) true ;; *) false ;; esac
tap_ok $? "the what-if says so: $note"
exit $tap_failed
