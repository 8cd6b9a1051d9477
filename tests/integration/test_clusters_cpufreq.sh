#!/bin/sh
# A script's -M/--clusters and --cpu-freq on the test bed, under the site's
# settings (metaschedd.conf cluster_requests, cpu_freq_requests) and
# --priority by Slurm's operator rule:
#  - honor (the default): --clusters keeps the job to the named clusters'
#    partitions and metasched still chooses among them and their
#    frequencies; a submitted job lands on the cluster named; a cluster the
#    site does not have is refused naming it;
#  - --cpu-freq pins each candidate's frequency to the one it names on that
#    partition (Slurm's low, highm1, kHz rounded up; _cpu_freq_freqspec_num)
#    and metasched still chooses the cluster: the job's cluster job asks
#    Slurm for that frequency (scontrol's CPU_max_freq);
#  - refuse refuses them naming the setting; ignore takes the job and says
#    the frequency was ignored; map turns a cluster_map name into its class;
#  - a user's --priority is refused with slurmctld's reason; bad settings
#    are named by metaschedd -t.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 20

u=$MS_TEST_USER
d=$(job_dir "$u")
cat > "$d/job.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
echo "on $SLURM_CLUSTER_NAME"
EOS
cat > "$d/beta.sh" <<'EOS'
#!/bin/sh
#SBATCH -M beta
#SBATCH -t 5
echo "on $SLURM_CLUSTER_NAME"
EOS
cat > "$d/gammalow.sh" <<'EOS'
#!/bin/sh
#SBATCH --clusters=gamma
#SBATCH --cpu-freq=Low
#SBATCH -t 5
echo "on $SLURM_CLUSTER_NAME"
EOS
chmod 755 "$d"/*.sh
has () { printf '%s\n' "$1" | grep -qF -- "$2"; }
# the candidates of a --test-only answer: "cluster/partition@kHz", sorted
cands () {
    printf '%s\n' "$1" | sed -n '/^  CLUSTER/,/^excluded:/p' |
        awk 'NR > 1 && $1 != "excluded:" { if ($1 == "*") { c = $2; p = $3; f = $4 } else { c = $1; p = $2; f = $3 }
             printf "%s/%s@%d\n", c, p, f * 1000000 + 0.5 }' | sort -u
}
clusters_of () { cands "$1" | sed 's|/.*||' | sort -u | paste -sd' '; }
freqs_of () { cands "$1" | sed 's|.*@||' | sort -u | paste -sd' '; }
# partition/kHz pairs of the candidates
pairs_of () { cands "$1" | sed 's|^[^/]*/||' | sort -u | paste -sd' '; }

bad () { # bad EXPECT LINES...: metaschedd -t refuses them, naming EXPECT
    e=$1; shift
    write_conf "$dtmp/bad.conf" "$@"
    out=$("$msd" -t -f "$dtmp/bad.conf" 2>&1); rc=$?
    [ $rc != 0 ] && has "$out" "$e"
}
tap_ok "$(ok_if bad "cluster_requests: 'maybe' is not one of refuse, honor, map" "cluster_requests = maybe")" \
    "cluster_requests: a bad value is named"
tap_ok "$(ok_if bad "cpu_freq_requests: 'sometimes' is not one of honor, ignore, refuse" "cpu_freq_requests = sometimes")" \
    "cpu_freq_requests: a bad value is named"
tap_ok "$(ok_if bad "cluster_map old: delta is no cluster of" "cluster_requests = map" "cluster_map old = beta delta")" \
    "cluster_map: a cluster that does not exist is named"

# ---- the defaults: honor both ----
log=$dtmp/msd.log
write_conf "$dtmp/honor.conf"
start_daemon "$dtmp/honor.conf" "$log"
daemon_up "$log"
wait_for 30 grep -q 'leading: this instance now schedules' "$log"
daemon_answers "$u" "$d" job.sh
free=$(msb "$u" "$d" --test-only job.sh 2>&1)
out=$(msb "$u" "$d" --test-only beta.sh 2>&1)
tap_ok "$(if [ "$(clusters_of "$out")" = beta ] && has "$out" "--clusters=beta (honor): beta" && [ "$(freqs_of "$out" | wc -w)" -gt 1 ]; then echo 0; else echo 1; fi)" \
    "-M beta: the candidates are beta's, at every frequency metasched weighs ($(clusters_of "$out"); $(freqs_of "$out" | wc -w) frequencies; free: $(clusters_of "$free"))"
out=$(msb "$u" "$d" --test-only -M alpha,gamma job.sh 2>&1)
tap_ok "$(ok_if [ "$(clusters_of "$out")" = "alpha gamma" ])" \
    "--clusters=alpha,gamma: alpha's and gamma's partitions ($(clusters_of "$out"))"
out=$(msb "$u" "$d" --test-only -M nosuch job.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "--clusters=nosuch: this site has no cluster nosuch"; then echo 0; else echo 1; fi)" \
    "a cluster the site does not have is refused naming it ($out)"
# --cpu-freq: the frequency Slurm's names stand for on each partition
# (at its lowest clock, gamma/short is not offered: the job's 5 minutes,
# lengthened by the slowdown there and the wide interval of an app the
# predictor does not know, pass short's MaxTime of 30 minutes;
# doc/daemon.md, "One engine: time limits")
out=$(msb "$u" "$d" --test-only --cpu-freq=low job.sh 2>&1)
tap_ok "$(ok_if [ "$(pairs_of "$out")" = "batch@1200000 compute@1200000 long@1000000" ])" \
    "--cpu-freq=low: each partition's lowest, on every cluster ($(pairs_of "$out"))"
out=$(msb "$u" "$d" --test-only --cpu-freq=HighM1 job.sh 2>&1)
tap_ok "$(ok_if [ "$(pairs_of "$out")" = "batch@2600000 compute@3000000 long@2300000 short@2300000" ])" \
    "--cpu-freq=HighM1: the one below each partition's highest ($(pairs_of "$out"))"
out=$(msb "$u" "$d" --test-only --cpu-freq=2450000 job.sh 2>&1)
tap_ok "$(ok_if [ "$(pairs_of "$out")" = "batch@2500000 compute@2500000 long@2400000 short@2400000" ])" \
    "--cpu-freq=2450000: the next listed frequency up, the highest where none is ($(pairs_of "$out"))"
out=$(msb "$u" "$d" --test-only --cpu-freq=1200000-1400000:OnDemand -M beta job.sh 2>&1)
tap_ok "$(ok_if [ "$(pairs_of "$out")" = "compute@1200000 compute@1300000 compute@1400000" ])" \
    "a range with a governor: the frequencies within it, metasched choosing ($(pairs_of "$out"))"
# submitted: lands on the cluster named, at the frequency pinned
o=$(msb "$u" "$d" beta.sh 2>&1); id=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
o2=$(msb "$u" "$d" gammalow.sh 2>&1); id2=$(printf '%s' "$o2" | grep -o '[0-9][0-9]*$')
done_state () { [ "$(q "SELECT state FROM jobs WHERE id = ${1:-0}")" = completed ]; }
wait_for 90 done_state "$id"
wait_for 60 done_state "$id2"
row=$(q "SELECT cluster || ':' || state FROM jobs WHERE id = ${id:-0}")
tap_ok "$(ok_if [ "$row" = "beta:completed" ])" "a script with -M beta runs on beta ($o: $row)"
row=$(q "SELECT cluster || '|' || freq_khz || '|' || cluster_job_id || '|' || state FROM jobs WHERE id = ${id2:-0}")
IFS='|' read -r cl fr cj st <<EOR
$row
EOR
sf=$(on_cluster "${cl:-gamma}" scontrol show job "${cj:-0}" 2>/dev/null | grep -o 'CPU_max_freq=[0-9]*')
tap_ok "$(if [ "$cl" = gamma ] && [ "$fr" = 1000000 ] && [ "$sf" = "CPU_max_freq=1000000" ] && [ "$st" = completed ]; then echo 0; else echo 1; fi)" \
    "--clusters=gamma --cpu-freq=Low: on gamma, Slurm asked for 1000000 kHz ($o2: $row; $sf)"
# --priority: an operator's; a user's is refused as slurmctld refuses it
out=$(msb "$u" "$d" --priority=100 job.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "--priority=100: Access/permission denied"; then echo 0; else echo 1; fi)" \
    "a user's --priority is refused with Slurm's reason ($out)"
# an operator's (root is this daemon's admin) is the job's priority in
# Slurm, set at the next listing while it waits (beta/compute kept busy)
dr=$(job_dir root)
cp "$d/job.sh" "$dr/job.sh"
block_partition beta compute msd-prio-block
o=$(msb root "$dr" --priority=4242 -M beta job.sh 2>&1); idp=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
cjp () { q "SELECT cluster_job_id FROM jobs WHERE id = ${idp:-0} AND cluster_job_id IS NOT NULL"; }
prio_is () { [ "$(on_cluster beta squeue -h -j "$(cjp)" -o %Q 2>/dev/null)" = 4242 ]; }
wait_for 60 prio_is; rc=$?
tap_ok $rc "an admin's --priority=4242 is the beta job's priority ($o; job $(cjp): $(on_cluster beta squeue -h -j "$(cjp)" -o '%Q %T' 2>&1))"
[ -n "$(cjp)" ] && on_cluster beta scancel "$(cjp)" 2>/dev/null
on_cluster beta scancel -n msd-prio-block 2>/dev/null
kill "$daemon_pid"; wait "$daemon_pid" 2>/dev/null

# ---- refuse ----
log=$dtmp/msd2.log
write_conf "$dtmp/refuse.conf" "cluster_requests = refuse" "cpu_freq_requests = refuse"
start_daemon "$dtmp/refuse.conf" "$log"
daemon_up "$log"
wait_for 30 grep -q 'leading: this instance now schedules' "$log"
daemon_answers "$u" "$d" job.sh
out=$(msb "$u" "$d" beta.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "--clusters=beta: metasched chooses the cluster; this site does not take" && has "$out" "cluster_requests = refuse"; then echo 0; else echo 1; fi)" \
    "refuse: -M is refused naming the setting ($out)"
out=$(msb "$u" "$d" --test-only --cpu-freq=high job.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "cpu_freq_requests = refuse"; then echo 0; else echo 1; fi)" \
    "refuse: --cpu-freq is refused naming the setting ($out)"
kill "$daemon_pid"; wait "$daemon_pid" 2>/dev/null

# ---- ignore, map ----
log=$dtmp/msd3.log
write_conf "$dtmp/map.conf" "cluster_requests = map" "cluster_map old = beta gamma" \
    "cpu_freq_requests = ignore"
start_daemon "$dtmp/map.conf" "$log"
daemon_up "$log"
wait_for 30 grep -q 'leading: this instance now schedules' "$log"
daemon_answers "$u" "$d" job.sh
out=$(msb "$u" "$d" --test-only -M old job.sh 2>&1)
tap_ok "$(if [ "$(clusters_of "$out")" = "beta gamma" ] && has "$out" "--clusters=old (map): beta gamma"; then echo 0; else echo 1; fi)" \
    "map: a cluster_map name is its class ($(clusters_of "$out"))"
out=$(msb "$u" "$d" --test-only -M alpha job.sh 2>&1)
tap_ok "$(ok_if [ "$(clusters_of "$out")" = alpha ])" \
    "map: other names are honored ($(clusters_of "$out"))"
out=$(msb "$u" "$d" --test-only --cpu-freq=low job.sh 2>&1)
tap_ok "$(if has "$out" "note: --cpu-freq=low: ignored" && [ "$(freqs_of "$out" | wc -w)" -gt 2 ]; then echo 0; else echo 1; fi)" \
    "ignore: --cpu-freq is set aside with a note; metasched weighs every frequency ($(freqs_of "$out" | wc -w))"
o=$(msb "$u" "$d" --parsable --cpu-freq=low job.sh 2>"$dtmp/err"); rc=$?
tap_ok "$(if [ $rc = 0 ] && printf '%s' "$o" | grep -qx '[0-9][0-9]*' && grep -q "note: --cpu-freq=low: ignored" "$dtmp/err"; then echo 0; else echo 1; fi)" \
    "ignore: a submission is taken, the note on standard error (stdout: $o; $(cat "$dtmp/err"))"
exit $tap_failed
