#!/bin/sh
# bench_failover.sh - what PostgreSQL's failover costs the submitters
# (doc/daemon.md "Database failover"). Needs the test bed with its standby
# (testbed/start --pg-standby) and root, like the daemon tests: it runs a
# metaschedd of this build on the test bed's multi-host conninfo, keeps W
# msbatch streams submitting (two users), and once K submissions are in
# stops the primary in immediate mode and promotes the standby (after
# MS_BENCH_PROMOTE_DELAY_S, default 0: an automatic failover). It prints:
#   - submissions/s before the stop and after the first acceptance on the
#     promoted standby, and their ratio;
#   - the time without acceptance: from the primary's end (pg_ctl stop
#     -m immediate returned) to the first submission accepted after it
#     (on the promoted standby), and the part of it that pg_ctl promote
#     took;
#   - how many submissions msbatch sent again meanwhile (503, Retry-After).
# Prints figures; never fails on time. The test bed is failed back at the
# end (testbed/pgctl failback): the promoted standby becomes the primary on
# its port again and a fresh standby streams from it.
#
#   MS_SRCDIR=. MS_BUILDDIR=. bench/bench_failover.sh [K [W]]
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
[ -n "${MS_PG_STANDBY_PORT:-}" ] || { echo "bench_failover: the test bed runs no standby (testbed/start --pg-standby)" >&2; exit 1; }
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
K=${1:-100}
W=${2:-2}
DELAY=${MS_BENCH_PROMOTE_DELAY_S:-0}
METASCHED_RETRY_S=600
export METASCHED_RETRY_S
pgctl=$MS_SRCDIR/testbed/pgctl

bench_cleanup () {
    touch "$dtmp/stop"
    [ -n "${wpids:-}" ] && wait $wpids 2>/dev/null
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    if ! "$pgctl" standby-status 2>/dev/null || ! "$pgctl" status 2>/dev/null; then
        "$pgctl" failback || echo "bench_failover: testbed/pgctl failback failed" >&2
    fi
    daemon_cleanup
}
trap bench_cleanup EXIT
"$pgctl" status && "$pgctl" standby-status || { echo "bench_failover: the primary or the standby is not running" >&2; exit 1; }
daemon_db_ready || { echo "bench_failover: cannot migrate the test bed's database" >&2; exit 1; }
tap_services_exclusive
exec 9>"$MS_TESTBED_RUN/pg-down.lock"
flock -x 9
daemon_lock
log=$dtmp/msd.log
daemon_lead
restore=$(settings_now max_queued_per_user)
cfg set max_queued_per_user=0 >/dev/null 2>&1

now () { date +%s.%N; }
# stream W USER: submit until $dtmp/stop; a line "END_TIME ok|no" per
# submission in t.W, msbatch's retry notes in r.W
stream () {
    sd=$(job_dir "$2")
    printf '#!/bin/sh\n#SBATCH -t 1\n#SBATCH -J msd-bench-failover\ntrue\n' > "$sd/b.sh"
    chmod 755 "$sd/b.sh"
    while [ ! -e "$dtmp/stop" ]; do
        if msb "$2" "$sd" b.sh >/dev/null 2>"$dtmp/e.$1"; then s=ok; else s=no; fi
        echo "$(now) $s" >> "$dtmp/t.$1"
        grep -c 'sending it again' "$dtmp/e.$1" >> "$dtmp/r.$1"
    done
}
oks () { cat "$dtmp"/t.* 2>/dev/null | grep -c ' ok$'; }
oks_after () { cat "$dtmp"/t.* 2>/dev/null | awk -v t="$1" '$2 == "ok" && $1 > t' | wc -l; }
above () { [ "$(oks)" -ge "$1" ]; }
above_after () { [ "$(oks_after "$1")" -ge "$2" ]; }

wpids=
w=0
while [ $w -lt "$W" ]; do
    u=$MS_TEST_USER; [ $((w % 2)) = 1 ] && u=$MS_TEST_USER2
    stream $w "$u" &
    wpids="$wpids $!"
    w=$((w + 1))
done
t_start=$(now)
wait_for 1200 above "$K" || { echo "bench_failover: fewer than $K submissions accepted in 20 minutes" >&2; exit 1; }
t_stop=$(now)
"$pgctl" stop-primary || { echo "bench_failover: stop-primary failed" >&2; exit 1; }
t_down=$(now)
[ "$DELAY" != 0 ] && sleep "$DELAY"
t_p0=$(now)
"$pgctl" promote || { echo "bench_failover: promote failed" >&2; exit 1; }
t_p1=$(now)
wait_for 1200 above_after "$t_stop" "$K"
touch "$dtmp/stop"
wait $wpids
wpids=

cat "$dtmp"/t.* | sort -n > "$dtmp/all"
awk -v t0="$t_start" -v ts="$t_stop" -v td="$t_down" -v p0="$t_p0" -v p1="$t_p1" \
    -v retries="$(cat "$dtmp"/r.* | awk '{ s += $1 } END { print s + 0 }')" -v w="$W" '
$2 == "ok" && $1 <= ts { nb++ }
$2 == "ok" && $1 > td { if (!first) first = $1; na++; last = $1 }
$2 == "no" { refused++ }
END {
    rb = nb / (ts - t0)
    ra = (last > first && na > 1) ? (na - 1) / (last - first) : 0
    printf "streams                           %d\n", w
    printf "accepted before the stop          %d in %.1f s: %.2f submissions/s\n", nb, ts - t0, rb
    printf "primary stop (immediate)          %.2f s\n", td - ts
    printf "promote (pg_ctl promote -w)       %.2f s (after a delay of %.1f s)\n", p1 - p0, p0 - td
    printf "time without acceptance           %.2f s (the primary down to the first acceptance after it; %.2f s from the stop command)\n", first - td, first - ts
    printf "accepted after it                 %d in %.1f s: %.2f submissions/s\n", na, last - first, ra
    printf "ratio after/before                %.2f\n", (rb > 0 ? ra / rb : 0)
    printf "sent again by msbatch (503)       %d; refused in the end %d\n", retries, refused + 0
}' "$dtmp/all"
