#!/bin/sh
# Power over time without a budget: metaschedd with no power budget in
# force shows each cluster's and the site's predicted power in /metrics
# (no budget gauge), writes power_history rows (budget NULL, the
# predicted power) for every cluster and the site, and `metasched report
# --power` prints them. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
command -v curl >/dev/null || tap_skip_all "curl not installed"
command -v python3 >/dev/null || tap_skip_all "python3 not installed"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 3

log=$dtmp/msd.log
metric () { # metric NAME CLUSTER
    curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics |
        sed -n "s/^$1{cluster=\"$2\"} //p"
}
positive () { awk -v v="${1:-0}" 'BEGIN { exit !(v + 0 > 0) }'; }

daemon_lead
# no budget: neither in metaschedd.conf nor live (a test before may have
# left one in the live settings)
cfg set power_budget=none >/dev/null 2>&1
nobudget () {
    m=$(curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics)
    case $m in *metaschedd_power_budget_watts\{*) return 1 ;; esac
    positive "$(metric metaschedd_power_predicted_watts site)"
}

# 1: /metrics: the predicted power without a budget
wait_for 120 nobudget
tap_ok $? "/metrics without a budget: predicted $(metric metaschedd_power_predicted_watts site) W on the site, no budget gauge"
# this test's rows only: those written from here on
since=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# 2: power_history: a row of every cluster and of the site, budget NULL
# (written once a minute)
nscopes=$(( $(echo $MS_CLUSTERS | wc -w) + 1 ))
scopes () { q "SELECT count (DISTINCT scope) FROM power_history WHERE at >= '$since' AND budget_w IS NULL AND predicted_w > 0"; }
hist () { [ "$(scopes)" -ge "$nscopes" ]; }
wait_for 200 hist
tap_ok $? "power_history without a budget: $(scopes) of $nscopes scopes ($MS_CLUSTERS, site) with predicted power and budget NULL"

# 3: report --power prints them: every cluster and the site, no budget
until=$(date -u -d '+1 min' +%Y-%m-%dT%H:%M:%SZ)
"$metasched" report -d "$MS_PG_REPORT_CONNINFO" --power --since "$since" --until "$until" --json >"$dtmp/p.json" 2>"$dtmp/p.err"; rc=$?
python3 - "$dtmp/p.json" $MS_CLUSTERS <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["power"]
want = set(sys.argv[2:]) | {"site"}
seen = {r["scope"] for r in rows if r["predicted_w_mean"] > 0}
ok = want <= seen and all(r["budget_w_max"] is None for r in rows)
sys.exit(0 if ok else 1)
PY
tap_ok $? "report --power --json: every cluster and the site, predicted power, no budget (rc $rc $(cat "$dtmp/p.err"))"
exit $tap_failed
