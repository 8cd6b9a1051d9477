#!/bin/sh
# Measured power and power over time on the test bed: a job dispatched by
# metaschedd runs under the Prolog's RAPL sampler (sample_s = 1 in a
# collectors' configuration of the test's own) while the test advances its
# node's test powercap counters; the sampler reports the job's power
# (job_power), /metrics shows metaschedd_power_measured_watts for the
# job's cluster and the site, metaschedd writes the cluster's budget,
# predicted and measured power into power_history, and `metasched report
# --power` prints them (text and JSON, one cluster); a role that is not
# the admins' reading role (the collectors') is refused, and bad --step
# values are refused naming the option; once the job's run is stored, the
# daemon reads the correction of its app's predicted power on its
# partition (measured over predicted, clamped). TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (advances the root-owned test powercap trees)"
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"

cenv=$MS_TESTBED_RUN/collect.env
pm_cleanup () {
    [ -n "${adv_pid:-}" ] && kill "$adv_pid" 2>/dev/null
    if [ -e "$dtmp/collect.env.saved" ]; then
        mv "$dtmp/collect.env.saved" "$cenv"
    else
        rm -f "$cenv"
    fi
    cfg set power_budget=none >/dev/null 2>&1
    daemon_cleanup
}
trap pm_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 10

log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")
metric () { # metric NAME SCOPE
    curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics |
        sed -n "s/^$1{cluster=\"$2\"} //p"
}
positive () { awk -v v="${1:-x}" 'BEGIN { exit !(v + 0 > 0) }'; }

# the Prolog's sampler reports every second: a configuration of the
# test's own, named to the hooks through run/collect.env
[ -e "$cenv" ] && cp "$cenv" "$dtmp/collect.env.saved"
{ cat "$MS_TESTBED_RUN/collect.conf"; echo "sample_s = 1"; } > "$dtmp/collect.conf"
chmod 0755 "$dtmp"
chmod 0644 "$dtmp/collect.conf"
{
    [ -e "$dtmp/collect.env.saved" ] && cat "$dtmp/collect.env.saved"
    echo "MS_COLLECT_CONF_FILE=$dtmp/collect.conf"
} > "$cenv"

daemon_lead
# a budget far above anything: the tracker runs and the history is kept
cfg set "power_budget=site 100 MW" >/dev/null 2>&1
# this test reads its own rows only (from $since on): power_history is the
# test bed's, and a test before this one may have written rows under other
# budgets, or with measured power, within the hour
since=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# 1: a job that runs until the test lets it go, saying where it runs
cat > "$d/pm.sh" <<EOS
#!/bin/sh
#SBATCH -t 10
#SBATCH -J msd-pm
echo "\$SLURM_CLUSTER_NAME \$SLURMD_NODENAME \$SLURM_JOB_ID" > "$d/pm.where"
n=0
while [ ! -e "$d/pm.go" ] && [ \$n -lt 1500 ]; do sleep 0.2; n=\$((n + 1)); done
EOS
chmod 755 "$d/pm.sh"
# an app of this run alone: its one run is the correction's only one
app=pm-$(date +%s)-$$
out=$(msb "$u" "$d" --app "$app" pm.sh 2>&1); job=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
wait_for 120 test -s "$d/pm.where"
read -r cl node cjob < "$d/pm.where" 2>/dev/null
[ -n "$node" ]
tap_ok $? "job ${job:-none} runs on ${cl:-?}/${node:-?} (cluster job ${cjob:-?}): $out"

# the node draws: its package counter advances 20 J every 0.2 s
( while :; do powercap_add "$node" 20000000 2000000; sleep 0.2; done ) >/dev/null 2>&1 &
adv_pid=$!

# 2: the sampler reports the job's power
sampled () { positive "$(q "SELECT watts FROM job_power WHERE cluster = '$cl' AND slurm_job_id = ${cjob:-0}")"; }
wait_for 120 sampled
tap_ok $? "the sampler reports the job's power: $(q "SELECT node || ' ' || watts FROM job_power WHERE cluster = '$cl' AND slurm_job_id = ${cjob:-0}") W"

# 3: /metrics: the measured power of the job's cluster and of the site
measured () { positive "$(metric metaschedd_power_measured_watts "$cl")"; }
wait_for 120 measured
m=$(metric metaschedd_power_measured_watts "$cl"); ms=$(metric metaschedd_power_measured_watts site)
positive "$m" && positive "$ms"
tap_ok $? "/metrics: measured ${m:-none} W on $cl, ${ms:-none} W on the site"

# 4: power_history holds a row of the cluster with budget, predicted and
# measured power (written once a minute)
hist () { [ "$(q "SELECT count (*) FROM power_history WHERE at >= '$since' AND scope = '$cl' AND measured_w > 0 AND predicted_w > 0 AND budget_w IS NULL")" -gt 0 ] &&
    [ "$(q "SELECT count (*) FROM power_history WHERE at >= '$since' AND scope = 'site' AND budget_w = 1e8 AND measured_w > 0")" -gt 0 ]; }
wait_for 200 hist
tap_ok $? "power_history: $cl and the site with budget, predicted and measured power ($(q "SELECT count (*) FROM power_history WHERE at >= '$since' AND measured_w > 0") rows)"

touch "$d/pm.go"
kill "$adv_pid" 2>/dev/null; adv_pid=

# 5: the report, as text, one cluster. --until a minute ahead: the default
# end is now to the second, and the row check 4 saw may have been written
# within this very second
until=$(date -u -d '+1 min' +%Y-%m-%dT%H:%M:%SZ)
"$metasched" report -d "$MS_PG_REPORT_CONNINFO" --power --since "$since" --until "$until" --step 5m --cluster "$cl" >"$dtmp/p.txt" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "^$cl\$" "$dtmp/p.txt" && ! grep -q '^site$' "$dtmp/p.txt" &&
    grep -q 'predicted' "$dtmp/p.txt"
tap_ok $? "report --power --cluster $cl prints its rows (rc $rc): $(tr '\n' '|' < "$dtmp/p.txt" | cut -c1-400)"

# 6: the report as JSON: the site's budget, predicted and measured power
"$metasched" report -d "$MS_PG_REPORT_CONNINFO" --power --since "$since" --until "$until" --json >"$dtmp/p.json" 2>"$dtmp/p.err"; rc=$?
python3 - "$dtmp/p.json" "$cl" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
site = [r for r in doc["power"] if r["scope"] == "site"]
clr = [r for r in doc["power"] if r["scope"] == sys.argv[2]]
ok = (doc["step_s"] == 3600 and site and clr
      and any(r["budget_w_max"] == 1e8 for r in site)
      and any((r["measured_w_max"] or 0) > 0 for r in clr)
      and all(r["predicted_w_mean"] > 0 for r in clr)
      and all(r["predicted_above_budget_s"] == 0 for r in site))
sys.exit(0 if ok else 1)
PY
tap_ok $? "report --power --json: the site's budget and the cluster's predicted and measured power (rc $rc $(cat "$dtmp/p.err"))"

# 7: the collectors' role may not read the history
out=$("$metasched" report -d "$MS_PG_COLLECTOR_CONNINFO" --power --since "$since" 2>&1); rc=$?
[ $rc = 1 ] && case $out in *power_history*"permission denied"*|*"permission denied"*power_history*) true ;; *) false ;; esac
tap_ok $? "the collectors' role is refused (rc $rc): $out"

# 8: bad steps and options are refused naming the option
out=$("$metasched" report -d "$MS_PG_REPORT_CONNINFO" --power --step 0 2>&1); rc=$?
out2=$("$metasched" report -d "$MS_PG_REPORT_CONNINFO" --step 5m 2>&1); rc2=$?
[ $rc = 2 ] && [ $rc2 = 2 ] && case "$out $out2" in *"--step: '0'"*"--step goes with --power"*) true ;; *) false ;; esac
tap_ok $? "bad --step refused (rc $rc, $rc2): $out / $out2"

# 9: the job ends; its power no longer counts
gone () { [ -z "$(metric metaschedd_power_measured_watts "$cl")" ]; }
wait_for 120 gone
tap_ok $? "the job ended: no measured power on $cl ($(metric metaschedd_power_measured_watts "$cl"))"

# 10: the finished run corrects the predicted power of its app there
part=$(q "SELECT partition FROM jobs WHERE id = ${job:-0}")
has_run () { [ -n "$(q "SELECT 1 FROM job_runs WHERE cluster = '$cl' AND slurm_job_id = ${cjob:-0} AND pkg_energy_j > 0")" ]; }
corrected () { grep -q "power correction: $app on $cl/$part: predicted power times [0-9.]* (1 measured runs)" "$log"; }
wait_for 120 has_run && wait_for 150 corrected
tap_ok $? "the correction of $app on $cl/$part is read from its run: $(grep 'power correction' "$log" | tail -1)"
