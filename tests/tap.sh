# tap.sh - TAP helpers for the shell tests (sourced).

# make check passes every test's log name on its sub-make's command line,
# so TEST_LOGS and MAKEFLAGS reach each test; with enough tests they pass
# the 4 KiB a variable may have to be exported to a job, and msbatch warns
# on stderr that it leaves them out. No test needs them, and the commands
# under test should see a user's ordinary environment: unset here, with
# any other variable that long.
unset TEST_LOGS MAKEFLAGS MFLAGS
for _tap_v in $(env | awk 'length ($0) > 4096 && /^[A-Za-z_][A-Za-z0-9_]*=/ { sub (/=.*/, ""); print }'); do
    unset "$_tap_v"
done
unset _tap_v
tap_n=0
tap_failed=0
tap_plan () { echo "1..$1"; }
# tap_ok STATUS DESCRIPTION: STATUS 0 is a pass
tap_ok () {
    tap_n=$((tap_n + 1))
    if [ "$1" = 0 ]; then
        echo "ok $tap_n - $2"
    else
        echo "not ok $tap_n - $2"
        tap_failed=1
    fi
}
tap_skip_all () { echo "1..0 # SKIP $1"; exit 0; }
# tap_skip N WHY: the next N results are skipped
tap_skip () {
    _i=0
    while [ $_i -lt "$1" ]; do
        tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $2"; _i=$((_i + 1))
    done
}
# Load the running test bed's environment, or skip the whole test: the file
# $MS_TESTBED_ENV, else the env of the run directory $MS_TESTBED_RUN (a test
# bed started with it), else testbed/run/env.
tap_need_testbed () {
    env_file=${MS_TESTBED_ENV:-${MS_TESTBED_RUN:+$MS_TESTBED_RUN/env}}
    env_file=${env_file:-${MS_SRCDIR:-.}/testbed/run/env}
    [ -r "$env_file" ] || tap_skip_all "no running test bed ($env_file missing; start it with testbed/start)"
    builddir_keep=${MS_BUILDDIR:-}
    # shellcheck disable=SC1090
    . "$env_file"
    [ -n "$builddir_keep" ] && MS_BUILDDIR=$builddir_keep
    export MS_BUILDDIR
    # Hold the services lock shared while this test runs (fd 7): a test that
    # stops a service takes it exclusive (tap_services_exclusive).
    if [ -n "${MS_TESTBED_RUN:-}" ] && command -v flock >/dev/null; then
        exec 7>>"$MS_TESTBED_RUN/services.lock"
        flock -s 7
    fi
}
# For a test that stops PostgreSQL or a cluster: wait until no other test
# needs the services, and keep them to ourselves until we exit.
tap_services_exclusive () {
    [ -n "${MS_TESTBED_RUN:-}" ] || return 0
    exec 7>>"$MS_TESTBED_RUN/services.lock"
    flock -x 7
}

# The test bed's clusters may run different Slurm releases, whose commands
# speak different protocols: a test runs the commands of the release the
# cluster it addresses runs (run/env: MS_<C>_SLURM_BIN).
# slurm_cmd CLUSTER COMMAND: the path of COMMAND (scontrol, sbatch, ...)
slurm_cmd () {
    _sc=$(printf '%s' "$1" | tr 'a-z' 'A-Z')
    eval "_sb=\${MS_${_sc}_SLURM_BIN:-}"
    printf '%s\n' "${_sb:+$_sb/}$2"
}
# on_cluster CLUSTER COMMAND ARGS...: COMMAND of CLUSTER's release, against
# CLUSTER (its slurm.conf)
on_cluster () {
    _sc=$(printf '%s' "$1" | tr 'a-z' 'A-Z')
    eval "_sconf=\${MS_${_sc}_CONF:-}"
    _scmd=$(slurm_cmd "$1" "$2")
    shift 2
    SLURM_CONF=$_sconf "$_scmd" "$@"
}

# The test bed's fake powercap (MS_POWERCAP_BASE): a node's RAPL package
# zone, and powercap_add NODE PKG_UJ DRAM_UJ to advance its package and
# DRAM counters as a running job would, wrapping at the range.
powercap_zone () { echo "$MS_POWERCAP_BASE/$1/intel-rapl:0"; }
powercap_add () {
    z=$(powercap_zone "$1")
    for spec in "$z/energy_uj:$2" "$z/intel-rapl:0:0/energy_uj:$3"; do
        file=${spec%:*}; inc=${spec##*:}
        range=$(cat "$(dirname "$file")/max_energy_range_uj")
        now=$(cat "$file")
        echo $(( (now + inc) % range )) > "$file"
    done
}
