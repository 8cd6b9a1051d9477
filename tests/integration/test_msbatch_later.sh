#!/bin/sh
# Options that only later Slurm releases have (23.11 to 26.05) through
# metaschedd on the test bed, whose clusters run Slurm 22.05 (slurmrestd
# OpenAPI v0.0.38): a job holding a requirement that no cluster's Slurm
# knows (--oom-kill-step) is refused at msbatch time, each cluster shown
# with its reason (--test-only too); a hint (--stepmgr) is dropped on each
# cluster with a message (--test-only) and the job runs there without it;
# msbatch --parse shows the options' values. Takes the services lock
# exclusive. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 6

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-later -n 1\n#SBATCH --oom-kill-step\necho ran\n' > "$d/oom.sh"
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-hint -n 1\n#SBATCH --stepmgr\necho ran\n' > "$d/hint.sh"
chmod 755 "$d/oom.sh" "$d/hint.sh"
ncl=$(echo $MS_CLUSTERS | wc -w)
daemon_answers "$u" "$d" hint.sh

# 1: --parse takes the options by sbatch's rules
out=$(msb "$u" "$d" --parse --segment=4 --extra=rack=a --spread-segments oom.sh 2>&1)
printf '%s' "$out" | grep -q '"oom_kill_step": *1' \
    && printf '%s' "$out" | grep -q '"segment_size": *4' \
    && printf '%s' "$out" | grep -q '"extra": *"rack=a"' \
    && printf '%s' "$out" | grep -q '"spread_segments": *true'
tap_ok $? "msbatch --parse takes --oom-kill-step, --segment, --extra, --spread-segments: $(printf '%s' "$out" | grep -Eo '"(oom_kill_step|segment_size|extra|spread_segments)": *[^,}]*' | tr '\n' ' ')"
out=$(msb "$u" "$d" --parse --oom-kill-step=2 oom.sh 2>&1); rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep -q -- "--oom-kill-step=2: Invalid --oom-kill-step specification"
tap_ok $? "a value sbatch refuses is refused with its reason: $out"

# 2: a requirement no cluster knows: no candidate, each cluster's reason
out=$(msb "$u" "$d" --test-only oom.sh 2>&1); rc=$?
n=$(printf '%s' "$out" | grep -o -- "--oom-kill-step: this cluster's Slurm does not know it (its slurmrestd speaks OpenAPI v0.0.38; the option needs v0.0.42, Slurm 24.11, or later)" | wc -l)
[ $rc != 0 ] && printf '%s' "$out" | grep -q "HTTP 409" && [ "$n" = "$ncl" ]
tap_ok $? "--test-only: no cluster is a candidate, the reason shown for each of $ncl ($n): $out"
before=$(q "SELECT count(*) FROM jobs")
out=$(msb "$u" "$d" oom.sh 2>&1); rc=$?
after=$(q "SELECT count(*) FROM jobs")
[ $rc != 0 ] && printf '%s' "$out" | grep -q -- "--oom-kill-step: this cluster's Slurm does not know it" && [ "$before" = "$after" ]
tap_ok $? "msbatch refuses it at submission, stores nothing ($before, $after jobs): $out"

# 3: a hint: dropped on each cluster with a message, the job runs
out=$(msb "$u" "$d" --test-only hint.sh 2>&1); rc=$?
n=$(printf '%s' "$out" | grep -o -- "--stepmgr: dropped on cluster [a-z]* (its slurmrestd speaks OpenAPI v0.0.38; the option needs v0.0.41, Slurm 24.05, or later)" | wc -l)
[ $rc = 0 ] && [ "$n" = "$ncl" ]
tap_ok $? "--test-only: --stepmgr is dropped on each of $ncl clusters ($n), with a message: $out"
out=$(msb "$u" "$d" -o hint-%j.out hint.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 120 done_; r=$?
[ -n "$id" ] && [ $r = 0 ]
tap_ok $? "a job with --stepmgr runs on $(q "SELECT cluster FROM jobs WHERE id = ${id:-0}") and completes ($out: $(q "SELECT state FROM jobs WHERE id = ${id:-0}"))"
exit $tap_failed
