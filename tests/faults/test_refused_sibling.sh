#!/bin/sh
# A refused copy is that copy's end, not the job's (doc/daemon.md, "Refused
# copies"), on the test bed in sibling mode (dispatch_mode = siblings,
# siblings = 2, as tests/integration/test_siblings.sh sets it up).
# The start gate reaches metaschedd's API through api_server_for_jobs, here
# a link to the daemon's socket that the test removes to stop the API for
# the jobs (msbatch and the admin keep the socket itself). Every partition
# is kept busy until the job's two copies are out; the second copy is held
# on its cluster; the API is stopped and the first copy starts: its gate
# cannot claim the job in gate_wait_s and refuses (exit 75). Then the API
# comes back and the second copy is released. The job ran once, as the
# second copy, and is completed; the first copy is recorded as refused
# (job_submissions, the job's copies in the API, the log, /metrics), not as
# the job's failure. Then a second job whose first copy is refused and
# whose held copy is cancelled on its cluster: with no copy left, none run
# and one refused, it is queued again, and runs once the API is back.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"

gate=$dtmp/gate.sock
rs_cleanup () {
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    for c in $MS_CLUSTERS; do on_cluster "$c" scancel -n msd-rblk 2>/dev/null; done
    daemon_cleanup
}
trap rs_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 10

log=$dtmp/msd.log
ln -s "$dtmp/msd.sock" "$gate"
daemon_lead "api_server_for_jobs = unix:$gate" "gate_wait_s = 3"

restore=$(settings_now dispatch_mode siblings max_slowdown sibling_hold stake_margin)
# every job has a second candidate, and both copies go at once
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 sibling_hold=0 stake_margin=0 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2, max_slowdown=100, sibling_hold=0, stake_margin=0 ($out)"

u=$MS_TEST_USER
d=$(job_dir "$u")
touch "$d/ran.log" && chown "$u" "$d/ran.log"
cat > "$d/one.sh" <<EOS
#!/bin/sh
#SBATCH -t 5
#SBATCH -J msd-refused
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME \$SLURM_JOB_ID" >> $d/ran.log
sleep 2
EOS
chmod 755 "$d/one.sh"

# every partition busy: neither copy starts before the test says so
nb=$(block_all msd-rblk)
wait_for 60 all_full
tap_ok $? "every partition is busy ($nb blocker jobs)"

out=$(msb "$u" "$d" one.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
wait_for 60 two_copies "${id:-0}"; r=$?
read -r ac aj _ <<EOF
$(copy_of "${id:-0}" 0)
EOF
read -r bc bj _ <<EOF
$(copy_of "${id:-0}" 1)
EOF
[ $r = 0 ] && on_cluster "$bc" scontrol hold "$bj" >/dev/null 2>&1
tap_ok $? "job ${id:-?} went out as two copies, $ac job $aj and $bc job $bj (held) ($out)"

# the API stopped for the jobs; the first copy starts
rm -f "$gate"
for c in $MS_CLUSTERS; do on_cluster "$c" scancel -n msd-rblk 2>/dev/null; done
sub_state () { q "SELECT state FROM job_submissions WHERE cluster = '$1' AND cluster_job_id = $2"; }
a_over () {
    case "$(sub_state "$ac" "$aj")" in refused | ended | cancelled) return 0 ;; esac
    case "$(q "SELECT state FROM jobs WHERE id = $id")" in failed | cancelled | completed) return 0 ;; esac
    return 1
}
wait_for 180 a_over
aexit=$(on_cluster "$ac" scontrol show job "$aj" 2>/dev/null | tr ' ' '\n' | sed -n 's/^ExitCode=//p')
st=$(q "SELECT state FROM jobs WHERE id = $id")
[ "$(sub_state "$ac" "$aj")" = refused ] && [ "$aexit" = 75:0 ] && [ "$st" = submitted ]
tap_ok $? "the API stopped: $ac job $aj ended refused by its start gate (exit $aexit), recorded refused ($(sub_state "$ac" "$aj")); the job is still $st"

# the API back; the second copy starts
ln -s "$dtmp/msd.sock" "$gate"
on_cluster "$bc" scontrol release "$bj" >/dev/null 2>&1
ended () { case "$(q "SELECT state FROM jobs WHERE id = $id")" in completed | failed | cancelled) return 0 ;; esac; return 1; }
wait_for 180 ended
row=$(q "SELECT state || ' ' || cluster || ' ' || cluster_job_id || ' ' || refusals FROM jobs WHERE id = $id")
[ "$row" = "completed $bc $bj 0" ]
tap_ok $? "the job is completed, run by $bc job $bj, no refusal in a row left ($row; $(q "SELECT left (last_error, 200) FROM jobs WHERE id = $id"))"

runs=$(grep -c "^$id " "$d/ran.log")
line=$(grep "^$id " "$d/ran.log" | head -1)
[ "$runs" = 1 ] && [ "$line" = "$id $bc $bj" ]
tap_ok $? "the script ran exactly once, as $bc job $bj ($runs: $line)"

# what the admin sees: the copies in the API, the log, /metrics
js=$(cd "$d" && runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    "$MS_BUILDDIR/metasched/msqueue" --json -j "$id" 2>&1)
# each copy a flat object: {"dispatch": N, "cluster": ..., "state": ...}
copies=$(printf '%s' "$js" | tr -d ' \n' | grep -o '{[^{}]*"dispatch":[^{}]*}')
printf '%s\n' "$copies" | grep '"cluster":"'"$ac"'"' | grep '"cluster_job_id":'"$aj"'[,}]' | grep -q '"state":"refused"'
r=$?
copies=$(printf '%s' "$copies" | tr '\n' ' ')
tap_ok $r "the job's copies as the API shows them: $copies"

m=$(curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_copies_refused_total //p')
grep -q "job $id: $ac job $aj refused by the start gate" "$log" && [ "${m:-0}" -ge 1 ]
tap_ok $? "the refusal is logged and counted (metaschedd_copies_refused_total $m): $(grep "job $id: $ac job $aj refused" "$log" | head -1)"

# again, and the held copy is cancelled on its cluster (by hand) after the
# first was refused: no copy of that dispatch is left, none ran the job,
# one was refused: the job is queued again (not failed, not left
# submitted), and runs once the API answers
rm -f "$gate"
nb=$(block_all msd-rblk)
wait_for 60 all_full
out=$(msb "$u" "$d" one.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
wait_for 60 two_copies "${id2:-0}"
read -r ac2 aj2 _ <<EOF
$(copy_of "${id2:-0}" 0)
EOF
read -r bc2 bj2 _ <<EOF
$(copy_of "${id2:-0}" 1)
EOF
on_cluster "$bc2" scontrol hold "$bj2" >/dev/null 2>&1
for c in $MS_CLUSTERS; do on_cluster "$c" scancel -n msd-rblk 2>/dev/null; done
over2 () { case "$(q "SELECT state FROM jobs WHERE id = ${id2:-0}")" in failed | cancelled | completed) return 0 ;; esac; return 1; }
a2_refused () { [ "$(sub_state "$ac2" "$aj2")" = refused ] || over2; }
wait_for 180 a2_refused
on_cluster "$bc2" scancel "$bj2" 2>/dev/null
again () { [ "$(q "SELECT refusals FROM jobs WHERE id = ${id2:-0}")" -ge 1 ] 2>/dev/null || over2; }
wait_for 180 again
st=$(q "SELECT state || ' ' || refusals FROM jobs WHERE id = ${id2:-0}")
why=$(q "SELECT left (last_error, 200) FROM jobs WHERE id = ${id2:-0}")
# the API back before its next copies' gates give up (a dispatch or two)
ln -s "$dtmp/msd.sock" "$gate"
case $st in queued\ [1-4] | dispatching\ [1-4] | submitted\ [1-4]) r=0 ;; *) r=1 ;; esac
[ "$(sub_state "$bc2" "$bj2")" = cancelled ] || r=1
tap_ok $r "job ${id2:-?}: $ac2 job $aj2 refused, then $bc2 job $bj2 cancelled on its cluster: the job is routed again ($st: $why)"

wait_for 240 over2
st=$(q "SELECT state || ' ' || refusals FROM jobs WHERE id = ${id2:-0}")
runs=$(grep -c "^$id2 " "$d/ran.log")
[ "$st" = "completed 0" ] && [ "$runs" = 1 ]
tap_ok $? "job ${id2:-?}: the API back, it completes, run once ($st, $runs runs)"
exit $tap_failed
