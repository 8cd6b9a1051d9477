#!/bin/sh
# MAX_REFUSED counts refused dispatches in a row (doc/daemon.md, "Refused
# copies"), on the test bed in sibling mode (siblings = 2). The start gate
# reaches metaschedd's API through api_server_for_jobs, a link to the
# daemon's socket that the test removes: then every copy that starts is
# refused by its gate (exit 75) and each dispatch is a refused one.
# - job 1: refused at 4 dispatches in a row (jobs.refusals 4), then the API
#   comes back: its next dispatch's copy claims it and runs it; it is
#   completed, not cancelled, and the count is back to 0 (before, the
#   first refused copy failed the job; counted by jobs.attempts, 5
#   dispatches would have cancelled it);
# - job 2: refused at 5 dispatches in a row: cancelled, with the reason.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"

gate=$dtmp/gate.sock
rl_cleanup () {
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    daemon_cleanup
}
trap rl_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 6

log=$dtmp/msd.log
# the gate tries for 10 s: the test brings the API back well within one
# dispatch's wait
daemon_lead "api_server_for_jobs = unix:$gate" "gate_wait_s = 10"

restore=$(settings_now dispatch_mode siblings max_slowdown sibling_hold stake_margin)
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 sibling_hold=0 stake_margin=0 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2, max_slowdown=100, sibling_hold=0, stake_margin=0 ($out)"

u=$MS_TEST_USER
d=$(job_dir "$u")
touch "$d/ran.log" && chown "$u" "$d/ran.log"
cat > "$d/lim.sh" <<EOS
#!/bin/sh
#SBATCH -t 5
#SBATCH -J msd-reflim
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME \$SLURM_JOB_ID" >> $d/ran.log
EOS
chmod 755 "$d/lim.sh"
jrow () { q "SELECT state || ' attempts ' || attempts || ' refusals ' || refusals || ': ' || coalesce (left (last_error, 220), '') FROM jobs WHERE id = ${1:-0}"; }
refusals () { [ "$(q "SELECT refusals FROM jobs WHERE id = ${1:-0}")" = "$2" ]; }
over () { case "$(q "SELECT state FROM jobs WHERE id = ${1:-0}")" in completed | failed | cancelled) return 0 ;; esac; return 1; }
over_or () { over "$1" || refusals "$1" "$2"; }

# job 1: the API stopped for the jobs until 4 dispatches in a row were
# refused
out=$(msb "$u" "$d" lim.sh 2>&1); id1=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
wait_for 400 over_or "$id1" 4
st=$(q "SELECT state FROM jobs WHERE id = ${id1:-0}")
ln -s "$dtmp/msd.sock" "$gate"
refusals "$id1" 4 && [ "$st" != failed ] && [ "$st" != cancelled ] && [ "$st" != completed ]
tap_ok $? "job ${id1:-?}: 4 dispatches in a row refused by the start gate, the job still routed ($(jrow "$id1"))"

wait_for 180 over "$id1"
row=$(q "SELECT state || ' ' || refusals FROM jobs WHERE id = ${id1:-0}")
runs=$(grep -c "^$id1 " "$d/ran.log")
att=$(q "SELECT attempts FROM jobs WHERE id = ${id1:-0}")
[ "$row" = "completed 0" ] && [ "$runs" = 1 ] && [ "${att:-0}" -ge 5 ]
tap_ok $? "job $id1: the API back, a copy claimed it at dispatch $att: completed, ran once ($runs), refusals back to 0 ($(jrow "$id1"))"
nref=$(q "SELECT count(*) FROM job_submissions WHERE job_id = ${id1:-0} AND state = 'refused'")
tap_ok "$(ok_if [ "${nref:-0}" -ge 4 ])" "job $id1: its refused copies are recorded as such ($nref refused: $(q "SELECT attempt || ':' || cluster || '/' || cluster_job_id || ':' || state FROM job_submissions WHERE job_id = ${id1:-0} ORDER BY attempt, rank" | tr '\n' ' '))"

# job 2: refused at 5 dispatches in a row
rm -f "$gate"
out=$(msb "$u" "$d" lim.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
wait_for 500 over "$id2"
st=$(q "SELECT state || ' ' || refusals || ' ' || attempts FROM jobs WHERE id = ${id2:-0}")
[ "$st" = "cancelled 5 5" ] &&
    q "SELECT last_error FROM jobs WHERE id = ${id2:-0}" | grep -q '^refused at each of 5 dispatches in a row; the last: \(every copy refused by the start gate\|no copy ran the job\)' &&
    [ "$(grep -c "^$id2 " "$d/ran.log")" = 0 ]
tap_ok $? "job ${id2:-?}: 5 dispatches in a row refused: cancelled with the reason, never run ($(jrow "$id2"))"

m=$(curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_refused_cancelled_total //p')
tap_ok "$(ok_if [ "${m:-0}" = 1 ])" "metaschedd_refused_cancelled_total counts it ($m)"
exit $tap_failed
