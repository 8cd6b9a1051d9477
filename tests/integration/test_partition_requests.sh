#!/bin/sh
# A script's --partition under the site's setting (metaschedd.conf
# partition_requests): refuse (the default) refuses it; map turns a name of
# partition_map into its class of partitions across clusters and honors
# other names (the partitions of that name, wherever they are); msbatch
# --test-only shows what the name became; a job submitted with it runs on
# one of them; a name no cluster has, and bad configurations, are refused
# naming the place. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 13

u=$MS_TEST_USER
d=$(job_dir "$u")
cat > "$d/job.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
#SBATCH -p short
echo "on $SLURM_CLUSTER_NAME/$SLURM_JOB_PARTITION"
EOS
chmod 755 "$d/job.sh"
has () { printf '%s\n' "$1" | grep -qF -- "$2"; }
cands () { printf '%s\n' "$1" | sed -n '/^  CLUSTER/,/^excluded:/p' | awk 'NR > 1 && $1 != "excluded:" { print ($1 == "*" ? $2 "/" $3 : $1 "/" $2) }' | sort -u | paste -sd' '; }

# the configuration is checked
bad () { # bad EXPECT LINES...: metaschedd -t refuses them, naming EXPECT
    e=$1; shift
    write_conf "$dtmp/bad.conf" "$@"
    out=$("$msd" -t -f "$dtmp/bad.conf" 2>&1); rc=$?
    [ $rc != 0 ] && has "$out" "$e"
}
tap_ok "$(ok_if bad "partition_requests: 'sometimes' is not one of refuse, honor, map" "partition_requests = sometimes")" \
    "partition_requests: a bad value is named"
tap_ok "$(ok_if bad "partition_map gpu: alpha/gpu is no partition of" "partition_requests = map" "partition_map gpu = alpha/gpu")" \
    "partition_map: a partition that does not exist is named"
tap_ok "$(ok_if bad "partition_map x: 'beta' is not CLUSTER/PARTITION" "partition_requests = map" "partition_map x = beta")" \
    "partition_map: a target that is not CLUSTER/PARTITION is named"
tap_ok "$(ok_if bad "partition_map any: needs partition_requests = map" "partition_map any = beta/compute")" \
    "partition_map without map is refused"

# refuse (the default)
log=$dtmp/msd.log
write_conf "$dtmp/refuse.conf"
start_daemon "$dtmp/refuse.conf" "$log"
daemon_up "$log"
wait_for 30 grep -q 'leading: this instance now schedules' "$log"
out=$(msb "$u" "$d" --test-only job.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "this site refuses --partition"; then echo 0; else echo 1; fi)" \
    "refuse: --partition short is refused with the reason ($out)"
kill "$daemon_pid"; wait "$daemon_pid" 2>/dev/null

# map: "debug" is a class of gamma/short and alpha/batch; other names honored
log=$dtmp/msd2.log
write_conf "$dtmp/map.conf" "partition_requests = map" \
    "partition_map debug = gamma/short alpha/batch"
out=$("$msd" -t -f "$dtmp/map.conf" 2>&1); rc=$?
tap_ok "$rc" "a map configuration passes -t ($out)"
start_daemon "$dtmp/map.conf" "$log"
daemon_up "$log"
wait_for 30 grep -q 'leading: this instance now schedules' "$log"
daemon_answers "$u" "$d" job.sh
out=$(msb "$u" "$d" --test-only job.sh 2>&1)
tap_ok "$(if [ "$(cands "$out")" = gamma/short ] && has "$out" "--partition=short (map): gamma/short"; then echo 0; else echo 1; fi)" \
    "an unmapped name is honored: short is gamma/short only ($(cands "$out"); $(printf '%s' "$out" | head -1))"
out=$(msb "$u" "$d" --test-only -p debug job.sh 2>&1)
tap_ok "$(if [ "$(cands "$out")" = "alpha/batch gamma/short" ] && has "$out" "--partition=debug (map): alpha/batch gamma/short"; then echo 0; else echo 1; fi)" \
    "a mapped name is its class: debug is alpha/batch and gamma/short ($(cands "$out"))"
out=$(msb "$u" "$d" --test-only -p compute,long job.sh 2>&1)
tap_ok "$(ok_if [ "$(cands "$out")" = "beta/compute gamma/long" ])" \
    "several names: compute,long ($(cands "$out"))"
out=$(msb "$u" "$d" --test-only -p nosuch job.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "no cluster has a partition nosuch"; then echo 0; else echo 1; fi)" \
    "a name no cluster has is refused naming it ($out)"
out=$(msb "$u" "$d" --test-only -p short -t 60 job.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "gamma/short: MaxTime 30 min < 60 min asked" && ! has "$out" "alpha"; then echo 0; else echo 1; fi)" \
    "short with 60 minutes: refused with the reason of the partition asked ($out)"
o=$(msb "$u" "$d" -p compute job.sh 2>&1); id=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
done_state () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 90 done_state
row=$(q "SELECT cluster || '/' || partition || ':' || state FROM jobs WHERE id = ${id:-0}")
tap_ok "$(ok_if [ "$row" = "beta/compute:completed" ])" "a job with --partition=compute runs on beta/compute ($row)"
# the limit scaled for a slower partition stays within its MaxTime
o=$(msb "$u" "$d" -p short -t 28 job.sh 2>&1); id2=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
done2 () { [ "$(q "SELECT state FROM jobs WHERE id = ${id2:-0}")" = completed ]; }
wait_for 90 done2
row=$(q "SELECT cluster || '/' || partition || ':' || state || ':' || time_limit_min FROM jobs WHERE id = ${id2:-0}")
lim=${row##*:}
tap_ok "$(if [ "${row%:*}" = "gamma/short:completed" ] && [ "${lim:-99}" -ge 28 ] && [ "${lim:-99}" -le 30 ]; then echo 0; else echo 1; fi)" \
    "a 28-minute job on gamma/short runs with a limit within MaxTime 30 ($row)"
exit $tap_failed
