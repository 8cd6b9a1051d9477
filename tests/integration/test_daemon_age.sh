#!/bin/sh
# Sibling mode sends each copy with the nice of the policy's decision
# (doc/daemon.md "Siblings and the start gate"): a first choice nearly
# tied with the job's next partition waits behind the jobs that prefer its
# partition more, and once it has waited first_age times its predicted
# runtime the daemon takes that nice back. A job may run on gamma/short or
# gamma/long only (same nodes, same architecture: tied), with
# pref_margin = 1 every first choice led by less than 100% is niced; both
# partitions are kept busy by a blocker job so that the copies stay
# pending. Checked on Slurm: each copy's Nice is the one recorded in
# job_submissions.nice, the first choice's goes to 0 after about
# first_age (0.5) times its predicted runtime (a 1-minute job), once,
# the second copy's stays, and the daemon counts it. The blocker runs on
# short and holds long's nodes too: the daemon's view counts them held
# on long (a predicted wait there), so the copy on long is not taken
# for one that could start at once (sibling_ahead). TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
case " $MS_CLUSTERS " in
*" gamma "*) ;;
*) tap_skip_all "the test bed has no cluster gamma (its partitions short and long share nodes)" ;;
esac

age_cleanup () {
    [ -n "${restore:-}" ] && cfg set dispatch_mode=single "siblings=$restore" \
        "pref_margin=$restore_pm" "first_age=$restore_fa" >/dev/null 2>&1
    on_cluster gamma scancel -n msd-ageblock 2>/dev/null
    daemon_cleanup
}
trap age_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 8

log=$dtmp/msd.log
daemon_lead "partition_requests = honor"

restore=$(cfg_value siblings 2)
restore_pm=$(cfg_value pref_margin 0.2)
restore_fa=$(cfg_value first_age 3)
out=$(cfg set dispatch_mode=siblings siblings=2 pref_margin=1 first_age=0.5 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2, pref_margin=1, first_age=0.5 ($out)"

# gamma's nodes busy for 20 minutes (as root; cancelled at the end)
block_partition gamma short msd-ageblock
full () { [ -z "$(on_cluster gamma sinfo -h -t idle -o %D 2>/dev/null)" ]; }
wait_for 60 full
tap_ok $? "gamma's nodes are busy ($(on_cluster gamma squeue -h -n msd-ageblock -o %P:%T:%D 2>/dev/null | tr '\n' ' '))"
daemon_cycles 2 # a whole cycle after the blocker: the daemon's view has it

u=$MS_TEST_USER
d=$(job_dir "$u")
# and until the daemon's view holds it: its what-if predicts a wait on
# gamma/long (a cycle can pass while a loaded cluster's answer is late)
cat > "$d/agewhatif.sh" <<EOS
#!/bin/sh
#SBATCH -t 1
#SBATCH -p long
#SBATCH -J msd-agewi
sleep 1
EOS
chmod 755 "$d/agewhatif.sh"
long_busy () {
    msb "$u" "$d" --test-only agewhatif.sh 2>&1 | awk '{
        for (i = 1; i + 5 <= NF; i++)
            if ($i == "gamma" && $(i + 1) == "long") {
                split ($(i + 5), t, ":")
                if (t[1] + 0 > 0 || t[2] + 0 >= 1) busy = 1
            } } END { exit !busy }'
}
wait_for 120 long_busy || echo "# after 120 s the daemon's what-if still shows no wait on gamma/long"

# slurm_nice CLUSTER JOBID: Slurm's Nice of the job
slurm_nice () { on_cluster "$1" scontrol show job "$2" 2>/dev/null | tr ' ' '\n' | sed -n 's/^Nice=//p'; }

msb_sleep "$u" "$d" age 1 "-p short,long"; out=$job_out id=$job_id
wait_for 30 two_copies "${id:-0}"
tap_ok $? "job ${id:-?} went out as two copies ($out; $(q "SELECT cluster, partition, cluster_job_id, rank, nice FROM job_submissions WHERE job_id = ${id:-0} ORDER BY rank" | tr '\n' ' '))"
set -- $(copy_of "${id:-0}" 0); c0=$1 j0=$2 n0=$3
set -- $(copy_of "${id:-0}" 1); c1=$1 j1=$2 n1=$3
sn0=$(slurm_nice "$c0" "$j0"); sn1=$(slurm_nice "$c1" "$j1")
[ "${n0:-0}" -gt 0 ] && [ "$sn0" = "$n0" ] && [ "${n1:-0}" -gt 0 ] && [ "$sn1" = "$n1" ]
tap_ok $? "each copy carries the decision's nice: first choice $c0/$j0 Nice=$sn0 (recorded $n0), second $c1/$j1 Nice=$sn1 (recorded $n1)"
# the least predicted wait the decision saw on gamma/long
wlong=$(q "SELECT min ((c->>'wait_s')::float) FROM decisions, jsonb_array_elements (candidates::jsonb) c WHERE job_id = ${id:-0} AND c->>'cluster' = 'gamma' AND c->>'partition' = 'long'")
awk -v w="$wlong" 'BEGIN { exit !(w != "" && w + 0 > 60) }'
tap_ok $? "the blocker on gamma/short holds gamma/long's nodes in the daemon's view: predicted wait ${wlong:-?} s on long"

pred=$(q "SELECT round (predicted_time_s) FROM jobs WHERE id = ${id:-0}")
aged () { [ "$(slurm_nice "$c0" "$j0")" = 0 ] && [ "$(copy_of "${id:-0}" 0 | cut -d' ' -f3)" = 0 ]; }
wait_for 150 aged
tap_ok $? "the first choice's nice is taken back after it waited first_age x its predicted runtime (${pred}s): Nice=$(slurm_nice "$c0" "$j0"), recorded $(copy_of "${id:-0}" 0 | cut -d' ' -f3); $(grep "job ${id:-0}: first choice" "$log" | tail -1)"
daemon_cycles 3 # more of the daemon's cycles: nothing more is taken back
[ "$(slurm_nice "$c1" "$j1")" = "$n1" ] && [ "$(copy_of "${id:-0}" 1 | cut -d' ' -f3)" = "$n1" ] &&
    [ "$(grep -c "job ${id:-0}: first choice" "$log")" = 1 ] && [ "$(slurm_nice "$c0" "$j0")" = 0 ]
tap_ok $? "the second copy keeps its nice (Nice=$(slurm_nice "$c1" "$j1"), recorded $(copy_of "${id:-0}" 1 | cut -d' ' -f3)), and the first choice's was taken back once ($(grep -c "job ${id:-0}: first choice" "$log") log line, Nice=$(slurm_nice "$c0" "$j0"))"
m=$(curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_first_choices_aged_total //p')
[ "${m:-0}" -ge 1 ]
tap_ok $? "metaschedd_first_choices_aged_total counts it ($m)"
exit $tap_failed
