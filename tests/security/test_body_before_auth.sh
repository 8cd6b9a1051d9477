#!/bin/sh
# A request body is never read before the credential is: a 100 MiB chunked
# upload without a credential, and a 1 MiB one with Content-Length and an
# invalid credential, are answered 401 while the client is still sending
# (it wrote less than the body when the answer came); a valid credential
# with a 100 MiB chunked body is answered 413 as the body passes the limit,
# not after it; the daemon's memory (VmRSS) grows by less than 16 MiB
# through all of it; a well-formed request is served as before. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
slow=$MS_BUILDDIR/tests/security/slowclient
[ -x "$slow" ] || tap_skip_all "$slow not built"
command -v munge >/dev/null || tap_skip_all "no munge command"
trap daemon_cleanup EXIT
daemon_lock
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_plan 6

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
        timeout 60 "$MS_BUILDDIR/metasched/msqueue" 2>&1
}
msqueue_as "$MS_TEST_USER" >/dev/null   # warm: the database connection is open
rss0=$(rss)
mib100=$((100 * 1024 * 1024))

# early STATUS OUT: the answer STATUS came before the whole body was sent
early () {
    st=$(printf '%s' "$2" | sed -n 's/.*status=\(-*[0-9]*\).*/\1/p')
    sent=$(printf '%s' "$2" | sed -n 's/.*sent=\([0-9]*\).*/\1/p')
    total=$(printf '%s' "$2" | sed -n 's/.*total=\([0-9]*\).*/\1/p')
    [ "$st" = "$1" ] && [ "${sent:-0}" -lt "${total:-0}" ]
}

out=$(runuser -u "$MS_TEST_USER" -- "$slow" upload "$sock" /v1/jobs $mib100 chunked 2>&1)
tap_ok "$(ok_if early 401 "$out")" "100 MiB chunked without a credential: 401 before the body is read ($out)"

out=$(runuser -u "$MS_TEST_USER" -- "$slow" upload "$sock" /v1/jobs 1048576 length not-a-credential 2>&1)
tap_ok "$(ok_if early 401 "$out")" "1 MiB with Content-Length and an invalid credential: 401 before the body is read ($out)"

# a valid credential (for an empty body: the size is refused first)
hex=$(printf '' | sha256sum | cut -d' ' -f1)
cred=$(runuser -u "$MS_TEST_USER" -- munge -S "$MS_MUNGE_SOCKET" -s "metasched/1 POST /v1/jobs $hex")
out=$(runuser -u "$MS_TEST_USER" -- "$slow" upload "$sock" /v1/jobs $mib100 chunked "$cred" 2>&1)
tap_ok "$(ok_if early 413 "$out")" "100 MiB chunked with a valid credential: 413 as it passes the limit ($out)"

# the credential names the body: another body of the right size is refused
cred=$(runuser -u "$MS_TEST_USER" -- munge -S "$MS_MUNGE_SOCKET" -s "metasched/1 POST /v1/jobs $hex")
out=$(runuser -u "$MS_TEST_USER" -- "$slow" upload "$sock" /v1/jobs 100 length "$cred" 2>&1)
case $out in status=401*) ok=0 ;; *) ok=1 ;; esac
tap_ok $ok "a body other than the one the credential names: 401 once it is in ($out)"

rss1=$(rss)
tap_ok "$([ -n "$rss0" ] && [ -n "$rss1" ] && [ $((rss1 - rss0)) -lt $((16 * 1024)) ] && echo 0 || echo 1)" \
    "the daemon's memory grew by less than 16 MiB (VmRSS $rss0 kB before, $rss1 kB after)"
out=$(msqueue_as "$MS_TEST_USER2"); rc=$?
tap_ok $rc "a well-formed request is served as before (rc $rc: $out)"
exit $tap_failed
