#!/bin/sh
# One user's 1,000 connections that trickle a byte of their headers every
# 3 s (the client that once held every connection of the API) keep no other
# user waiting: while they trickle, msuser2's msqueue is answered within
# 5 s; msuser holds at most max_connections_per_user (16, the default) of
# them, the rest are answered 429 naming the limit as they connect; the
# daemon's memory (VmRSS, built with the sanitizers: about 38 MiB idle,
# 58 MiB under this load) stays under 400 MiB and grows by less than
# 64 MiB; /metrics counts the refusals. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
slow=$MS_BUILDDIR/tests/security/slowclient
[ -x "$slow" ] || tap_skip_all "$slow not built"
trap daemon_cleanup EXIT
daemon_lock
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_plan 7

log=$dtmp/msd.log
sock=$dtmp/msd.sock
write_conf "$dtmp/msd.conf"
# the daemon's own memory: ASan's quarantine of freed blocks (up to 256
# MiB, filled by any churn, such as reading the clusters' job lists) off
DAEMON_ASAN=quarantine_size_mb=0 start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
rss () { awk '/^VmRSS:/ { print $2 }' "/proc/$daemon_pid/status"; }
msqueue_as () {
    runuser -u "$1" -- env METASCHED_SERVER="unix:$sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        timeout 60 "$MS_BUILDDIR/metasched/msqueue" >/dev/null 2>"$dtmp/msqueue.err"
}
msqueue_as "$MS_TEST_USER2"    # warm: the API's database connection is open
rss0=$(rss)

runuser -u "$MS_TEST_USER" -- "$slow" trickle "$sock" 1000 30 3 > "$dtmp/trickle.out" 2>&1 &
slow_pid=$!
sleep 12     # every connection made (10 s at most), the held ones trickling
t0=$(date +%s%N)
msqueue_as "$MS_TEST_USER2"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
tap_ok "$([ $rc = 0 ] && echo 0 || echo 1)" "msuser2's msqueue is answered while msuser trickles 1,000 connections (rc $rc: $(head -c 300 "$dtmp/msqueue.err"))"
tap_ok "$([ $rc = 0 ] && [ $ms -lt 5000 ] && echo 0 || echo 1)" "... within 5 s ($ms ms)"
peak=0
while kill -0 "$slow_pid" 2>/dev/null; do
    r=$(rss); [ "${r:-0}" -gt "$peak" ] && peak=$r
    sleep 1
done
wait "$slow_pid"
out=$(cat "$dtmp/trickle.out")
get () { printf '%s\n' "$out" | sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }
held=$(( $(get open) + $(get timeout408) + $(get closed) ))
tap_ok "$([ "$(get opened)" = 1000 ] && echo 0 || echo 1)" "the 1,000 connections were all accepted or answered ($out)"
tap_ok "$([ "$held" -le 16 ] && [ "$(get refused429)" -ge 984 ] && echo 0 || echo 1)" \
    "msuser held at most 16 (max_connections_per_user), the others were refused 429 ($out)"
# the refusal says which limit, as JSON
runuser -u "$MS_TEST_USER" -- "$slow" trickle "$sock" 16 15 3 > /dev/null 2>&1 &
slow_pid=$!
sleep 2
ans=$(runuser -u "$MS_TEST_USER" -- curl -s -m 20 -w ' HTTP %{http_code}' --unix-socket "$sock" http://localhost/v1/jobs 2>&1)
case $ans in
*'"limit":"max_connections_per_user"'*' HTTP 429') ok=0 ;;
*) ok=1 ;;
esac
tap_ok $ok "a 17th connection of msuser is answered 429 naming max_connections_per_user ($ans)"
wait "$slow_pid"
# the refusals are counted where the admin looks
n=$(curl -s -m 20 --unix-socket "$sock" http://localhost/metrics | sed -n 's/^metasched_api_refused_total{limit="max_connections_per_user"} //p')
tap_ok "$([ "${n:-0}" -ge 985 ] && echo 0 || echo 1)" "GET /metrics counts the refusals (metasched_api_refused_total{limit=\"max_connections_per_user\"} $n)"
tap_ok "$([ -n "$rss0" ] && [ "$peak" -gt 0 ] && [ "$peak" -lt $((400 * 1024)) ] && [ $((peak - rss0)) -lt $((64 * 1024)) ] && echo 0 || echo 1)" \
    "the daemon's memory stays under 400 MiB and grows by less than 64 MiB (VmRSS $rss0 kB before, $peak kB at most)"
exit $tap_failed
