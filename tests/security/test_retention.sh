#!/bin/sh
# What a user wrote is kept for script_retention_days only, and never by
# the report role (doc/database.md "Retention", doc/admin-guide.md 7):
#   - a job that ended longer ago than the retention has its script and
#     its exported environment emptied by metaschedd; one that ended
#     recently keeps both, and so does a live job however old;
#   - ms_report is refused SELECT of jobs.script and jobs.options (and of
#     SELECT *), and still reads the other columns.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -n "${MS_PG_REPORT_CONNINFO:-}" ] || tap_skip_all "the test bed names no report conninfo"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 8
log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")
mark=retention-mark-$$

# three jobs with a marked environment: two cancelled, one left running
printf '#!/bin/sh\n#SBATCH -t 3\n#SBATCH -J msd-ret\nsleep 120\n' > "$d/ret.sh"
chmod 755 "$d/ret.sh"
daemon_lead
ids=
for i in 1 2 3; do
    out=$(cd "$d" && runuser -u "$u" -- env MS_RETENTION_MARK="$mark" \
        METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        "$msbatch" ret.sh 2>&1)
    ids="$ids $(printf '%s' "$out" | grep -o '[0-9][0-9]*$')"
done
set -- $ids
old=${1:-0} recent=${2:-0} live=${3:-0}
has_mark () { [ "$(q "SELECT count (*) FROM jobs WHERE id = $1 AND script IS NOT NULL AND options->'environment' @> to_jsonb (ARRAY['MS_RETENTION_MARK=$mark'])")" = 1 ]; }
has_mark "$old" && has_mark "$recent" && has_mark "$live"
tap_ok $? "three jobs stored with their script and environment ($old $recent $live)"

running () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = $live AND state IN ('submitted', 'running')")" ]; }
wait_for 60 running
cancel_meta "$u" "$d" "$old"
cancel_meta "$u" "$d" "$recent"
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
# the first ended 40 days ago, the second an hour ago; the live one was
# submitted 40 days ago
q "UPDATE jobs SET finished_at = now () - interval '40 days' WHERE id = $old" >/dev/null
q "UPDATE jobs SET finished_at = now () - interval '1 hour' WHERE id = $recent" >/dev/null
q "UPDATE jobs SET submitted_at = now () - interval '40 days' WHERE id = $live" >/dev/null
st=$(q "SELECT id || ':' || state FROM jobs WHERE id IN ($old, $recent, $live) ORDER BY id" | tr '\n' ' ')

# a new daemon's first cycle passes the retention
daemon_lead
purged () { [ "$(q "SELECT count (*) FROM jobs WHERE id = $old AND script IS NULL")" = 1 ]; }
wait_for 30 purged
tap_ok $? "a job that ended 40 days ago: its script is emptied ($st)"
[ "$(q "SELECT coalesce (options ? 'environment', false) FROM jobs WHERE id = $old")" = f ]
tap_ok $? "... and its environment ($(q "SELECT options->'environment' FROM jobs WHERE id = $old" | head -c 200))"
has_mark "$recent"
tap_ok $? "a job that ended an hour ago keeps both"
has_mark "$live"
tap_ok $? "a live job submitted 40 days ago keeps both"
grep -q 'retention: emptied the script and environment of [0-9]* jobs that ended more than 30 days ago' "$log"
tap_ok $? "the daemon says what it emptied ($(grep retention "$log" | tail -1))"

# the report role
as_report () { psql "$MS_PG_REPORT_CONNINFO" -X -A -t -q -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
refused=0 let=
for sql in "SELECT script FROM jobs WHERE id = $recent" \
    "SELECT options FROM jobs WHERE id = $recent" \
    "SELECT options->'environment' FROM jobs WHERE id = $recent" \
    "SELECT * FROM jobs WHERE id = $recent" \
    "SELECT j FROM jobs j WHERE id = $recent"; do
    out=$(as_report "$sql")
    case $out in
    *"permission denied"*) refused=$((refused + 1)) ;;
    *) let="$let [$sql: $(printf '%s' "$out" | head -c 100)]" ;;
    esac
done
tap_ok "$(ok_if [ "$refused" = 5 ])" "ms_report: script, options, * and the whole row refused ($refused of 5)$let"
out=$(as_report "SELECT id, state, owner_name FROM jobs WHERE id = $recent")
case $out in
"$recent|cancelled|$u") r=0 ;;
*) r=1 ;;
esac
tap_ok $r "ms_report still reads the other columns ($out)"
exit $tap_failed
