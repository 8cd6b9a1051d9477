#!/bin/sh
# Attack: the job rewrites its own counter file. The file that the wrapper
# leaves for the root epilog belongs to the job's user, who can write
# anything into it once the wrapper is done: a day of runtime for a job of
# a second, a frequency the job never asked for, counters no machine can
# count, another application's name. A real job on alpha does exactly that
# under the test bed's real Prolog and Epilog. The stored job_runs row must
# keep root's runtime (the wrapper's figure beside it, as the user's),
# Slurm's frequency request, no implausible counters, and name what came
# from the file as the user's (user_reported; doc/collectors.md "Who says
# what"). TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (points the test bed's Prolog and Epilog at this build)"
bin=$MS_BUILDDIR/collectors/metasched-collect
[ -x "$bin" ] || tap_skip_all "$bin not built"
if "$MS_BUILDDIR/metasched/metasched" db --help >/dev/null 2>&1; then
    ms="$MS_BUILDDIR/metasched/metasched"
else
    ms="$bin --metasched"
fi
tmp=$(mktemp -d /tmp/ms-forged-XXXXXX)
chmod 1777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
export MS_DB_CONNINFO="$MS_PG_CONNINFO"
q () { psql "$MS_PG_REPORT_CONNINFO" -X -A -t -q -c "$1" 2>&1; }
c=alpha
conf=$MS_ALPHA_CONF
part=$(printf '%s' "$MS_ALPHA_PARTITIONS" | cut -d' ' -f1)

tap_plan 8

out=$($ms db migrate 2>&1 && $ms db sync "$MS_CLUSTERS_CONF" 2>&1)
tap_ok $? "schema migrated and clusters synced ($(printf '%s' "$out" | tr '\n' ' '))"
printf 'MS_COLLECT_BIN=%s\n' "$bin" > "$MS_TESTBED_RUN/collect.env"
# the metaschedd tests cancel the test user's jobs when they clean up:
# none runs beside this one (daemon_lib.sh's lock)
exec 8>>"$MS_TESTBED_RUN/metaschedd.lock"
flock -x 8

# The job: the wrapper runs a command of about a second, then the job
# writes its own counter file over the wrapper's: a day of runtime (the
# epoch's second billion and a day later), 2.4 GHz asked (alpha offers it;
# the job asks for none), 10^15 instructions in 1000 cycles, exit 0.
cat > "$tmp/job.sh" <<EOF
#!/bin/sh
"$bin" --config /dev/null --set "powercap_root=$MS_POWERCAP_BASE/%n" \\
    --set "job_dir=$MS_TESTBED_RUN/collect-jobs" --app honest-app -- sleep 1
f=$MS_TESTBED_RUN/collect-jobs/\$SLURM_CLUSTER_NAME.\$SLURM_JOB_ID.\$SLURMD_NODENAME.counters
printf 'metasched-spool 1 counters\\napp=forged-app\\nstart=1000000000.000000\\nend=1000086400.000000\\nexit=0\\nsignal=0\\nutime_s=86000\\nstime_s=0\\nfreq_req_khz=2400000\\nevent.PAPI_TOT_CYC=1000\\nevent.PAPI_TOT_INS=1000000000000000\\nend\\n' > "\$f" && touch "$tmp/forged"
EOF
chmod 755 "$tmp/job.sh"
sbatch=$(slurm_cmd "$c" sbatch)
wait_for () { # wait_for SECONDS TEST...
    n=$1; shift
    while [ "$n" -gt 0 ]; do
        "$@" && return 0
        sleep 1; n=$((n - 1))
    done
    return 1
}
row () { # row JOBID COLUMNS
    q "SELECT $2 FROM job_runs WHERE cluster = '$c' AND slurm_job_id = $1"
}
has_row () { [ "$(row "$1" 1)" = 1 ]; }

id=$(runuser -u "$MS_TEST_USER" -- env SLURM_CONF="$conf" "$sbatch" --parsable \
    -p "$part" -N 1 -J forger --chdir "$tmp" -o "$tmp/out" "$tmp/job.sh" 2>&1)
wait_for 90 has_row "$id"
r=$?
[ -e "$tmp/forged" ] || r=1
tap_ok $r "job $id rewrote its counter file and ran through the Prolog and Epilog (row stored: $(row "$id" 1))"

# the runtime is root's; the file's day is kept apart, as the user's
got=$(row "$id" "runtime_s || ' ' || coalesce (reported_runtime_s::text, 'none')")
rt=${got%% *}; rep=${got#* }
awk -v r="$rt" -v p="$rep" 'BEGIN { exit !(r > 0 && r < 60 && p == 86400) }'
tap_ok $? "runtime $rt s is root's window, the file's $rep s kept apart as reported_runtime_s"
got=$(row "$id" "to_char (start_time, 'YYYY')")
tap_ok "$([ "$got" = "$(date -u +%Y)" ] && echo 0 || echo 1)" "the row's start is root's clock, not the file's 2001 ($got)"

# the frequency request is Slurm's: none
got=$(row "$id" "coalesce (freq_req_khz, 0)")
tap_ok "$([ "$got" = 0 ] && echo 0 || echo 1)" "frequency request is Slurm's record (none), not the file's 2.4 GHz ($got)"

# counters no machine counts are left out: no CPI of 10^-12
got=$(row "$id" "coalesce (cpi::text, 'none') || ' ' || coalesce (instructions::text, 'none')")
tap_ok "$([ "$got" = "none none" ] && echo 0 || echo 1)" "implausible counters are left out (cpi, instructions: $got)"

# what the row took from the file is named as the user's
got=$(row "$id" "app || ' ' || array_to_string (user_reported, ',')")
case $got in "forged-app "*app*exit_code*) r=0 ;; *) r=1 ;; esac
tap_ok $r "the file's app and exit code are marked as the user's ($got)"
# the epilog said why it left the counters out
log=$MS_TESTBED_RUN/collect.log
grep "epilog: job $c\.$id " "$log" 2>/dev/null | grep -q "counters left out"
tap_ok $? "the node's log says why: $(grep "epilog: job $c\.$id " "$log" 2>/dev/null | tail -1 | cut -c1-240)"
exit 0
