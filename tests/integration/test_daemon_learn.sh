#!/bin/sh
# metaschedd learns from its own jobs, end to end on the test bed. Two users
# submit a mixed stream of jobs of two apps never seen before through
# msbatch (--app, no partition, a node each); each job runs on the cluster
# and partition metaschedd chose, at the frequency it requested, under
# metasched-collect with the test bed's collect.conf (collect_config), and
# the Epilog records one job_runs row per job: the app, the decision's
# cluster, partition and frequency, the runtime, and the energy this test
# adds to the node's test powercap tree while the job runs (the test bed has
# no RAPL). Then a refit (refit_s in the configuration, refit_interval_s =
# 60 set through the API) gives the apps signatures from those runs, and the
# decision of a job submitted after it predicts, at the nominal frequency of
# every architecture the app ran on, the median power its runs measured
# there, where the decision before the refit had the figures of an unknown
# app. Where PAPI cannot count cycles and instructions (the test bed's
# machine has no PMU), the runs have no CPI and fit no EAR pair
# (doc/predictor.md): the refit then changes signatures, not pairs.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -x "$metasched" ] || tap_skip_all "$metasched not built"
conf_file=${MS_COLLECT_CONF_FILE:-$MS_TESTBED_RUN/collect.conf}
[ -r "$conf_file" ] || tap_skip_all "no $conf_file: the jobs' wrappers would write where the Epilog does not look (run testbed/start of this tree)"

learn_cleanup () {
    # shellcheck disable=SC2086
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    # jobs of an interrupted run would go to the next test's daemon
    cat "$dtmp"/jobs1 "$dtmp"/jobs2 2>/dev/null | while read -r id u app d; do
        runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
            METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$MS_BUILDDIR/metasched/mscancel" "$id"
    done >/dev/null 2>&1
    [ "$tap_failed" = 1 ] && [ -r "${log:-}" ] && tail -15 "$log" | sed 's/^/# /'
    daemon_cleanup
}
trap learn_cleanup EXIT
trap 'exit 143' HUP INT TERM
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 13

log=$dtmp/msd.log
DAEMON_REFIT_S=60 write_conf "$dtmp/msd.conf"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
wait_for 10 grep -q 'leading: this instance now schedules' "$log"
tap_ok $? "the daemon starts and leads ($(grep 'predictor loaded' "$log" | head -1 | sed 's/.*: info: //'))"

# refits every 60 s (the least either setting takes), one cluster job per
# job at the default slowdown cap, whatever an earlier test left; the old
# values come back at the end
restore=$(settings_now refit_interval_s dispatch_mode max_slowdown)
out=$(cfg set refit_interval_s=60 dispatch_mode=single max_slowdown=1.3 2>&1); r=$?
[ $r = 0 ] && out=
tap_ok $r "an admin sets refit_interval_s = 60, dispatch_mode = single, max_slowdown = 1.3 (were: ${restore:-?})$(printf '%s' "${out:+: $out}" | tr '\n' ' ')"

u1=$MS_TEST_USER u2=$MS_TEST_USER2
d1=$(job_dir "$u1") d2=$(job_dir "$u2")
appa=msd-learn-a-$$ appb=msd-learn-b-$$
measured_jobs learn 1 "$d1" "$d2"

# submit FILE USER:APP...: one job each, "id user app dir" lines into FILE
submit () {
    f=$1; shift
    : > "$f"
    for ua in "$@"; do
        u=${ua%%:*} app=${ua#*:}
        if [ "$u" = "$u1" ]; then d=$d1; else d=$d2; fi
        out=$(msb "$u" "$d" --app "$app" learn.sh 2>&1)
        id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
        [ -n "$id" ] && echo "$id $u $app $d" >> "$f"
    done
}
ids_of () { cut -d' ' -f1 "$1" | paste -sd,; }

# energy of a job (uJ, package and DRAM) by its app: some 300 to 450 W for
# the first over the job's second or two, half that for the second
uj_of () { if [ "$1" = "$appa" ]; then echo "500000000 50000000"; else echo "250000000 25000000"; fi; }
# feed FILE: as each job of FILE starts, add its energy to its node and let
# it go on; "id cluster node cluster_job_id pkg_uj dram_uj" into FILE.added.
# Jobs on one node run one after the other (a node's worth of CPUs each),
# so each job's window holds exactly the energy added for it.
feed () {
    : > "$1.added"
    end=$(( $(date +%s) + 150 ))
    while [ "$(wc -l < "$1.added")" -lt "$(wc -l < "$1")" ] && [ "$(date +%s)" -lt "$end" ]; do
        while read -r id u app d; do
            grep -q "^$id " "$1.added" && continue
            [ -s "$d/m.$id.started" ] || continue
            read -r cl node cjid < "$d/m.$id.started"
            case $node in '' | *[!a-z0-9]*) continue ;; esac
            uj=$(uj_of "$app")
            powercap_add "$node" "${uj% *}" "${uj#* }"
            echo "$id $cl $node $cjid $uj" >> "$1.added"
            touch "$d/m.$id.go"
        done < "$1"
        sleep 0.2
    done
}
all_done () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($(ids_of "$1")) AND state = 'completed'")" = "$(wc -l < "$1")" ]; }
all_rows () { [ "$(q "SELECT count(*) FROM jobs j JOIN job_runs r ON r.cluster = j.cluster AND r.slurm_job_id = j.cluster_job_id WHERE j.id IN ($(ids_of "$1"))")" -ge "$(wc -l < "$1")" ]; }
# rows_ok FILE: each job has one job_runs row with the app and user, the
# decision's cluster, partition and frequency, exit code 0, a runtime, and
# the energy added while it ran; prints what differs
rows_ok () {
    bad=
    while read -r id cl node cjid pkg dram; do
        want="$cl|$node|1|$(q "SELECT app || '|' || owner_name || '|' || cluster || '|' || partition || '|' || freq_khz || '|' || cluster_job_id FROM jobs WHERE id = $id")|0|true|$(awk -v p="$pkg" -v d="$dram" 'BEGIN { printf "%.3f|%.3f", p / 1e6, d / 1e6 }')"
        got=$(q "SELECT cluster || '|' || node || '|' || count (*) OVER () || '|' || app || '|' || user_name || '|' || cluster || '|' || partition || '|' || coalesce (freq_req_khz, 0) || '|' || slurm_job_id || '|' || coalesce (exit_code, -1) || '|' || (runtime_s > 0) || '|' || round (pkg_energy_j::numeric, 3) || '|' || round (dram_energy_j::numeric, 3) FROM job_runs WHERE cluster = '$cl' AND slurm_job_id = $cjid")
        [ "$got" = "$want" ] || bad="$bad job $id: '$got', wanted '$want';"
    done < "$1.added"
    [ "$(wc -l < "$1.added")" = "$(wc -l < "$1")" ] || bad="$bad only $(wc -l < "$1.added") of $(wc -l < "$1") jobs started;"
    printf '%s' "$bad"
    [ -z "$bad" ]
}

# ---- before the refit: a mixed stream of both apps from both users ----
submit "$dtmp/jobs1" "$u1:$appa" "$u2:$appb" "$u1:$appb" "$u2:$appa" \
    "$u1:$appa" "$u2:$appb" "$u1:$appb" "$u2:$appa"
ids1=$(ids_of "$dtmp/jobs1")
[ "$(wc -l < "$dtmp/jobs1")" = 8 ]
tap_ok $? "two users submit 8 jobs of $appa and $appb without a partition ($ids1)"
feed "$dtmp/jobs1"
wait_for 90 all_done "$dtmp/jobs1"
tap_ok $? "every job ran and completed ($(q "SELECT state || ' ' || cluster || '/' || partition || ' ' || freq_khz, count(*) FROM jobs WHERE id IN ($ids1) GROUP BY 1 ORDER BY 1" | tr '\n' ' '))"
wait_for 30 all_rows "$dtmp/jobs1"
bad=$(rows_ok "$dtmp/jobs1")
tap_ok $? "one job_runs row per job, with its app, user, the decision's cluster, partition, frequency, and the energy added while it ran${bad:+:$bad}"
where=$(q "SELECT r.app || ' ' || r.cluster || '/' || r.partition || ' ' || r.freq_req_khz, count (*) FROM jobs j JOIN job_runs r ON r.cluster = j.cluster AND r.slurm_job_id = j.cluster_job_id WHERE j.id IN ($ids1) GROUP BY 1 ORDER BY 1" | tr '\n' ' ')
echo "# runs: $where"

# ---- the refit: a new one after every run is in job_runs ----
nrefit=$(grep -c 'refit:' "$log")
nload=$(grep -c 'predictor loaded' "$log")
refitted () { [ "$(grep -c 'refit:' "$log")" -gt "$nrefit" ] && [ "$(grep -c 'predictor loaded' "$log")" -gt "$nload" ]; }
wait_for 90 refitted
tap_ok $? "the daemon refits within its interval ($(grep 'refit:' "$log" | tail -1 | sed 's/.*: info: //'))"
apps0=$(grep 'predictor loaded' "$log" | head -1 | sed -n 's/.*loaded: \([0-9]*\) apps, \([0-9]*\) stored.*/\1 \2/p')
apps1=$(grep 'predictor loaded' "$log" | tail -1 | sed -n 's/.*loaded: \([0-9]*\) apps, \([0-9]*\) stored.*/\1 \2/p')
set -- $apps0 $apps1
[ $# = 4 ] && [ "$3" -gt "$1" ] && [ "$4" -ge "$2" ]
tap_ok $? "the predictor reloads with the new apps: ${1:-?} apps, ${2:-?} stored pairs at the start; ${3:-?} apps, ${4:-?} stored pairs after the refit"

# ---- after the refit: the same apps, the other way round ----
submit "$dtmp/jobs2" "$u1:$appa" "$u2:$appb"
ids2=$(ids_of "$dtmp/jobs2")
decided () { [ "$(q "SELECT count(*) FROM decisions WHERE job_id IN ($ids2)")" = 2 ]; }
wait_for 60 decided
tap_ok $? "two more jobs submitted and decided after the refit ($ids2)"

# compare APP BEFORE AFTER: for each architecture the app ran on at nominal
# frequency, every partition's nominal candidate in the decision AFTER
# holds the median measured power (the app's signature); in BEFORE it held
# something else. Lines "cluster/partition after median runs before".
compare () {
    q "WITH runs AS (
         SELECT p.architecture AS arch, count (*) AS n,
                percentile_cont (0.5) WITHIN GROUP (ORDER BY (coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0)) / t.runtime_s / t.nodes) AS median
         FROM job_run_totals t JOIN partitions p ON p.cluster = t.cluster AND p.name = t.partition
         WHERE t.app = '$1' AND coalesce (t.freq_req_khz, p.nominal_khz) = p.nominal_khz
           AND t.runtime_s > 0 AND coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0) > 0
           AND t.source = 'root-measured'
           AND (t.cluster, t.slurm_job_id) IN (SELECT cluster, cluster_job_id FROM jobs WHERE id IN ($ids1))
         GROUP BY 1),
       cand AS (
         SELECT d.job_id, c->>'cluster' AS cl, c->>'partition' AS pa, (c->>'power_w')::float8 AS pw
         FROM decisions d, json_array_elements (d.candidates) c, partitions p
         WHERE d.job_id IN ($2, $3) AND p.cluster = c->>'cluster' AND p.name = c->>'partition'
           AND (c->>'freq_khz')::int = p.nominal_khz)
     SELECT p.cluster || '/' || p.name, coalesce (round (a.pw::numeric, 6)::text, '-'),
            round (r.median::numeric, 6), r.n, coalesce (round (b.pw::numeric, 6)::text, '-')
     FROM runs r JOIN partitions p ON p.architecture = r.arch
     LEFT JOIN cand a ON a.job_id = $3 AND a.cl = p.cluster AND a.pa = p.name
     LEFT JOIN cand b ON b.job_id = $2 AND b.cl = p.cluster AND b.pa = p.name
     ORDER BY 1"
}
for app in "$appa" "$appb"; do
    before=$(grep " $app " "$dtmp/jobs1" | head -1 | cut -d' ' -f1)
    after=$(grep " $app " "$dtmp/jobs2" | head -1 | cut -d' ' -f1)
    rows=$(compare "$app" "${before:-0}" "${after:-0}")
    # the signature is the median, to rounding; before the refit it was not
    printf '%s\n' "$rows" | awk -F'|' 'NF == 5 { n++; if ($2 == "-" || ($2 - $3) ^ 2 > (1e-6 * $3) ^ 2) bad++ } END { exit !(n >= 1 && !bad) }'
    tap_ok $? "$app after the refit (job $after): the nominal power on each partition it ran on is the median of its runs there (partition|after|median|runs|before: $(printf '%s' "$rows" | tr '\n' ' '))"
    printf '%s\n' "$rows" | awk -F'|' 'NF == 5 { n++; if ($5 == "-" || ($2 - $5) ^ 2 <= (1e-6 * $5) ^ 2) same++ } END { exit !(n >= 1 && !same) }'
    tap_ok $? "$app before the refit (job $before): predicted otherwise, as an app without history"
done
echo "# candidates of $appa before/after: $(q "SELECT job_id, json_array_length (candidates), cluster || '/' || partition || ' ' || freq_khz FROM decisions WHERE job_id IN ($(grep " $appa " "$dtmp/jobs1" | head -1 | cut -d' ' -f1), $(grep " $appa " "$dtmp/jobs2" | head -1 | cut -d' ' -f1)) ORDER BY 1" | tr '\n' ' ')"

# the jobs after the refit run as decided and are measured too
feed "$dtmp/jobs2"
wait_for 90 all_done "$dtmp/jobs2" && wait_for 30 all_rows "$dtmp/jobs2"
bad=$(rows_ok "$dtmp/jobs2")
tap_ok $? "the jobs after the refit ran as decided, one job_runs row each${bad:+:$bad}"
