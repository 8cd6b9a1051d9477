#!/bin/sh
# The seeded chaos run (doc/daemon.md, "Chaos run"; tests/chaos/README).
# Three users (the test bed's msuser, msuser2 and root) submit short jobs
# through msbatch (some arrays, some with an afterok dependency on one of
# their earlier jobs) and cancel some with mscancel, while metaschedd
# (SIGKILL, started again), one cluster's slurmrestd (SIGKILL), one
# cluster's slurmctld (SIGTERM, or --ctld-signal KILL) and PostgreSQL
# (testbed/pgctl stop -m immediate) are stopped and started again. What
# each user does, when, and every fault's time, length and target are
# drawn from the seed. Once the faults have stopped and every service
# answers, it polls (up to the settle time) until every meta job of the
# run has ended, then prints the ledger: accepted, completed, cancelled,
# failed (with the reason), lost, duplicated (a meta job run by more than
# one cluster job: counted from the clusters' own lists of jobs by their
# tag, and from the marks the jobs' scripts leave), stuck (not ended after
# the settle time). Asserts: every fault happened (its log is printed with
# the seed), every accepted submission is accounted for, 0 lost, 0
# duplicated, 0 stuck, no answer of the API an internal error (HTTP 500),
# and no sanitizer report in the daemon's log.
#
# usage: test_chaos.sh [--seed N] [--duration S] [--settle S]
#                      [--ctld-signal TERM|KILL]
# (or MS_CHAOS_SEED, MS_CHAOS_DURATION, MS_CHAOS_SETTLE,
# MS_CHAOS_CTLD_SIGNAL; defaults 37, 200, 300, TERM: the run of CI).
# MS_CHAOS_LEDGER=FILE also writes the ledger and the faults' log to FILE.
# Takes the services, database and daemon locks exclusive; on exit every
# service it stopped is started again. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"

seed=${MS_CHAOS_SEED:-37}
duration=${MS_CHAOS_DURATION:-200}
settle=${MS_CHAOS_SETTLE:-300}
ctld_sig=${MS_CHAOS_CTLD_SIGNAL:-TERM}
usage () {
    echo "usage: test_chaos.sh [--seed N] [--duration SECONDS] [--settle SECONDS] [--ctld-signal TERM|KILL]"
}
bad_arg () { echo "test_chaos.sh: $1" >&2; usage >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --seed|--duration|--settle|--ctld-signal)
        [ $# -ge 2 ] || bad_arg "$1 needs a value"
        o=$1 v=$2; shift 2 ;;
    --seed=*|--duration=*|--settle=*|--ctld-signal=*)
        o=${1%%=*} v=${1#*=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) bad_arg "unknown argument '$1'" ;;
    esac
    case $o in
    --seed) seed=$v ;;
    --duration) duration=$v ;;
    --settle) settle=$v ;;
    --ctld-signal) ctld_sig=$v ;;
    esac
done
whole () { # whole NAME VALUE MIN MAX
    case $2 in ''|*[!0-9]*) bad_arg "$1: '$2' is not a whole number" ;; esac
    [ ${#2} -le 9 ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
        bad_arg "$1: $2 is not between $3 and $4"
}
whole --seed "$seed" 0 999999999
whole --duration "$duration" 30 86400
whole --settle "$settle" 30 86400
case $ctld_sig in TERM|KILL) ;; *) bad_arg "--ctld-signal: '$ctld_sig' is not TERM or KILL" ;; esac

tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
mscancel=$MS_BUILDDIR/metasched/mscancel
pgctl=$MS_SRCDIR/testbed/pgctl
command -v curl >/dev/null || tap_skip_all "curl not installed"
[ -n "$MS_TEST_USER2" ] || tap_skip_all "the test bed names no second test user"
. "$MS_SRCDIR/tests/chaos/chaos_lib.sh"

trap chaos_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
# services, then the database's own lock, then the daemon lock (as
# test_daemon_pg.sh)
tap_services_exclusive
exec 9>"$MS_TESTBED_RUN/pg-down.lock"
flock -x 9
daemon_lock
tap_plan 9

log=$dtmp/msd.log
write_conf "$dtmp/msd.conf"
# each meta job goes to one cluster (dispatch_mode single), whatever an
# earlier test left; set back on exit
mode_was=$(q "SELECT value FROM settings WHERE key = 'dispatch_mode'")
mode_set=1
q "INSERT INTO settings (key, value) VALUES ('dispatch_mode', '\"single\"')
   ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value" >/dev/null
users="$MS_TEST_USER $MS_TEST_USER2 root"
chaos_plan "$seed" "$duration" "$MS_CLUSTERS" "$users" > "$dtmp/plan"
for u in $users; do chaos_scripts "$u"; done
echo "# chaos run: seed $seed, $duration s of faults, settle up to $settle s, slurmctld stopped by SIG$ctld_sig"
echo "# targets: slurmrestd of $(awk '$1 == "fault" && $2 == "rest" { print $5; exit }' "$dtmp/plan"), slurmctld of $(awk '$1 == "fault" && $2 == "ctld" { print $5; exit }' "$dtmp/plan")"

chaos_daemon_up 120 || { echo "Bail out! metaschedd did not start: $(tail -3 "$log" | tr '\n' ' ')"; exit 1; }
daemon_answers "$MS_TEST_USER" "$(job_dir "$MS_TEST_USER")" job1.sh

t0=$(date +%s)
echo "$t0" > "$dtmp/t0"
pids=
for k in daemon rest ctld pg; do
    chaos_faults "$k" &
    pids="$pids $!"
done
for u in $users; do
    chaos_user "$u" &
    pids="$pids $!"
done
echo "$pids" > "$dtmp/workers"
for p in $pids; do wait "$p"; done
t1=$(date +%s)
echo "# faults and users stopped after $((t1 - t0)) s"

# ---- every fault happened ----
echo "# faults (seed $seed):"
sed 's/^/#   /' "$dtmp/faults.log"
nok=$(grep -c ' ok$' "$dtmp/faults.log")
nbad=$(grep -vc ' ok$' "$dtmp/faults.log")
kinds=$(awk '$NF == "ok" && $3 == "stop" { print $2 }' "$dtmp/faults.log" | sort -u | paste -sd' ' -)
planned=$(grep -c '^fault ' "$dtmp/plan")
[ "$nbad" = 0 ] && [ "$nok" = $((2 * planned)) ] && [ "$kinds" = "ctld daemon pg rest" ]
tap_ok $? "every fault of the seed happened: $planned planned, $nok stops and starts done, $nbad not (kinds: $kinds)"

# ---- every service answers again ----
chaos_services_up 180; r=$?
tap_ok "$r" "after the faults every service answers ($(chaos_services_state))"

# ---- settle: every meta job of the run ends ----
chaos_rows > "$dtmp/rows"
ts=$(date +%s)
while [ "$(chaos_live)" != 0 ] && [ $(( $(date +%s) - ts )) -lt "$settle" ]; do sleep 2; done
echo "# settled after $(( $(date +%s) - ts )) s (bound $settle s)"

# ---- the ledger ----
chaos_ledger > "$dtmp/ledger"
cat "$dtmp/ledger"
if [ -n "${MS_CHAOS_LEDGER:-}" ]; then
    { echo "seed $seed, $duration s of faults"; sed 's/^# //' "$dtmp/ledger"; echo "faults:"; cat "$dtmp/faults.log"; } > "$MS_CHAOS_LEDGER"
fi
lv () { sed -n "s/^# $1 *\([0-9][0-9]*\).*/\1/p" "$dtmp/ledger" | head -1; }
acc=$(lv accepted)
sum=$(( $(lv completed) + $(lv cancelled) + $(lv failed) + $(lv lost) + $(lv stuck) ))
nsub=$(wc -l < "$dtmp/acked")
users_ok=1
for u in $users; do
    [ "$(awk -v u="$u" '$2 == u' "$dtmp/acked" | wc -l)" -gt 0 ] || users_ok=0
done
[ "$(lv 'not stored')" = 0 ] && [ "$acc" = "$sum" ] && [ "$nsub" -gt 0 ] && [ "$users_ok" = 1 ] &&
    [ "$(lv 'unanswered stored')" -le "$(lv unanswered)" ]
tap_ok $? "every accepted submission is accounted for: $acc accepted ($nsub acknowledged, every user), $sum in the ledger, $(lv 'not stored') acknowledged but not stored"
tap_ok "$(ok_if [ "$(lv lost)" = 0 ])" "0 lost ($(lv lost))"
tap_ok "$(ok_if [ "$(lv duplicated)" = 0 ])" "0 duplicated in the clusters' lists ($(lv duplicated))"
tap_ok "$(ok_if [ "$(lv 'ran twice')" = 0 ])" "0 run twice by the jobs' own marks ($(lv 'ran twice'))"
tap_ok "$(ok_if [ "$(lv stuck)" = 0 ])" "0 stuck after the settle time ($(lv stuck))"
# under these faults the API answers a request, refuses it with a status
# that says why (503: retry later; 409: the job has ended), or loses the
# answer with the daemon: an internal error (500) is a fault of its own
n500=$(cat "$dtmp/unanswered" "$dtmp/cancels" 2>/dev/null | grep -c 'HTTP 500')
tap_ok "$(ok_if [ "$n500" = 0 ])" "no submission or cancel answered with an internal error, HTTP 500 ($n500; $(cat "$dtmp/unanswered" "$dtmp/cancels" 2>/dev/null | grep -m1 'HTTP 500'))"
san=$(grep -c 'AddressSanitizer\|runtime error:\|LeakSanitizer' "$log")
tap_ok "$(ok_if [ "$san" = 0 ])" "no sanitizer report in the daemon's log ($san; $(grep -m1 'AddressSanitizer\|runtime error:' "$log"))"
exit $tap_failed
