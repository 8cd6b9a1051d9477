#!/bin/sh
# Leadership taken or blocked by a role other than the daemon's: the
# collector's role (its password is on every node) and the report role
# try every way they have to take the leader's place or to keep metaschedd
# from leading, and a metaschedd started meanwhile still leads and
# dispatches a job (doc/daemon.md "Leadership", doc/admin-guide.md 7).
#   - the way leadership used to work: an advisory lock on (0x6d73, 1),
#     held (shared) by a session of each role before the daemon starts;
#   - the lease row: UPDATE, INSERT, DELETE, TRUNCATE, a row lock
#     (FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE), LOCK TABLE
#     in a mode that would make the daemon's UPDATE wait, all refused;
#   - the share lock SELECT allows (the report role), held in an open
#     transaction, does not keep the daemon from leading;
#   - ending the daemon's lease connection (pg_terminate_backend,
#     pg_cancel_backend) is refused.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -n "${MS_PG_COLLECTOR_CONNINFO:-}" ] && [ -n "${MS_PG_REPORT_CONNINFO:-}" ] ||
    tap_skip_all "the test bed names no collector or report conninfo"
holders=
app=ms-test-intruder-$$
cleanup () {
    # a killed psql would leave its backend asleep (and holding its locks)
    # until the sleep ends: end the sessions first, each role its own
    for ci in "$MS_PG_COLLECTOR_CONNINFO" "$MS_PG_REPORT_CONNINFO" ${MS_PG_SUPER_CONNINFO:+"$MS_PG_SUPER_CONNINFO"}; do
        psql "$ci" -X -q -c "SELECT pg_terminate_backend (pid) FROM pg_stat_activity WHERE application_name = '$app'" >/dev/null 2>&1
    done
    for p in $holders; do kill "$p" 2>/dev/null; done
    daemon_cleanup
}
trap cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 8
log=$dtmp/msd.log
as () { # as CONNINFO SQL: one statement as that role; its output and errors
    psql "$1" -X -A -t -q -v ON_ERROR_STOP=1 -c "$2" 2>&1
}

# 1. the advisory lock of the old leadership, held by both roles (shared,
# so that both hold it at once) in sessions that stay open
for ci in "$MS_PG_COLLECTOR_CONNINFO" "$MS_PG_REPORT_CONNINFO"; do
    PGAPPNAME=$app psql "$ci" -X -q -c "SELECT pg_advisory_lock_shared (28019, 1)" \
        -c "SELECT pg_sleep (600)" >/dev/null 2>&1 &
    holders="$holders $!"
done
# and the report role holds the share lock of a SELECT on the lease table
PGAPPNAME=$app psql "$MS_PG_REPORT_CONNINFO" -X -q -c "BEGIN" \
    -c "LOCK TABLE leader_lease IN ACCESS SHARE MODE" \
    -c "SELECT pg_sleep (600)" >/dev/null 2>&1 &
holders="$holders $!"
held_by () {
    [ "$(q "SELECT count (DISTINCT usename) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND l.classid = 28019 AND l.objid = 1 AND l.granted AND a.usename IN ('ms_collector', 'ms_report')")" = 2 ]
}
wait_for 10 held_by
tap_ok $? "ms_collector and ms_report hold the advisory lock (0x6d73, 1)"

# 2. every other way at the lease row, as each role
refused=0 tried=0 let=
for role in collector report; do
    ci=$MS_PG_COLLECTOR_CONNINFO
    [ $role = report ] && ci=$MS_PG_REPORT_CONNINFO
    while IFS= read -r sql; do
        [ -n "$sql" ] || continue
        tried=$((tried + 1))
        out=$(as "$ci" "$sql")
        case $out in
        *"permission denied"* | *"must be owner"*) refused=$((refused + 1)) ;;
        *) let="$let [$role: $sql: $out]" ;;
        esac
    done <<'SQL'
UPDATE leader_lease SET holder = 'intruder', expires_at = 'infinity'
INSERT INTO leader_lease VALUES (2, 'intruder', now (), now (), 'infinity')
DELETE FROM leader_lease
TRUNCATE leader_lease
SELECT 1 FROM leader_lease FOR UPDATE
SELECT 1 FROM leader_lease FOR NO KEY UPDATE
SELECT 1 FROM leader_lease FOR SHARE
SELECT 1 FROM leader_lease FOR KEY SHARE
BEGIN; LOCK TABLE leader_lease IN ROW EXCLUSIVE MODE; COMMIT
BEGIN; LOCK TABLE leader_lease IN SHARE MODE; COMMIT
BEGIN; LOCK TABLE leader_lease IN EXCLUSIVE MODE; COMMIT
BEGIN; LOCK TABLE leader_lease IN ACCESS EXCLUSIVE MODE; COMMIT
ALTER TABLE leader_lease DISABLE TRIGGER ALL
CREATE TABLE leader_lease_x (id int)
SQL
done
tap_ok "$(ok_if [ "$refused" = "$tried" ])" \
    "UPDATE, INSERT, DELETE, TRUNCATE, row locks, LOCK TABLE on the lease: refused to both roles ($refused of $tried)${let}"

# 3. the daemon leads and dispatches meanwhile
daemon_lead
tap_ok $? "metaschedd leads while the other roles hold or try all that ($(grep -E 'lead|lease' "$log" | tail -2 | tr '\n' ' '))"
holder=$(q "SELECT holder FROM leader_lease WHERE id = 1 AND expires_at > now ()")
case $holder in
*:"$daemon_pid":*) r=0 ;;
*) r=1 ;;
esac
tap_ok $r "the lease names the leading instance ($holder, pid $daemon_pid)"

u=$MS_TEST_USER
d=$(job_dir "$u")
msb_sleep "$u" "$d" leaderjob 3
dispatched () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = ${job_id:-0} AND state IN ('submitted', 'running', 'completed')")" ]; }
wait_for 60 dispatched
tap_ok $? "a job is dispatched ($job_out: $(q "SELECT state, cluster FROM jobs WHERE id = ${job_id:-0}" | tr '\n' ' '))"

# 4. ending or interrupting the daemon's lease connection: refused
lpid=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'metaschedd-leader' LIMIT 1")
refused=0 out=
for role in collector report; do
    ci=$MS_PG_COLLECTOR_CONNINFO
    [ $role = report ] && ci=$MS_PG_REPORT_CONNINFO
    for f in pg_terminate_backend pg_cancel_backend; do
        o=$(as "$ci" "SELECT $f (${lpid:-0})")
        case $o in
        *"permission denied"* | *"must be a"*) refused=$((refused + 1)) ;;
        *) out="$out [$role $f: $o]" ;;
        esac
    done
done
[ -n "$lpid" ] && [ "$refused" = 4 ]
tap_ok $? "pg_terminate_backend and pg_cancel_backend of the lease connection (pid $lpid): refused to both roles ($refused of 4)$out"

# 5. after all that the daemon still leads, and the lease is still its
sleep 3
tap_ok "$(ok_if grep -q 'leading' "$log")" "metaschedd did not lose its leadership ($(grep -c 'leadership lost' "$log") losses)"
! grep -q 'leadership lost' "$log"
tap_ok $? "no 'leadership lost' in the daemon's log"
exit $tap_failed
