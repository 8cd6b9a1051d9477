#!/bin/sh
# Where a job may run, on the test bed (metasched/core/placement.h): the
# user without an association on beta (slurmdbd, enforced) never gets a job
# there; a job over its QOS's MaxWall does not go there; --mem over a
# partition's RealMemory never goes there; a --constraint on a feature only
# beta's nodes have goes there; --nodelist pins the cluster with those
# nodes, --exclude leaving too few keeps a job off; a working directory that a cluster does not
# mount (clusters.conf filesystems) keeps the job off that cluster; a job
# that may run nowhere is refused at submission with every reason; msbatch
# --test-only lists each excluded place with its reason; what ran on beta
# reaches `metasched collect ingest`. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ "${MS_BETA_ACCOUNTING:-none}" = slurmdbd ] \
    || tap_skip_all "beta runs no accounting here (a Slurm prefix; doc/testbed.md)"
[ -n "${MS_TEST_USER3:-}" ] && id "$MS_TEST_USER3" >/dev/null 2>&1 \
    || tap_skip_all "no user without an association (start the test bed again)"
# the jobs' directories: under /var/tmp, which every cluster mounts here;
# /tmp (daemon_lib's) is the one gamma does not
vt=/var/tmp/ms-placement-$$
cleanup () { daemon_cleanup; rm -rf "$vt"; }
trap cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 23

# the test bed's clusters, gamma mounting /home and /var/tmp only (the
# jobs' directories are under /tmp)
conf=$dtmp/clusters.conf
awk '{ print } /^\[cluster gamma\]/ { print "filesystems = /home /var/tmp" }' \
    "$MS_CLUSTERS_CONF" > "$conf"
log=$dtmp/msd.log
DAEMON_CLUSTERS_CONF=$conf write_conf "$dtmp/msd.conf"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
tap_ok "$(ok_if wait_for 30 grep -q 'cluster beta: accounting (slurmdbd): associations and QOS are checked' "$log")" \
    "the daemon reads beta's associations and QOS"

u1=$MS_TEST_USER u2=$MS_TEST_USER2 u3=$MS_TEST_USER3
vdir () { mkdir -p "$vt/$1" && chown "$1" "$vt/$1" && chmod 755 "$vt" && printf '%s' "$vt/$1"; }
d1=$(vdir "$u1") d2=$(vdir "$u2") d3=$(vdir "$u3") t1=$(job_dir "$u1")
for d in "$d1" "$d2" "$d3" "$t1"; do
cat > "$d/job.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
#SBATCH -J placement
echo "on $SLURM_CLUSTER_NAME"
EOS
chmod 755 "$d/job.sh"
done
daemon_answers "$u1" "$d1" job.sh
has () { printf '%s\n' "$1" | grep -qF -- "$2"; }
cands () { printf '%s\n' "$1" | sed -n '/^  CLUSTER/,/^excluded:/p' | awk 'NR > 1 && $1 != "excluded:" { print ($1 == "*" ? $2 : $1) }' | sort -u | paste -sd' '; }

# a user without any association on beta
out=$(msb "$u3" "$d3" --test-only job.sh 2>&1)
tap_ok "$(ok_if has "$out" "beta: no association for user $u3")" \
    "--test-only names beta with its reason for $u3 ($(printf '%s' "$out" | grep beta | head -2 | tr '\n' ' '))"
tap_ok "$(if [ "$(cands "$out")" = "alpha gamma" ] && ! has "$out" "* beta"; then echo 0; else echo 1; fi)" \
    "$u3's candidates are alpha's and gamma's only ($(cands "$out"))"
ids=
for i in 1 2 3; do
    o=$(msb "$u3" "$d3" job.sh 2>&1); ids="$ids $(printf '%s' "$o" | grep -o '[0-9][0-9]*$')"
done
settled () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($(echo $ids | tr ' ' ,)) AND state IN ('completed', 'failed', 'cancelled')")" = 3 ]; }
wait_for 120 settled
row=$(q "SELECT string_agg (DISTINCT coalesce (cluster, '-') || ':' || state, ',') FROM jobs WHERE id IN ($(echo $ids | tr ' ' ,))")
nb=$(on_cluster beta sacct -n -X -a -u "$u3" -S now-1hour -o jobid 2>/dev/null | wc -l)
tap_ok "$(if [ "$nb" = 0 ] && ! has "$row" beta && has "$row" completed; then echo 0; else echo 1; fi)" \
    "$u3's jobs run, none on beta, and beta's accounting never saw one ($row; beta: $nb)"

# an account the user has no association for
out=$(msb "$u2" "$d2" --test-only -A physics job.sh 2>&1)
tap_ok "$(ok_if has "$out" "beta: no association for user $u2 account physics")" \
    "$u2 with account physics: beta excluded ($(printf '%s' "$out" | grep beta | head -1))"
# a QOS limit: short allows 30 minutes
out=$(msb "$u1" "$d1" --test-only --qos=short -t 60 job.sh 2>&1)
tap_ok "$(ok_if has "$out" "beta: QOS short MaxWall 30 min < 60 min asked")" \
    "QOS short with 60 minutes: beta excluded by the QOS's MaxWall"
o=$(msb "$u1" "$d1" --qos=short -t 60 job.sh 2>&1); qid=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
out=$(msb "$u1" "$d1" --test-only --qos=short -t 20 job.sh 2>&1)
tap_ok "$(ok_if has "$(cands "$out")" beta)" "QOS short with 20 minutes: beta is a candidate"
# a QOS the association does not allow
out=$(msb "$u2" "$d2" --test-only --qos=debug job.sh 2>&1)
tap_ok "$(ok_if has "$out" "beta: QOS debug not allowed for user $u2 account chem")" \
    "$u2 with QOS debug: beta excluded"

# memory: gamma's nodes have 2000 MB
out=$(msb "$u1" "$d1" --test-only --mem=3G job.sh 2>&1)
tap_ok "$(ok_if has "$out" "gamma/short: RealMemory 2000 MB < 3072 MB asked per node")" \
    "--mem=3G: gamma's partitions excluded by their RealMemory"
o=$(msb "$u1" "$d1" --mem=3G job.sh 2>&1); mid=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')

# a feature only beta's nodes have
out=$(msb "$u1" "$d1" --test-only --constraint='clx6254&ib' job.sh 2>&1)
tap_ok "$(ok_if [ "$(cands "$out")" = beta ])" \
    "--constraint=clx6254&ib: beta only ($(cands "$out"); $(printf '%s' "$out" | grep "alpha/batch" | head -1))"
o=$(msb "$u1" "$d1" --constraint='clx6254&ib' job.sh 2>&1); cid=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
o=$(msb "$u1" "$d1" --constraint=clx6254 --qos=short -t 28 job.sh 2>&1); wid=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
out=$(msb "$u1" "$d1" --test-only --constraint='opa|bigmem' job.sh 2>&1)
tap_ok "$(ok_if [ "$(cands "$out")" = "beta gamma" ])" "--constraint=opa|bigmem: beta and gamma ($(cands "$out"))"

# nodes named: --nodelist pins the cluster that has them, --exclude leaves
# too few there
out=$(msb "$u1" "$d1" --test-only -w b2 job.sh 2>&1)
tap_ok "$(if [ "$(cands "$out")" = beta ] && has "$out" "alpha/batch: node b2 (--nodelist) is not one of a[1-4]"; then echo 0; else echo 1; fi)" \
    "--nodelist=b2: beta only ($(cands "$out"))"
out=$(msb "$u1" "$d1" --test-only -N 2 -x 'a[1-3]' job.sh 2>&1)
tap_ok "$(if has "$out" "alpha/batch: 1 node left of a[1-4] after --exclude=a[1-3] < 2 asked" && [ "$(cands "$out")" = "beta gamma" ]; then echo 0; else echo 1; fi)" \
    "--exclude=a[1-3] with 2 nodes: alpha excluded ($(cands "$out"))"

# filesystems: gamma mounts /home and /var/tmp, the job's directory is /tmp/...
out=$(msb "$u1" "$t1" --test-only job.sh 2>&1)
tap_ok "$(if has "$out" "gamma: $t1 not mounted (working directory)" && [ "$(cands "$out")" = "alpha beta" ]; then echo 0; else echo 1; fi)" \
    "a working directory gamma does not mount: gamma excluded ($(cands "$out"))"
out=$(msb "$u1" "$d1" --test-only -o /tmp/x-%j.out job.sh 2>&1)
tap_ok "$(ok_if has "$out" "gamma: /tmp/x-%j.out not mounted (output)")" \
    "an output path gamma does not mount: gamma excluded"
o=$(msb "$u1" "$t1" job.sh 2>&1); fid=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')

# nowhere: refused at submission with every reason
out=$(msb "$u3" "$d3" --constraint=clx6254 job.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "no partition may run this job" && has "$out" "beta: no association for user $u3" && has "$out" "alpha/batch: 0 nodes with features 'clx6254' < 1 asked"; then echo 0; else echo 1; fi)" \
    "a job that may run nowhere is refused with every reason (rc $rc: $out)"
nq=$(q "SELECT count(*) FROM jobs WHERE owner_name = '$u3' AND options->>'constraint' = 'clx6254'")
tap_ok "$(ok_if [ "$nq" = 0 ])" "the refused job is not in the queue ($nq rows)"

# the everyday script of a site (issue: an account, 4G, mail, an array,
# one hour): beta only for msuser, nowhere for msuser2 (no physics there)
cat > "$d1/real.sh" <<'EOS'
#!/bin/bash
#SBATCH --job-name=sim
#SBATCH --account=physics
#SBATCH --mem=4G
#SBATCH --mail-type=END
#SBATCH --array=1-10
#SBATCH --time=01:00:00
srun ./a.out
EOS
chmod 755 "$d1/real.sh"
out=$(msb "$u1" "$d1" --test-only real.sh 2>&1)
tap_ok "$(if [ "$(cands "$out")" = beta ] && has "$out" "alpha/batch: RealMemory 4000 MB < 4096 MB asked per node" && has "$out" "gamma/short: MaxTime 30 min < 60 min asked"; then echo 0; else echo 1; fi)" \
    "the everyday script goes to beta only, the others excluded with their reasons ($(cands "$out"))"
out=$(msb "$u2" "$d1" --test-only real.sh 2>&1); rc=$?
tap_ok "$(if [ $rc != 0 ] && has "$out" "beta: no association for user $u2 account physics" && has "$out" "gamma/long: RealMemory 2000 MB < 4096 MB asked per node"; then echo 0; else echo 1; fi)" \
    "the same script as $u2 may run nowhere: refused with every reason ($out)"

ran () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($qid, $mid, $cid, $fid) AND state = 'completed'")" = 4 ]; }
wait_for 120 ran
where () { q "SELECT coalesce (cluster, '-') FROM jobs WHERE id = $1"; }
tap_ok "$(if [ "$(where "$qid")" != beta ] && [ "$(where "$mid")" != gamma ] && [ "$(where "$fid")" != gamma ]; then echo 0; else echo 1; fi)" \
    "the jobs ran where they could: QOS short 60 min on $(where "$qid"), --mem=3G on $(where "$mid"), /tmp on $(where "$fid") ($(q "SELECT string_agg (id || ':' || state, ' ') FROM jobs WHERE id IN ($qid, $mid, $cid, $fid)"))"
tap_ok "$(ok_if [ "$(where "$cid")" = beta ])" "the --constraint job ran on beta ($(where "$cid"))"
wdone () { [ "$(q "SELECT state FROM jobs WHERE id = ${wid:-0}")" = completed ]; }
wait_for 90 wdone
row=$(q "SELECT cluster || ':' || state || ':' || time_limit_min FROM jobs WHERE id = ${wid:-0}")
lim=${row##*:}
tap_ok "$(if [ "${row%:*}" = beta:completed ] && [ "${lim:-99}" -ge 28 ] && [ "${lim:-99}" -le 30 ]; then echo 0; else echo 1; fi)" \
    "QOS short, 28 minutes, on beta: its limit stays within the QOS's MaxWall 30 and it runs ($row)"

# accounting records of beta reach metasched's ingest
bj=$(q "SELECT cluster_job_id FROM jobs WHERE id = $cid")
ing=$(MS_DB_CONNINFO=$MS_PG_CONNINFO "$MS_BUILDDIR/metasched/metasched" collect -d "$MS_PG_CONNINFO" ingest "$MS_CLUSTERS_CONF" 2>&1)
acc=$(q "SELECT state || ':' || coalesce (user_name, '') || ':' || coalesce (consumed_energy_j::text, 'none') FROM job_accounting WHERE cluster = 'beta' AND slurm_job_id = ${bj:-0}")
sa=$(on_cluster beta sacct -n -X -j "${bj:-0}" -o state,consumedenergyraw -p 2>/dev/null)
# beta has no energy plugin: slurmdbd holds no ConsumedEnergy, and ingest
# leaves the column empty rather than writing a 0 it never measured
tap_ok "$(if [ "$acc" = "COMPLETED:$u1:none" ] && [ "$sa" = "COMPLETED||" ]; then echo 0; else echo 1; fi)" \
    "beta's job $bj is in slurmdbd ($sa) and ingested into job_accounting, ConsumedEnergy as slurmdbd has it ($acc; $ing)"
exit $tap_failed
