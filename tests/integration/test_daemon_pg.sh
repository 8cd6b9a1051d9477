#!/bin/sh
# PostgreSQL restarted during a burst of submissions: metaschedd reconnects
# and leads again, and nothing is lost: every submission the API accepted
# (an id came back) ends up dispatched exactly once (one live or finished
# cluster job carries its tag), the ones refused while the database was
# down (503) are not in the queue. Takes the services lock and pg-down.lock
# exclusive (as test_collect.sh does); the database is started again on
# exit. TAP output.
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
N=40
tap_plan 7

log=$dtmp/msd.log
write_conf "$dtmp/msd.conf"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
wait_for 10 grep -q 'leading: this instance now schedules' "$log"

u=$MS_TEST_USER
d=$(job_dir "$u")
tag=msd-pg-$$
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J %s\nsleep 1\n' "$tag" > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"

# the burst: one submission every ~0.2 s; the database goes down after
# the 10th for 6 s
: > "$dtmp/ids"; : > "$dtmp/refused"; : > "$dtmp/other"
i=0
while [ $i -lt $N ]; do
    out=$(msb "$u" "$d" tiny.sh 2>&1)
    case $out in
    "Submitted meta job "*) echo "${out##* }" >> "$dtmp/ids" ;;
    *503*|*"atabase"*) echo "$out" >> "$dtmp/refused" ;;
    *) echo "$out" >> "$dtmp/other" ;;
    esac
    i=$((i + 1))
    if [ $i = 10 ]; then
        "$pgctl" stop; rs=$?
        tdown=$(date +%s)
    fi
    if [ -n "${tdown:-}" ] && [ $(( $(date +%s) - tdown )) -ge 6 ]; then
        "$pgctl" start; rt=$?
        tdown=
    fi
    sleep 0.2
done
[ -n "${tdown:-}" ] && { "$pgctl" start; rt=$?; }
nids=$(wc -l < "$dtmp/ids") nref=$(wc -l < "$dtmp/refused") noth=$(wc -l < "$dtmp/other")
[ "$rs" = 0 ] && [ "$rt" = 0 ] && [ "$nref" -ge 1 ] && [ "$nids" -ge 20 ] && [ "$noth" = 0 ]
tap_ok $? \
    "PostgreSQL stopped and started during $N submissions: $nids accepted, $nref refused ($(head -1 "$dtmp/refused")), $noth otherwise ($(head -1 "$dtmp/other"))"

tap_ok "$(ok_if kill -0 "$daemon_pid")" "the daemon lives through the outage"
lead_again () { [ "$(grep -c 'leading: this instance now schedules' "$log")" -ge 2 ] || grep -q 'reconnect' "$log"; }
wait_for 60 lead_again
ids=$(paste -sd, "$dtmp/ids")
settled () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state IN ('queued', 'deciding', 'dispatching')")" = 0 ]; }
wait_for 120 settled; r=$?
tap_ok "$r" "every accepted job left the queue ($(q "SELECT state, count(*) FROM jobs WHERE id IN ($ids) GROUP BY 1" | tr '\n' ' '))"

# the queue holds exactly the accepted ones (none refused crept in)
inq=$(q "SELECT id FROM jobs WHERE name = '$tag' ORDER BY id" | paste -sd,)
tap_ok "$(ok_if [ "$inq" = "$(sort -n "$dtmp/ids" | paste -sd,)" ])" \
    "the queue holds exactly the $nids accepted jobs, none of the refused ($(printf '%s' "$inq" | tr ',' '\n' | grep -c .) rows)"

cluster_jobs_tagged | grep '^metasched:' | grep -v '|CANCELLED|' > "$dtmp/tagged"
awk -F'[:|]' 'NR == FNR { n[$2]++; next } { c = n[$1] + 0; if (c == 0) z++; else if (c > 1) m++ } END { printf "%d %d\n", z + 0, m + 0 }' "$dtmp/tagged" "$dtmp/ids" > "$dtmp/counts"
read -r zero multi < "$dtmp/counts"
tap_ok "$(ok_if [ "$zero" = 0 ])" "no accepted job lost: each is on a cluster ($zero on none)"
tap_ok "$(ok_if [ "$multi" = 0 ])" "none dispatched twice ($multi on more than one cluster)"
tap_ok "$(ok_if grep -qi 'database\|connection' "$log")" "the daemon logged the outage ($(grep -ci 'database\|connection' "$log") lines)"
exit $tap_failed
