#!/bin/sh
# The A/B baseline share on the test bed (doc/daemon.md "The A/B
# baseline"): with ab_share = 0.5 and ab_policy = home, 30 identical jobs
# of one user (same script, same name, submitted together; 4 of them name
# --partition=compute) fall in both groups; every baseline job is decided
# by the baseline (its decisions row says so) and runs on its home
# partition (the one it names, else the site's first: alpha/batch) at the
# nominal frequency, without re-routing; each job's group is the keyed
# draw of its meta job id alone, so nothing the user chooses picks it; a
# user may neither set ab_share nor see the group; `metasched report --ab`
# prints both groups of what the collectors measured. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v python3 >/dev/null || tap_skip_all "python3 not installed"
msqueue=$MS_BUILDDIR/metasched/msqueue

ab_cleanup () {
    cfg set ab_share=0 ab_policy=home >/dev/null 2>&1
    daemon_cleanup
}
trap ab_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 10

u=$MS_TEST_USER
log=$dtmp/msd.log
# a key of our own: the test recomputes each job's draw from it
DAEMON_TAG_KEY=$dtmp/tag.key
printf '%s' "$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$DAEMON_TAG_KEY"
chmod 600 "$DAEMON_TAG_KEY"
# users may name a partition (the baseline's home is then that one)
daemon_lead "partition_requests = honor"
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-ab\nsleep 1\n' >"$d/ab.sh"
chmod 755 "$d/ab.sh"
daemon_answers "$u" "$d" ab.sh

# 1. admins only
out=$(runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
    METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$metasched" config set ab_share=0.5 2>&1); rc=$?
tap_ok "$([ $rc != 0 ] && printf '%s' "$out" | grep -q 403 && echo 0 || echo 1)" \
    "a user may not set ab_share (rc $rc: $out)"
out=$(cfg set ab_share=0.5 ab_policy=home 2>&1); rc=$?
tap_ok "$([ $rc = 0 ] && [ "$(cfg_value ab_share)" = 0.5 ] && [ "$(cfg_value ab_policy)" = home ] && echo 0 || echo 1)" \
    "an admin sets ab_share=0.5 ab_policy=home live (rc $rc; shows $(cfg_value ab_share) $(cfg_value ab_policy))"
since=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# 2. 30 identical jobs, 4 of them naming a partition
ids=
i=0
while [ $i -lt 30 ]; do
    if [ $i -lt 4 ]; then o=$(msb "$u" "$d" -p compute ab.sh 2>&1); else o=$(msb "$u" "$d" ab.sh 2>&1); fi
    id=$(printf '%s' "$o" | grep -o '[0-9][0-9]*$')
    [ -n "$id" ] || echo "# refused: $o"
    ids="$ids${ids:+,}${id:-0}"
    i=$((i + 1))
done
named=$(printf '%s' "$ids" | cut -d, -f1-4)
grouped () { [ "$(q "SELECT count (*) FROM jobs WHERE id IN ($ids)")" = 30 ] && [ "$(q "SELECT count (*) FROM jobs WHERE id IN ($ids) AND ab_group IS NOT NULL")" = 30 ]; }
wait_for 300 grouped
nb=$(q "SELECT count (*) FROM jobs WHERE id IN ($ids) AND ab_group = 'baseline'")
nm=$(q "SELECT count (*) FROM jobs WHERE id IN ($ids) AND ab_group = 'metasched'")
tap_ok "$([ "${nb:-0}" -gt 0 ] && [ "${nm:-0}" -gt 0 ] && [ $((nb + nm)) = 30 ] && echo 0 || echo 1)" \
    "30 identical jobs ($ids) fall in both groups: $nb baseline, $nm metasched"

# 3. the group is the keyed draw of the id: nothing else decides it
q "SELECT id || ' ' || ab_group FROM jobs WHERE id IN ($ids)" >"$dtmp/groups"
python3 - "$DAEMON_TAG_KEY" "$dtmp/groups" <<'PY'
import hashlib, hmac, sys
key = open(sys.argv[1], "rb").read()
bad = []
for line in open(sys.argv[2]):
    jid, group = line.split()
    md = hmac.new(key, b"metasched ab 1\n" + jid.encode(), hashlib.sha256).digest()
    u = (int.from_bytes(md[:8], "big") >> 11) / 2.0 ** 53
    if (u < 0.5) != (group == "baseline"):
        bad.append(jid)
sys.exit(1 if bad else 0)
PY
tap_ok $? "each job's group is HMAC(site key, its id) < ab_share: not its name, script, user or submission time"

# 4. the decisions say so; baseline jobs go home at the nominal frequency
row=$(q "SELECT count (*) FROM decisions d JOIN jobs j ON j.id = d.job_id
         WHERE j.id IN ($ids) AND d.ab_group = j.ab_group
           AND (d.policy = 'ab_baseline:home') = (j.ab_group = 'baseline')
           AND d.policy LIKE CASE j.ab_group WHEN 'baseline' THEN 'ab_baseline:home' ELSE 'metasched%' END")
nd=$(q "SELECT count (*) FROM decisions WHERE job_id IN ($ids)")
tap_ok "$([ "$row" = "$nd" ] && [ "${nd:-0}" -ge 30 ] && echo 0 || echo 1)" \
    "every decisions row names the job's group and its policy (ab_baseline:home or metasched): $row of $nd"
home=$(q "SELECT count (*) FROM jobs j JOIN decisions d ON d.job_id = j.id
          WHERE j.id IN ($ids) AND j.ab_group = 'baseline'
            AND NOT ((j.id IN ($named) AND d.cluster = 'beta' AND d.partition = 'compute' AND d.freq_khz = 3100000)
                  OR (j.id NOT IN ($named) AND d.cluster = 'alpha' AND d.partition = 'batch' AND d.freq_khz = 2700000))")
tap_ok "$([ "$home" = 0 ] && echo 0 || echo 1)" \
    "every baseline decision is the home partition at its nominal frequency: beta/compute 3.1 GHz when named, else alpha/batch 2.7 GHz ($home not)"
ran () { [ "$(q "SELECT count (*) FROM jobs WHERE id IN ($ids) AND state IN ('completed', 'failed')")" = 30 ]; }
wait_for 400 ran
off=0 seen=0
for row in $(q "SELECT cluster || ':' || partition || ':' || cluster_job_id FROM jobs WHERE id IN ($ids) AND ab_group = 'baseline'"); do
    c=${row%%:*} rest=${row#*:}; p=${rest%%:*} cj=${rest#*:}
    info=$(on_cluster "$c" scontrol show job "$cj" 2>/dev/null | grep -oE '(Partition|CPU_max_freq)=[^ ,]*' | sort | tr '\n' ' ')
    [ -n "$info" ] || continue
    seen=$((seen + 1))
    case $c in alpha) f=2700000 ;; *) f=3100000 ;; esac
    case $info in "CPU_max_freq=$f Partition=$p ") ;; *) off=$((off + 1)); echo "# $row: $info" ;; esac
done
tap_ok "$([ "$off" = 0 ] && [ "$seen" -gt 0 ] && echo 0 || echo 1)" \
    "Slurm ran the baseline jobs where decided, at the nominal frequency ($seen seen on the clusters, $off elsewhere)"

# 5. the user sees no group
out=$(runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    "$msqueue" -t all 2>&1)
tap_ok "$(printf '%s' "$out" | grep -q msd-ab && ! printf '%s' "$out" | grep -qi 'baseline' && echo 0 || echo 1)" \
    "msqueue shows the user's jobs without their group"

# 6. the report prints both groups of the measured runs
# the rows an epilog could not send in its bound wait in the spool: a
# flush sends them, as the nodes' flush timer does
flush_spool () {
    ASAN_OPTIONS=detect_leaks=0 "$collect" --config "${MS_COLLECT_CONF_FILE:-$MS_TESTBED_RUN/collect.conf}" \
        --set "conninfo=$MS_PG_COLLECTOR_CONNINFO" flush >/dev/null 2>&1
}
measured () { flush_spool; [ "$(q "SELECT count (*) FROM jobs j JOIN job_run_totals t ON t.cluster = j.cluster AND t.slurm_job_id = j.cluster_job_id WHERE j.id IN ($ids)")" -ge 30 ]; }
wait_for 300 measured
"$metasched" report -d "$MS_PG_REPORT_CONNINFO" --ab --since "$since" --json >"$dtmp/ab.json" 2>"$dtmp/ab.err"; rc=$?
python3 - "$dtmp/ab.json" "$nb" "$nm" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b = sum(a["runtime_s"]["baseline"]["jobs"] for a in r["apps"])
m = sum(a["runtime_s"]["metasched"]["jobs"] for a in r["apps"])
sys.exit(0 if (b, m) == (int(sys.argv[2]), int(sys.argv[3])) else 1)
PY
tap_ok $? "report --ab counts the measured runs of both groups ($nb baseline, $nm metasched; rc $rc $(cat "$dtmp/ab.err"))"
"$metasched" report -d "$MS_PG_REPORT_CONNINFO" --ab --since "$since" >"$dtmp/ab.txt" 2>&1
# the groups' jobs summed over the apps' runtime tables: a run whose epilog
# could not ask Slurm for the job's name is stored under the app "unknown"
# and makes a table of its own
read -r tb tm <<EOF2
$(awk '/^ runtime \(s\)/ { r = 1; next } /^ [a-z]/ || /^app / { r = 0 }
    r && $1 == "baseline" { b += $2 } r && $1 == "metasched" { m += $2 }
    END { print b + 0, m + 0 }' "$dtmp/ab.txt")
EOF2
tap_ok "$([ "$tb" = "$nb" ] && [ "$tm" = "$nm" ] && echo 0 || echo 1)" \
    "the text report prints both groups ($tb baseline and $tm metasched jobs over $(grep -c '^app ' "$dtmp/ab.txt") app(s))"
sed 's/^/# /' "$dtmp/ab.txt"
exit $tap_failed
