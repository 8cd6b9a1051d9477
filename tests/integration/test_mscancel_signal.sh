#!/bin/sh
# mscancel --signal through metaschedd on the test bed: the signal reaches
# the running job's batch shell on its cluster (slurmrestd's DELETE
# job/ID?signal=N, as scancel --full --signal), which goes on and
# completes; a job not on a cluster, another user's job and a name that is
# no signal are refused, each with why. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 5

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
msc () { usr=$1; shift; (cd "$d" && runuser -u "$usr" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$MS_BUILDDIR/metasched/mscancel" "$@"); }
printf '#!/bin/sh\n#SBATCH -t 3 -J msd-sig\ngot=0\ntrap "got=1" USR1\necho started\nn=0\nwhile [ $got = 0 ] && [ $n -lt 120 ]; do sleep 1; n=$((n + 1)); done\necho "got=$got"\n' > "$d/sig.sh"
chmod 755 "$d/sig.sh"

out=$(msb "$u" "$d" -o sig-%j.out sig.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
cj=
started () { cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0} AND state = 'running'"); [ -n "$cj" ] && grep -q started "$d/sig-$cj.out" 2>/dev/null; }
wait_for 120 started
out=$(msc "$u" -v --signal=USR1 "${id:-0}" 2>&1); rc=$?
tap_ok "$(ok_if [ $rc = 0 ])" "mscancel --signal=USR1 $id: $out"
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 120 done_; r=$?
jo=$(tr '\n' ' ' < "$d/sig-$cj.out" 2>/dev/null)
# (its sleep, signalled with it, may be reported killed)
[ $r = 0 ] && [ "${jo%% *}" = started ] && [ "${jo##* got=}" = "1 " ]
tap_ok $? "the job's shell caught USR1 and the job completed ($(q "SELECT state FROM jobs WHERE id = ${id:-0}"): $jo)"

out=$(msc "$u" -s USR1 "${id:-0}" 2>&1); rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q "is completed: only a job on a cluster"
tap_ok $? "a job no longer on a cluster takes no signal: $out"
if [ -n "${MS_TEST_USER2:-}" ]; then
    out=$(msb "$u" "$d" -o /dev/null sig.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    run2 () { [ "$(q "SELECT state FROM jobs WHERE id = ${id2:-0}")" = running ]; }
    wait_for 120 run2
    out=$(msc "$MS_TEST_USER2" -s USR1 "${id2:-0}" 2>&1); rc=$?
    [ $rc = 1 ] && printf '%s' "$out" | grep -q "no such job"
    tap_ok $? "another user cannot signal the job: $out"
    cancel_meta "$u" "$d" "${id2:-0}"
else
    tap_skip 1 "no second test user"
fi
out=$(msc "$u" -s NOPE 1 2>&1); rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--signal=NOPE: expected a signal name"
tap_ok $? "a name that is no signal: $out"
exit $tap_failed
