#!/bin/sh
# PostgreSQL's failover under load: 500 submissions (msbatch, two users,
# several at a time) while the primary is stopped in immediate mode (as if
# its host died) and the streaming standby is promoted. metaschedd and its
# API connect through the test bed's multi-host conninfo (host=...,...
# target_session_attrs=read-write) and are not restarted. What is promised
# and checked here (doc/daemon.md "Database failover"):
#   - every submission gets an id, or a clear refusal (the API's 503
#     "database unavailable, retry later", which msbatch sends again with
#     the same submit_key until METASCHED_RETRY_S runs out); nothing else;
#   - while no read-write database answers, the API answers 503 with a
#     Retry-After, and msbatch says that it sends the submission again;
#   - 0 lost: every id given out is a job in the promoted database;
#   - 0 duplicated: the database holds exactly one job per id given out,
#     no two ids for one submission (one job per submit_key, as many jobs
#     of the test as ids), and no two clusters' jobs carry one meta job's
#     tag;
#   - every accepted job is routed once: it leaves the queue and exactly
#     one cluster job carries its tag;
#   - the daemon lives through it and logs the reconnect.
# Uses the test bed's standby (testbed/start --pg-standby), or makes one
# for itself (testbed/pgctl standby-make) and the multi-host conninfo to
# go with it. On exit the test bed is restored: testbed/pgctl failback
# makes the promoted standby the primary again on the primary's port
# (everything written kept) and a fresh standby streams from it; a
# standby the test made is then removed (testbed/pgctl standby-remove), so
# the next test finds the test bed as before. Takes the services lock and
# pg-down.lock exclusive. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
pgctl=$MS_SRCDIR/testbed/pgctl
own_standby=
N=${MS_FAILOVER_SUBMISSIONS:-500}  # submissions in all
W=4                                # submitting at a time (two per user)
BEFORE=$((N / 5))                  # accepted before the primary stops
METASCHED_RETRY_S=300              # msbatch's bound on its retries
export METASCHED_RETRY_S
failover_cleanup () {
    [ -n "${wpids:-}" ] && kill $wpids 2>/dev/null
    [ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null
    # the promoted standby becomes the primary again, with a fresh standby
    if [ -n "${failing_over:-}" ] && { ! "$pgctl" standby-status 2>/dev/null || ! "$pgctl" status 2>/dev/null; }; then
        "$pgctl" failback || echo "# testbed/pgctl failback failed: restart the test bed" >&2
    fi
    [ -n "$own_standby" ] && "$pgctl" standby-remove
    daemon_cleanup
}
trap failover_cleanup EXIT
tap_services_exclusive
exec 9>"$MS_TESTBED_RUN/pg-down.lock"
flock -x 9
"$pgctl" status || tap_skip_all "the test bed's PostgreSQL is not running"
if [ -z "${MS_PG_STANDBY_PORT:-}" ]; then
    # a standby of the test's own, and the conninfo naming both
    own_standby=1
    "$pgctl" standby-make >"$dtmp/standby.log" 2>&1 \
        || tap_skip_all "cannot make a standby: $(tail -1 "$dtmp/standby.log")"
    MS_PG_STANDBY_PORT=$("$pgctl" standby-port)
    MS_PG_CONNINFO="host=$MS_PG_HOST,$MS_PG_HOST port=$MS_PG_PORT,$MS_PG_STANDBY_PORT target_session_attrs=read-write dbname=$MS_PG_DB user=ms_daemon passfile=$MS_PG_PASSFILE"
    export MS_PG_STANDBY_PORT MS_PG_CONNINFO
fi
"$pgctl" standby-status || tap_skip_all "the test bed's PostgreSQL standby is not running"
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 9

log=$dtmp/msd.log
daemon_lead
tag=msd-failover-$$
u1=$MS_TEST_USER u2=$MS_TEST_USER2
for u in "$u1" "$u2"; do
    d=$(job_dir "$u")
    printf '#!/bin/sh\n#SBATCH -t 1\n#SBATCH -J %s\ntrue\n' "$tag" > "$d/tiny.sh"
    chmod 755 "$d/tiny.sh"
done
restore=$(settings_now max_queued_per_user)
cfg set max_queued_per_user=0 >/dev/null 2>&1

# worker W USER COUNT: COUNT submissions; each a line in res.W: "ok ID",
# "refused MESSAGE" (the clear 503, after msbatch's retries) or "other RC
# MESSAGE"; msbatch's retry notes in retried.W
worker () {
    wd=$(job_dir "$2")
    i=0
    while [ "$i" -lt "$3" ]; do
        out=$(msb "$2" "$wd" tiny.sh 2>"$dtmp/err.$1"); rc=$?
        err=$(tr '\n' ' ' < "$dtmp/err.$1")
        grep 'sending it again' "$dtmp/err.$1" >> "$dtmp/retried.$1"
        case $rc:$out in
        "0:Submitted meta job "*) echo "ok ${out##* }" ;;
        *) case $err in
           *"database unavailable, retry later"*"HTTP 503"*) echo "refused $err" ;;
           *) echo "other $rc $out $err" ;;
           esac ;;
        esac >> "$dtmp/res.$1"
        i=$((i + 1))
    done
}
accepted () { cat "$dtmp"/res.* 2>/dev/null | grep -c '^ok '; }
retried () { cat "$dtmp"/retried.* 2>/dev/null | wc -l; }
# a msbatch under way says it sends a submission again (its standard error)
some_retried () { cat "$dtmp"/retried.* "$dtmp"/err.* 2>/dev/null | grep -q 'sending it again'; }

# the clusters' jobs of the test, as seen while it runs (a finished job
# leaves the controller's list after its MinJobAge): "COMMENT|JOBID|CLUSTER"
# lines, in seen.raw. It stops at the file "stop" after a whole round: a
# round killed in the middle could leave its pipeline writing on while
# the last round below writes too, and two writers of buffered blocks
# glue half lines together.
watch_clusters () {
    while [ ! -e "$dtmp/stop" ]; do
        cluster_jobs_tagged | grep "^metasched:" | cut -d'|' -f1,3,4 >> "$dtmp/seen.raw"
        sleep 1
    done
}
watch_clusters &
watcher=$!
wpids=
w=0
while [ $w -lt $W ]; do
    u=$u1; [ $((w % 2)) = 1 ] && u=$u2
    n=$((N / W)); [ $w = 0 ] && n=$((n + N % W))
    : > "$dtmp/res.$w"; : > "$dtmp/retried.$w"
    worker $w "$u" $n &
    wpids="$wpids $!"
    w=$((w + 1))
done

# the primary's host dies once BEFORE are in; the standby is promoted
# once a submission has met the gap (503, msbatch retrying), so that the
# gap is seen on every machine, however fast
above () { [ "$(accepted)" -ge "$1" ]; }
wait_for 600 above $BEFORE
failing_over=1
"$pgctl" stop-primary; rs=$?
at_stop=$(accepted)
wait_for 120 some_retried; seen=$?
"$pgctl" promote; rp=$?
for p in $wpids; do wait "$p"; done
wpids=

cat "$dtmp"/res.* > "$dtmp/all"
nok=$(grep -c '^ok ' "$dtmp/all")
nref=$(grep -c '^refused ' "$dtmp/all")
noth=$(grep -c '^other ' "$dtmp/all")
echo "# $nok accepted ($at_stop before the primary stopped), $nref refused, $noth otherwise; $(retried) retries by msbatch"
[ "$rs" = 0 ] && [ "$rp" = 0 ]
tap_ok $? "the primary stopped in immediate mode (rc $rs) and the standby promoted (rc $rp) under load"
all_answered () { [ $((nok + nref)) = "$N" ] && [ "$noth" = 0 ]; }
tap_ok "$(ok_if all_answered)" \
    "each of the $N submissions got an id ($nok) or the clear 503 ($nref); otherwise $noth: $(grep '^other ' "$dtmp/all" | head -1)"
tap_ok "$seen" "while no read-write database answered, the API answered 503 with Retry-After and msbatch sent the submission again ($(retried) times: $(cat "$dtmp"/retried.* | head -1))"

grep '^ok ' "$dtmp/all" | cut -d' ' -f2 | sort -n > "$dtmp/ids"
ids=$(paste -sd, "$dtmp/ids")
dups=$(uniq -d "$dtmp/ids" | wc -l)
tap_ok "$(ok_if [ "$dups" = 0 ])" "no id given out twice ($dups)"

# 0 lost, 0 duplicated in the promoted database
inq=$(q "SELECT id FROM jobs WHERE name = '$tag' ORDER BY id" | paste -sd,)
tap_ok "$(ok_if [ "$inq" = "$ids" ])" \
    "the promoted database holds exactly the $nok jobs given ids: none lost, none doubled ($(printf '%s' "$inq" | tr ',' '\n' | grep -c .) rows; missing: $(printf '%s' "$inq" | tr ',' '\n' | comm -13 - "$dtmp/ids" | head -3 | paste -sd' '); extra: $(printf '%s' "$inq" | tr ',' '\n' | comm -23 - "$dtmp/ids" | head -3 | paste -sd' '))"
nkeys=$(q "SELECT count(DISTINCT submit_key) FROM jobs WHERE name = '$tag'")
tap_ok "$(ok_if [ "$nkeys" = "$nok" ])" "one job per submission: $nkeys distinct submit keys for $nok jobs"

# every accepted job routed once
settled () { [ "$(q "SELECT count(*) FROM jobs WHERE name = '$tag' AND state IN ('queued', 'deciding', 'dispatching')")" = 0 ]; }
wait_for 900 settled; r=$?
tap_ok "$r" "every accepted job left the queue ($(q "SELECT state, count(*) FROM jobs WHERE name = '$tag' GROUP BY 1" | tr '\n' ' '))"
touch "$dtmp/stop"; wait "$watcher"; watcher=
cluster_jobs_tagged | grep "^metasched:" | cut -d'|' -f1,3,4 >> "$dtmp/seen.raw"
sort -u "$dtmp/seen.raw" > "$dtmp/tagged"
# cluster jobs (JOBID|CLUSTER) per meta job: a job seen in several states
# or with its comment rewritten is still one cluster job
awk -F'|' '{ split ($1, t, ":"); k = t[2] SUBSEP $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; n[t[2]]++ } } END { for (i in n) print i, n[i] }' "$dtmp/tagged" > "$dtmp/per_job"
awk 'NR == FNR { n[$1] = $2; next } { c = n[$1] + 0; if (c == 0) z++; else if (c > 1) { m++; ex = ex " " $1 } } END { printf "%d %d%s\n", z + 0, m + 0, ex }' "$dtmp/per_job" "$dtmp/ids" > "$dtmp/counts"
read -r zero multi twice < "$dtmp/counts"
once_each () { [ "$zero" = 0 ] && [ "$multi" = 0 ]; }
tap_ok "$(ok_if once_each)" \
    "each accepted job is on a cluster exactly once ($zero on none, $multi on more than one${twice:+: meta jobs $twice})"
for j in $twice; do
    grep "^metasched:$j:" "$dtmp/tagged" | sed 's/^/# /'
    q "SELECT id, state, cluster, cluster_job_id, attempts, last_error FROM jobs WHERE id = $j" | sed 's/^/# /'
    grep -E "(job|meta job) $j([^0-9]|$)" "$log" | head -8 | sed 's/^/# /'
done
said_reconnect () { kill -0 "$daemon_pid" && grep -q 'database connection lost and made again' "$log"; }
wait_for 60 said_reconnect; r=$?
tap_ok "$r" "the daemon lives through the failover and logs the reconnect: $(grep 'database connection lost and made again' "$log" | tail -1)"
[ "$r" = 0 ] || sed 's/^/# /' "$log" | tail -20
[ -n "$restore" ] && cfg set $restore >/dev/null 2>&1
exit $tap_failed
