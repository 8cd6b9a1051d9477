#!/bin/sh
# `metasched report` on the test bed's PostgreSQL: a scratch database (owned
# by ms_daemon like the real one) gets a known set of partitions, measured
# runs, meta jobs with predictions and one frequency model; the report, read
# as the report role, must give the figures computed by hand below. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
command -v psql >/dev/null || tap_skip_all "psql not installed (postgresql-client-15)"
tmp=$(mktemp -d)
. "${MS_SRCDIR:-.}/tests/integration/scratch_lib.sh"
trap scratch_cleanup EXIT
scratch_db ms_test_report_$$

tap_plan 21

# The data, as the daemon's role. Two partitions: east/batch (architecture
# x1, nominal 2.0 GHz, also 1.6 GHz) and west/compute (x2, nominal 2.4 GHz).
# The stored EAR pair x1 2.0 -> 1.6 GHz has A=0.6 (P(f) = 0.6 P(nom)) and
# D=1 (same CPI), so T(f) = T(nom) * 2.0/1.6 and the predicted
# E(nom)/E(f) = 1/(0.6 * 1.25) = 4/3 for any app with a signature on x1.
#
# measured jobs in January 2026 (energy = package + DRAM):
#   east 101 lu alice  nominal   20000 J   baseline 20000 (itself)
#   east 102 lu bob    1.6 GHz   12000 J   baseline 12000*4/3 = 16000, saved 4000
#   east 103 ep alice  1.6 GHz   10000 J   (2 nodes) ep never ran at nominal
#                                          on x1: no baseline, counts as itself
#   west 201 ep bob    nominal   30000 J   baseline 30000
# outside the period: east 104 (December 2025); without energy: west 202.
psql -qX -v ON_ERROR_STOP=1 "$MS_PG_CONNINFO dbname=$db" >"$tmp/log" 2>&1 <<'EOF' || { cat "$tmp/log"; }
INSERT INTO clusters (name) VALUES ('east'), ('west');
INSERT INTO partitions (cluster, name, architecture, nodes, cores_per_node,
                        freqs_khz, nominal_khz, idle_power_w)
VALUES ('east', 'batch', 'x1', 4, 32, '{1600000,2000000}', 2000000, 100),
       ('west', 'compute', 'x2', 4, 32, '{1800000,2400000}', 2400000, 100);
INSERT INTO models (kind, scope, version, coefficients, n)
VALUES ('ear_pair', 'x1:2000000:1600000', 1, '{0.6,0,0,1,0,0}', 10);
INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app, user_name,
                      nodes, freq_req_khz, start_time, end_time, runtime_s,
                      pkg_energy_j, dram_energy_j, cpi, tpi, exclusive,
                      source, collector_version)
VALUES
 ('east', 'batch', 101, 'e1', 'lu', 'alice', 1, NULL,
  '2026-01-10 10:00:00+00', '2026-01-10 10:01:40+00', 100, 18000, 2000, 1.0, 0.01, true, 'root-measured', 't'),
 ('east', 'batch', 102, 'e1', 'lu', 'bob', 1, 1600000,
  '2026-01-10 12:38:00+00', '2026-01-10 12:40:10+00', 130, 10000, 2000, 1.0, 0.01, true, 'root-measured', 't'),
 ('east', 'batch', 103, 'e1', 'ep', 'alice', 2, 1600000,
  '2026-01-11 09:00:00+00', '2026-01-11 09:01:40+00', 100, 5000, NULL, 2.0, 0.02, true, 'root-measured', 't'),
 ('east', 'batch', 103, 'e2', 'ep', 'alice', 2, 1600000,
  '2026-01-11 09:00:00+00', '2026-01-11 09:01:40+00', 100, 5000, NULL, NULL, NULL, true, 'root-measured', 't'),
 ('west', 'compute', 201, 'w1', 'ep', 'bob', 1, NULL,
  '2026-01-11 09:30:00+00', '2026-01-11 09:30:50+00', 50, 25000, 5000, 2.0, 0.02, true, 'root-measured', 't'),
 ('east', 'batch', 104, 'e1', 'lu', 'alice', 1, NULL,
  '2025-12-01 10:00:00+00', '2025-12-01 10:01:30+00', 90, 90000, 9999, 1.1, 0.01, true, 'root-measured', 't'),
 ('west', 'compute', 202, 'w1', 'ep', 'carol', 1, NULL,
  '2026-01-12 08:00:00+00', '2026-01-12 08:01:00+00', 60, NULL, NULL, NULL, NULL, true, 'root-measured', 't');
-- meta jobs with the predictions they were dispatched with:
--   101: time 110 (measured 100: +10%), energy 18000 (20000: -10%)
--   102: time 104 (130: -20%),           energy 15000 (12000: +25%)
--   201: time 60  (50: +20%),            no energy prediction
--   103: no prediction
INSERT INTO jobs (owner_uid, owner_gid, owner_name, script, state, cluster,
                  partition, cluster_job_id, predicted_time_s,
                  predicted_energy_j)
VALUES (1001, 1001, 'alice', '#!/bin/sh', 'completed', 'east', 'batch', 101, 110, 18000),
       (1002, 1002, 'bob', '#!/bin/sh', 'completed', 'east', 'batch', 102, 104, 15000),
       (1002, 1002, 'bob', '#!/bin/sh', 'completed', 'west', 'compute', 201, 60, NULL),
       (1001, 1001, 'alice', '#!/bin/sh', 'completed', 'east', 'batch', 103, NULL, NULL);
EOF
report_db="$MS_PG_REPORT_CONNINFO dbname=$db"
period="--since 2026-01-01 --until 2026-02-01"

# has FILE LINE: the exact line is in the file
has () { grep -qxF "$2" "$1"; }
ok_if () { if "$@"; then echo 0; else echo 1; fi; }

# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period --csv >"$tmp/csv" 2>"$tmp/err"; rc=$?
tap_ok "$([ $rc = 0 ] && echo 0 || echo 1)" "report --csv as the report role (rc $rc: $(cat "$tmp/err"))"
tap_ok "$(ok_if has "$tmp/csv" 'total,total,4,3,72000.000000,76000.000000,4000.000000,5.263158')" \
    "total: 4 measured jobs, 3 with a baseline, 72000 J used, 76000 J baseline, 4000 J saved"
r1=$(ok_if has "$tmp/csv" 'cluster,east,3,2,42000.000000,46000.000000,4000.000000,8.695652')
r2=$(ok_if has "$tmp/csv" 'cluster,west,1,1,30000.000000,30000.000000,0.000000,0.000000')
tap_ok "$([ "$r1$r2" = 00 ] && echo 0 || echo 1)" \
    "per cluster: east saves 4000 of 46000 J, west runs at nominal and saves nothing"
r1=$(ok_if has "$tmp/csv" 'user,alice,2,1,30000.000000,30000.000000,0.000000,0.000000')
r2=$(ok_if has "$tmp/csv" 'user,bob,2,2,42000.000000,46000.000000,4000.000000,8.695652')
tap_ok "$([ "$r1$r2" = 00 ] && echo 0 || echo 1)" "per user: alice (no saving, one job without baseline), bob saves 4000 J"
r1=$(ok_if has "$tmp/csv" 'app,ep,2,1,40000.000000,40000.000000,0.000000,0.000000')
r2=$(ok_if has "$tmp/csv" 'app,lu,2,2,32000.000000,36000.000000,4000.000000,11.111111')
tap_ok "$([ "$r1$r2" = 00 ] && echo 0 || echo 1)" "per app: lu saves 4000 of 36000 J, ep without a nominal signature saves nothing"
n=$(grep -c '^\(cluster\|user\|app\|total\),' "$tmp/csv")
tap_ok "$([ "$n" = 7 ] && echo 0 || echo 1)" "out-of-period and unmeasured jobs add no row (7 energy rows, saw $n)"

r1=$(ok_if has "$tmp/csv" 'day,jobs_time,mape_time_pct,bias_time_pct,jobs_energy,mape_energy_pct,bias_energy_pct')
r2=$(ok_if has "$tmp/csv" '2026-01-10T00:00:00Z,2,15.000000,-5.000000,2,17.500000,7.500000')
r3=$(ok_if has "$tmp/csv" '2026-01-11T00:00:00Z,1,20.000000,20.000000,0,,')
n=$(grep -c '^20' "$tmp/csv")
tap_ok "$([ "$r1$r2$r3" = 000 ] && [ "$n" = 2 ] && echo 0 || echo 1)" \
    "MAPE per day: 15% time and 17.5% energy on Jan 10, 20% time on Jan 11 ($r1$r2$r3, $n rows)"

# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period --by hour --csv >"$tmp/hour" 2>"$tmp/err"; rc=$?
r1=$(ok_if has "$tmp/hour" '2026-01-10T10:00:00Z,1,10.000000,10.000000,1,10.000000,-10.000000')
r2=$(ok_if has "$tmp/hour" '2026-01-10T12:00:00Z,1,20.000000,-20.000000,1,25.000000,25.000000')
r3=$(ok_if has "$tmp/hour" '2026-01-11T09:00:00Z,1,20.000000,20.000000,0,,')
tap_ok "$([ "$rc$r1$r2$r3" = 0000 ] && echo 0 || echo 1)" "MAPE per hour: 10%, 20% and 20% time error in three hours"

# shellcheck disable=SC2086
"$ms" report -d "$report_db" --since 2026-01-10T11:00 --until 2026-01-11 --csv >"$tmp/narrow" 2>"$tmp/err"; rc=$?
tap_ok "$([ $rc = 0 ] && has "$tmp/narrow" 'total,total,1,1,12000.000000,16000.000000,4000.000000,25.000000' && echo 0 || echo 1)" \
    "a narrower period (--since with a time) keeps only job 102"

# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period --json >"$tmp/json" 2>"$tmp/err"; rc=$?
tr -d ' \n' <"$tmp/json" >"$tmp/json1"
r1=$(ok_if grep -q '"total":{"jobs":4,"jobs_baseline":3,"energy_j":72000.0,"baseline_j":76000.0,"saved_j":4000.0' "$tmp/json1")
r2=$(ok_if grep -q '"start":"2026-01-11T00:00:00Z","jobs_time":1,"mape_time_pct":20.0,"bias_time_pct":20.0,"jobs_energy":0,"mape_energy_pct":null' "$tmp/json1")
tap_ok "$([ "$rc$r1$r2" = 000 ] && echo 0 || echo 1)" "--json: the same totals, null where no job had an energy prediction"

# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period >"$tmp/text" 2>"$tmp/err"; rc=$?
r1=$(ok_if grep -q '^Energy against the nominal-frequency baseline: 4 measured job' "$tmp/text")
r2=$(ok_if grep -q '1 without energy figures' "$tmp/text")
r3=$(ok_if grep -q '^east  *3  *2  *0\.012  *0\.013  *0\.001  *8\.70$' "$tmp/text")
tap_ok "$([ "$rc$r1$r2$r3" = 0000 ] && echo 0 || echo 1)" "text: counts the unmeasured job apart, kWh per cluster ($rc$r1$r2$r3)"

# --plot: data, scripts, and images where gnuplot is installed
# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period --plot "$tmp/plots" >/dev/null 2>"$tmp/err"; rc=$?
r1=0
for f in report-error.dat report-error-plot.gp report-error.gp report-energy.dat report-energy-plot.gp report-energy.gp; do
    [ -s "$tmp/plots/$f" ] || r1=1
done
tap_ok "$([ "$rc$r1" = 00 ] && echo 0 || echo 1)" "--plot writes the data files and gnuplot scripts (rc $rc: $(cat "$tmp/err"))"
if command -v gnuplot >/dev/null; then
    r1=0
    for f in report-error.png report-error.svg report-energy.png report-energy.svg; do
        [ -s "$tmp/plots/$f" ] || r1=1
    done
    tap_ok "$r1" "--plot renders PNG and SVG with gnuplot"
else
    echo "ok $((tap_n = tap_n + 1)) # SKIP gnuplot is not installed"
fi
# 42, 46 and 4 kJ: under a kWh the plot counts in Wh, and says so
grep -qxF '"east" 11.666667 12.777778 1.111111' "$tmp/plots/report-energy.dat"; g1=$?
grep -qF "set ylabel 'energy (Wh)'" "$tmp/plots/report-energy-plot.gp"; g2=$?
tap_ok "$([ $g1 = 0 ] && [ $g2 = 0 ] && echo 0 || echo 1)" \
    "the energy plot's data are the report's figures, in Wh under a kWh (its axis says Wh)"

# the database named by metaschedd's configuration, as the report role
printf '[daemon]\n# the daemon connects as ms_daemon; the report as ms_report\ndatabase = %s dbname=%s\n' \
    "$MS_PG_CONNINFO" "$db" >"$tmp/metaschedd.conf"
# shellcheck disable=SC2086
"$ms" report -c "$tmp/metaschedd.conf" $period --csv >"$tmp/viaconf" 2>"$tmp/err"; rc=$?
tap_ok "$([ $rc = 0 ] && has "$tmp/viaconf" 'total,total,4,3,72000.000000,76000.000000,4000.000000,5.263158' && echo 0 || echo 1)" \
    "--config takes the database from metaschedd.conf and connects as ms_report (rc $rc: $(cat "$tmp/err"))"

# bad input: a clear message, nothing else
out=$("$ms" report -d "$report_db" --since yesterday 2>&1); rc=$?
tap_ok "$([ $rc = 2 ] && printf '%s' "$out" | grep -q "^metasched report: --since: 'yesterday' is not a time" && echo 0 || echo 1)" \
    "a malformed --since is named (rc $rc: $out)"
"$ms" report -d "$report_db" --since now-2w --until now --csv >/dev/null 2>&1; rc1=$?
"$ms" report -d "$report_db" --since 2026-01-01T00:00:00Z --until 2026-02-30 >/dev/null 2>&1; rc2=$?
"$ms" report -d "$report_db" --since now-3x >/dev/null 2>&1; rc3=$?
tap_ok "$([ "$rc1$rc2$rc3" = 022 ] && echo 0 || echo 1)" \
    "relative times are taken, February 30th and an unknown unit are refused ($rc1$rc2$rc3)"
out=$("$ms" report -d "$report_db" --since 2026-02-01 --until 2026-01-01 2>&1); rc=$?
tap_ok "$([ $rc = 2 ] && echo 0 || echo 1)" "an empty period is refused (rc $rc: $out)"
out=$("$ms" report -d "dbname=$db user=ms_report password=hunter2" 2>&1); rc=$?
r1=$(ok_if sh -c 'printf "%s" "$1" | grep -q "holds a password"' _ "$out")
r2=$(ok_if sh -c '! printf "%s" "$1" | grep -q hunter2' _ "$out")
tap_ok "$([ "$rc$r1$r2" = 100 ] && echo 0 || echo 1)" "a password in the connection string is refused and not echoed ($out)"
chmod 0644 "$tmp/metaschedd.conf"
printf 'secret\n' >"$tmp/pw"; chmod 0644 "$tmp/pw"
out=$("$ms" report -d "$report_db" -p "$tmp/pw" 2>&1); rc=$?
tap_ok "$([ $rc = 1 ] && printf '%s' "$out" | grep -q "$tmp/pw" && echo 0 || echo 1)" \
    "a password file readable by others is refused, naming it ($out)"

# a model row the predictor refuses: the energy is still reported, every
# job as its own baseline, and the reason is given
psql -qX "$MS_PG_CONNINFO dbname=$db" -c "INSERT INTO models (kind, scope, version, coefficients, n) VALUES ('ear_pair', 'x1:2000000:1600000', 2, '{NaN,0,0,1,0,0}', 10)" >/dev/null 2>&1
# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period --csv >"$tmp/nomodel" 2>"$tmp/err"; rc=$?
tap_ok "$([ $rc = 0 ] && has "$tmp/nomodel" 'total,total,4,2,72000.000000,72000.000000,0.000000,0.000000' \
          && grep -q '^metasched report: warning: no predicted baselines: ' "$tmp/err" && echo 0 || echo 1)" \
    "a model the predictor refuses: a warning, and no job is credited a saving (rc $rc: $(tr '\n' ' ' <"$tmp/err"))"
exit $tap_failed
