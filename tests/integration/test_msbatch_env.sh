#!/bin/sh
# What sbatch takes from the submitting shell, through metaschedd on the
# test bed: --propagate=NOFILE sends the shell's open-files limit, which
# the job runs under (slurmstepd's SLURM_RLIMIT_* as sbatch sets them);
# --export-file gives the job exactly the file's variables (NUL-ended
# entries, as sbatch's env_array_from_file reads them), not the shell's;
# a file that cannot be read is refused before anything is sent. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 4

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-env\necho "nofile=$(ulimit -n) a=${A:-unset} b=${B:-unset} shell=${MSENV_SHELL:-unset}"\n' > "$d/env.sh"
chmod 755 "$d/env.sh"
printf 'A=from file\0B=2\0' > "$d/env.list"
chown "$u" "$d/env.list"

finished () { [ "$(q "SELECT state FROM jobs WHERE id = ${1:-0}")" = completed ]; }
run_job () { # run_job OUT SHELL-PREFIX MSBATCH-ARGS...: the job's line
    o=$1 pre=$2; shift 2
    out=$(cd "$d" && runuser -u "$u" -- sh -c "$pre exec env METASCHED_SERVER=unix:$dtmp/msd.sock METASCHED_MUNGE_SOCKET=$MS_MUNGE_SOCKET MSENV_SHELL=yes \"\$@\"" sh "$msbatch" -o "$o-%j.out" "$@" env.sh 2>&1)
    jid=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    wait_for 120 finished "$jid"
    cj=$(q "SELECT cluster_job_id FROM jobs WHERE id = ${jid:-0}")
    cat "$d/$o-$cj.out" 2>/dev/null
}

# --propagate: the shell's limit goes with the job
line=$(run_job prop "ulimit -n 333;" --propagate=NOFILE)
printf '%s' "$line" | grep -q '^nofile=333 '
tap_ok $? "--propagate=NOFILE: the job runs with the shell's limit of 333 open files ($line)"
line=$(run_job noprop "ulimit -n 333;")
! printf '%s' "$line" | grep -q '^nofile=333 ' && printf '%s' "$line" | grep -q '^nofile='
tap_ok $? "without --propagate the cluster's limit holds ($line)"

# --export-file: the file's variables, not the shell's
line=$(run_job ef "" --export-file=env.list)
[ "$line" = "nofile=$(printf '%s' "$line" | sed 's/^nofile=\([0-9]*\).*/\1/') a=from file b=2 shell=unset" ]
tap_ok $? "--export-file: the job has the file's variables and not the shell's ($line)"
out=$(msb "$u" "$d" --export-file=missing.list env.sh 2>&1); rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--export-file=missing.list: cannot open"
tap_ok $? "an --export-file that cannot be read is refused: $out"
exit $tap_failed
