#!/bin/sh
# A request has a deadline (request_timeout_s, 5 s here) from its first
# byte to its answer, kept even when the client trickles a byte every
# second (which kept the old idle timeout from ever firing): a request
# whose headers trickle, and one whose body trickles after a valid
# credential, are answered 408 naming the limit and closed; root (an
# admin) is held to it too. The configured threads serve the socket
# (threads = 3: three server threads). Bad values of the API's limits are
# refused with file:line. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
slow=$MS_BUILDDIR/tests/security/slowclient
[ -x "$slow" ] || tap_skip_all "$slow not built"
command -v munge >/dev/null || tap_skip_all "no munge command"
trap daemon_cleanup EXIT
daemon_lock
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_plan 8

log=$dtmp/msd.log
sock=$dtmp/msd.sock
line_of () { grep -n "^$2" "$1" | head -1 | cut -d: -f1; }
refused () { # refused CONF PATTERN DESCRIPTION
    out=$("$msd" -t -f "$1" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -q -- "$2"
    tap_ok "$([ $? = 0 ] && [ $rc = 1 ] && echo 0 || echo 1)" "$3 (rc $rc: $out)"
}
write_conf "$dtmp/t0.conf" "request_timeout_s = 0"
refused "$dtmp/t0.conf" "t0.conf:$(line_of "$dtmp/t0.conf" request_timeout_s): request_timeout_s" \
    "request_timeout_s = 0 is refused with file:line"
write_conf "$dtmp/u0.conf" "max_connections_per_user = many"
refused "$dtmp/u0.conf" "u0.conf:$(line_of "$dtmp/u0.conf" max_connections_per_user): max_connections_per_user" \
    "max_connections_per_user = many is refused with file:line"

write_conf "$dtmp/msd.conf" "request_timeout_s = 5" "threads = 3"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
workers=$(cat /proc/$daemon_pid/task/*/comm 2>/dev/null | grep -c '^MHD-worker')
tap_ok "$([ "$workers" = 3 ] && echo 0 || echo 1)" "threads = 3: three threads serve the unix socket ($workers)"

# status=S after=T: 408 (or closed, status 0) between 4 and 20 s
in_time () {
    st=$(printf '%s' "$1" | sed -n 's/.*status=\(-*[0-9]*\).*/\1/p')
    t=$(printf '%s' "$1" | sed -n 's/.*after=\([0-9]*\).*/\1/p')
    [ "$st" = 408 ] && [ "${t:-99}" -ge 4 ] && [ "${t:-99}" -lt 20 ]
}
out=$(runuser -u "$MS_TEST_USER" -- "$slow" head "$sock" 40 1 2>&1)
tap_ok "$(ok_if in_time "$out")" "headers trickled a byte a second: 408 after the 5 s deadline ($out)"
case $out in *'"limit":"request_timeout_s"'*) ok=0 ;; *) ok=1 ;; esac
tap_ok $ok "the 408 is JSON naming request_timeout_s ($out)"

out=$("$slow" head "$sock" 40 1 2>&1)
tap_ok "$(ok_if in_time "$out")" "root (an admin) is held to the deadline too ($out)"

body=$(printf '{%4095s' '')
hex=$(printf '%s' "$body" | sha256sum | cut -d' ' -f1)
cred=$(runuser -u "$MS_TEST_USER" -- munge -S "$MS_MUNGE_SOCKET" -s "metasched/1 POST /v1/jobs $hex")
out=$(runuser -u "$MS_TEST_USER" -- "$slow" body "$sock" 40 1 "$cred" 2>&1)
tap_ok "$(ok_if in_time "$out")" "a body trickled after a valid credential: 408 after the deadline ($out)"

# a well-formed request is still served
out=$(runuser -u "$MS_TEST_USER" -- env METASCHED_SERVER="unix:$sock" \
    METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" timeout 60 "$MS_BUILDDIR/metasched/msqueue" 2>&1)
tap_ok $? "a well-formed request is served as before ($out)"
exit $tap_failed
