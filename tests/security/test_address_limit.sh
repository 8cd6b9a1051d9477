#!/bin/sh
# On the TCP listener, one client address that opens 200 connections and
# trickles their headers holds at most max_connections_per_address (64,
# the default): the others are answered 429 as they are accepted; meanwhile a
# request on the unix socket is answered within 5 s, and afterwards one
# over TCP. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
slow=$MS_BUILDDIR/tests/security/slowclient
[ -x "$slow" ] || tap_skip_all "$slow not built"
trap daemon_cleanup EXIT
daemon_lock
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_plan 4

log=$dtmp/msd.log
sock=$dtmp/msd.sock
# a port of our own near the test bed's API port (test_api binds that one)
port=$(( ${MS_TESTBED_API_PORT:-18830} + 7 ))
while [ -n "$(ss -Htln "sport = :$port" 2>/dev/null)" ] && [ $port -lt $(( ${MS_TESTBED_API_PORT:-18830} + 40 )) ]; do
    port=$((port + 1))
done
write_conf "$dtmp/msd.conf" "listen = 127.0.0.1:$port"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
msqueue_at () {
    runuser -u "$MS_TEST_USER2" -- env METASCHED_SERVER="$1" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        timeout 60 "$MS_BUILDDIR/metasched/msqueue" 2>&1
}

"$slow" trickle "tcp:$port" 200 8 2 > "$dtmp/trickle.out" 2>&1 &
slow_pid=$!
sleep 4
t0=$(date +%s%N)
out=$(msqueue_at "unix:$sock"); rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
tap_ok "$([ $rc = 0 ] && [ $ms -lt 5000 ] && echo 0 || echo 1)" \
    "while one address trickles 200 TCP connections, msqueue on the unix socket is answered within 5 s (rc $rc, $ms ms: $out)"
wait "$slow_pid"
out=$(cat "$dtmp/trickle.out")
get () { printf '%s\n' "$out" | sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }
tap_ok "$([ "$(get open)" -le 64 ] && echo 0 || echo 1)" \
    "the address held at most 64 connections (max_connections_per_address) ($out)"
tap_ok "$([ "$(get refused429)" -ge 136 ] && echo 0 || echo 1)" \
    "the others were answered 429 as they were accepted ($out)"
# the trickling ones are gone (closed by the client): TCP serves again
out=$(msqueue_at "http://127.0.0.1:$port"); rc=$?
tap_ok $rc "a well-formed request over TCP is served afterwards (rc $rc: $out)"
exit $tap_failed
