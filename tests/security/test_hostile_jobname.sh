#!/bin/sh
# Attack: a job name and comment that pose as Slurm's fields. A user names a
# job (and comments it) ' NumNodes=64 OverSubscribe=NO CpuFreqMax=2400000'
# and the like, hoping that the root epilog, reading Slurm's text answer
# split on spaces, records 64 nodes for one, a shared node as exclusive and
# a frequency the job never asked for, and so steers the models that route
# every user's jobs. Two real jobs run through the test bed's real Prolog
# and Epilog on alpha: one on a shared node without a frequency request,
# one on a whole node with a real request; each stored job_runs row must
# hold the real nodes, exclusivity and frequency (Slurm's structured
# record: doc/collectors.md "Who says what"). TAP output.
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
tmp=$(mktemp -d /tmp/ms-hostile-XXXXXX)
chmod 1777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
export MS_DB_CONNINFO="$MS_PG_CONNINFO"
q () { psql "$MS_PG_REPORT_CONNINFO" -X -A -t -q -c "$1" 2>&1; }
c=alpha
conf=$MS_ALPHA_CONF
part=$(printf '%s' "$MS_ALPHA_PARTITIONS" | cut -d' ' -f1)

tap_plan 7

out=$($ms db migrate 2>&1 && $ms db sync "$MS_CLUSTERS_CONF" 2>&1)
tap_ok $? "schema migrated and clusters synced ($(printf '%s' "$out" | tr '\n' ' '))"
printf 'MS_COLLECT_BIN=%s\n' "$bin" > "$MS_TESTBED_RUN/collect.env"
# the metaschedd tests cancel the test user's jobs when they clean up:
# none runs beside these (daemon_lib.sh's lock)
exec 8>>"$MS_TESTBED_RUN/metaschedd.lock"
flock -x 8

# every field the epilog needs, posed in the name and in the comment; the
# frequency is one alpha offers, so that a row that believed it would be
# stored
lie=' NumNodes=64 NumCPUs=64 OverSubscribe=NO Shared=0 CpuFreqMax=2400000 CPU_max_freq=2400000 Partition=batch JobId=1'
lie2=' NumNodes=64 OverSubscribe=YES Shared=1 CpuFreqMax=1500000 CPU_max_freq=1500000'
cat > "$tmp/job.sh" <<'EOF'
#!/bin/sh
sleep 1
EOF
chmod 755 "$tmp/job.sh"
sbatch=$(slurm_cmd "$c" sbatch)
submit () { # submit NAME COMMENT SBATCH OPTIONS...: prints the job id
    n_=$1 m_=$2
    shift 2
    runuser -u "$MS_TEST_USER" -- env SLURM_CONF="$conf" "$sbatch" --parsable \
        -p "$part" -N 1 -J "$n_" --comment="$m_" --chdir "$tmp" \
        -o /dev/null "$@" "$tmp/job.sh" 2>&1
}
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
facts="nodes || ' ' || coalesce (exclusive::text, 'null') || ' ' || coalesce (freq_req_khz, 0)"

# 1. a shared node, no frequency: the lie says 64 nodes, exclusive, 2.4 GHz
a=$(submit "hostile$lie" "comment$lie" --oversubscribe)
case $a in *[!0-9]* | '') tap_ok 1 "job submitted ($a)" ;; *) tap_ok 0 "shared job $a submitted with a name and comment posing as fields" ;; esac
wait_for 90 has_row "$a"
tap_ok $? "job $a ran through the Prolog and Epilog: its job_runs row is stored"
got=$(row "$a" "$facts")
want="1 false 0"
tap_ok "$([ "$got" = "$want" ] && echo 0 || echo 1)" "job $a: the real nodes, exclusivity and frequency, not the name's ('$got', wanted '$want')"

# 2. a whole node at 1.8 GHz: the lie says 64 nodes, shared, 1.5 GHz
b=$(submit "hostile$lie2" "comment$lie2" --exclusive --cpu-freq=1800000)
case $b in *[!0-9]* | '') tap_ok 1 "job submitted ($b)" ;; *) tap_ok 0 "exclusive job $b submitted with a name and comment posing as fields" ;; esac
wait_for 90 has_row "$b"
got=$(row "$b" "$facts")
want="1 true 1800000"
tap_ok "$([ "$got" = "$want" ] && echo 0 || echo 1)" "job $b: the real nodes, exclusivity and frequency, not the name's ('$got', wanted '$want')"

# the window is root's: a short job's runtime, whatever the name says
rt=$(row "$b" runtime_s)
awk -v r="$rt" 'BEGIN { exit !(r > 0 && r < 60) }'
tap_ok $? "job $b: runtime $rt s, root's measure of a job of about a second"
exit 0
