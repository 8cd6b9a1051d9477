#!/bin/sh
# PostgreSQL stopped and started again under a running metaschedd, with
# submissions before, during and after the outage. What is promised, and
# checked here (no timing ratio: how fast a machine brings PostgreSQL
# back and the API reconnects is the machine's):
#   - while PostgreSQL is down, every submission is refused with a clear
#     error: msbatch exits non-zero with the API's 503 "database
#     unavailable, retry later"; none is accepted;
#   - once PostgreSQL is back (testbed/pgctl start has returned: it accepts
#     connections), the API accepts submissions again within RECOVER_S
#     seconds (60, generous: the API reconnects at the next request, so it
#     is usually the first one; doc/daemon.md "Database outages"), and
#     keeps accepting them;
#   - nothing accepted is lost: every submission that got an id is in the
#     database, leaves the queue and is dispatched exactly once (one live
#     or finished cluster job carries its tag), and no refused one is in
#     the queue;
#   - the daemon lives through the outage and logs it.
# Takes the services lock and pg-down.lock exclusive (as test_collect.sh
# does); the database is started again on exit. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
pgctl=$MS_SRCDIR/testbed/pgctl
pg_cleanup () {
    "$pgctl" status 2>/dev/null || "$pgctl" start
    daemon_cleanup
}
trap pg_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
# services, then the database's own lock, then the daemon lock
tap_services_exclusive
exec 9>"$MS_TESTBED_RUN/pg-down.lock"
flock -x 9
daemon_lock
# msbatch sends a submission refused with 503 again for a while; here
# each refusal itself is checked
METASCHED_RETRY_S=0
RECOVER_S=60   # the API accepts again within this long after PostgreSQL is back
N=5            # submissions before, during and after the outage
tap_plan 10

log=$dtmp/msd.log
daemon_lead

u=$MS_TEST_USER
d=$(job_dir "$u")
tag=msd-pg-$$
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J %s\nsleep 1\n' "$tag" > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"
: > "$dtmp/ids"; : > "$dtmp/other"

# sub PHASE: one submission. 0: accepted (its id appended to ids and
# ids.PHASE); 1: refused with the clear error (refused.PHASE); 2: anything
# else (other): an unclear error, or an id with a failing exit status
sub () {
    out=$(msb "$u" "$d" tiny.sh 2>&1); rc=$?
    out=$(printf '%s' "$out" | tr '\n' ' ')   # one line each (libpq's have two)
    case $out in
    "Submitted meta job "*)
        if [ $rc = 0 ]; then
            echo "${out##* }" >> "$dtmp/ids"; echo "${out##* }" >> "$dtmp/ids.$1"
            return 0
        fi ;;
    *"database unavailable, retry later"*"HTTP 503"*)
        if [ $rc != 0 ]; then
            echo "$out" >> "$dtmp/refused.$1"
            return 1
        fi ;;
    esac
    echo "$1: rc $rc: $out" >> "$dtmp/other"
    return 2
}
count () { cat "$dtmp/$1" 2>/dev/null | wc -l; }
now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# before: the database is up, every submission is accepted
i=0; while [ $i -lt $N ]; do sub before; i=$((i + 1)); done
tap_ok "$(ok_if [ "$(count ids.before)" = $N ])" \
    "before the outage: $(count ids.before) of $N submissions accepted"

# down: every submission refused, clearly
"$pgctl" stop; rs=$?
i=0; while [ $i -lt $N ]; do sub down; i=$((i + 1)); done
[ $rs = 0 ] && [ "$(count refused.down)" = $N ] && [ "$(count ids.down)" = 0 ]
tap_ok $? "PostgreSQL stopped (rc $rs): $(count refused.down) of $N submissions refused with the clear error ($(head -1 "$dtmp/refused.down" 2>/dev/null)), $(count ids.down) accepted; otherwise: $(grep '^down' "$dtmp/other" | head -1)"

# back: accepted again within RECOVER_S; the refusals meanwhile are clear
"$pgctl" start; rt=$?
t0=$(now)
r=1
while :; do
    sub back && { r=0; break; }
    awk -v s="$(since "$t0")" -v m=$RECOVER_S 'BEGIN { exit !(s >= m) }' && break
    sleep 0.2
done
took=$(since "$t0")
[ $rt = 0 ] && [ $r = 0 ] && ! grep -q '^back' "$dtmp/other"
tap_ok $? "PostgreSQL started (rc $rt): the API accepts again after ${took} s (bound ${RECOVER_S} s), $(count refused.back) refused meanwhile with the clear error; otherwise: $(grep '^back' "$dtmp/other" | head -1)"
i=0; while [ $i -lt $N ]; do sub after; i=$((i + 1)); done
tap_ok "$(ok_if [ "$(count ids.after)" = $N ])" \
    "after the outage: $(count ids.after) of $N submissions accepted; otherwise: $(grep '^after' "$dtmp/other" | head -1)"

tap_ok "$(ok_if kill -0 "$daemon_pid")" "the daemon lives through the outage"
lead_again () { [ "$(grep -c 'leading: this instance now schedules' "$log")" -ge 2 ] || grep -q 'reconnect' "$log"; }
wait_for 60 lead_again
ids=$(paste -sd, "$dtmp/ids")
nids=$(count ids)
settled () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state IN ('queued', 'deciding', 'dispatching')")" = 0 ]; }
wait_for 120 settled; r=$?
tap_ok "$r" "every accepted job left the queue ($(q "SELECT state, count(*) FROM jobs WHERE id IN ($ids) GROUP BY 1" | tr '\n' ' '))"

# the database holds exactly the accepted ones (none lost, none of the
# refused crept in)
inq=$(q "SELECT id FROM jobs WHERE name = '$tag' ORDER BY id" | paste -sd,)
tap_ok "$(ok_if [ "$inq" = "$(sort -n "$dtmp/ids" | paste -sd,)" ])" \
    "the database holds exactly the $nids accepted jobs, none of the $(cat "$dtmp"/refused.* 2>/dev/null | wc -l) refused ($(printf '%s' "$inq" | tr ',' '\n' | grep -c .) rows)"

cluster_jobs_tagged | grep '^metasched:' | grep -v '|CANCELLED|' > "$dtmp/tagged"
awk -F'[:|]' 'NR == FNR { n[$2]++; next } { c = n[$1] + 0; if (c == 0) z++; else if (c > 1) m++ } END { printf "%d %d\n", z + 0, m + 0 }' "$dtmp/tagged" "$dtmp/ids" > "$dtmp/counts"
read -r zero multi < "$dtmp/counts"
tap_ok "$(ok_if [ "$zero" = 0 ])" "no accepted job lost: each of the $nids is on a cluster ($zero on none)"
tap_ok "$(ok_if [ "$multi" = 0 ])" "none dispatched twice ($multi on more than one cluster)"
tap_ok "$(ok_if grep -qi 'database\|connection' "$log")" "the daemon logged the outage ($(grep -ci 'database\|connection' "$log") lines)"
exit $tap_failed
