#!/bin/sh
# msbatch --external as sbatch takes it (src/sbatch/opt.c, sbatch.c, Slurm
# 25.05): no script is read (standard input is left alone) and none may be
# named ("Script arguments not permitted with --external option"), the job
# is named "external" unless -J names it, --wrap is refused with it; through
# metaschedd such a job goes only to a cluster whose slurmrestd carries it
# (v0.0.43, Slurm 25.05 on): on a test bed of older releases it is refused
# with each cluster's reason for the option, never for a script. Takes the
# services lock exclusive for the last check. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
msbatch=${MS_BUILDDIR:-.}/metasched/msbatch
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
tap_plan 5

# 1: nothing to read: standard input stays unread (a terminal would wait)
out=$(cd /tmp && echo 'not a script' | "$msbatch" --external --parse -t 5 2>&1); rc=$?
[ $rc = 0 ] && printf '%s' "$out" | grep -q '"external": *true' \
    && printf '%s' "$out" | grep -q '"name": *"external"'
tap_ok $? "msbatch --external --parse reads no script and names the job external (rc $rc): $(printf '%s' "$out" | grep -E '"(external|name|script_bytes)"' | tr -d '\n ')"
out=$(cd /tmp && "$msbatch" --external -J mine --parse < /dev/null 2>&1)
printf '%s' "$out" | grep -q '"name": *"mine"'
tap_ok $? "-J names it: $(printf '%s' "$out" | grep '"name"' | tr -d ' ')"

# 2: a script named with it, --wrap with it: refused as sbatch refuses them
printf '#!/bin/sh\ntrue\n' > "${TMPDIR:-/tmp}/ms-ext-$$.sh"
out=$(cd /tmp && "$msbatch" --external --parse "${TMPDIR:-/tmp}/ms-ext-$$.sh" 2>&1); rc=$?
rm -f "${TMPDIR:-/tmp}/ms-ext-$$.sh"
[ $rc = 1 ] && printf '%s' "$out" | grep -q "Script arguments not permitted with --external option"
tap_ok $? "a script with --external is refused (rc $rc): $out"
out=$(cd /tmp && "$msbatch" --external --wrap=true --parse 2>&1); rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q -- "--wrap option not permitted with --external option"
tap_ok $? "--wrap with --external is refused (rc $rc): $out"

# 3: through metaschedd, where a test bed runs (as root)
env_file=${MS_TESTBED_ENV:-${MS_TESTBED_RUN:+$MS_TESTBED_RUN/env}}
env_file=${env_file:-${MS_SRCDIR:-.}/testbed/run/env}
if [ ! -r "$env_file" ] || [ "$(id -u)" != 0 ]; then
    tap_skip 1 "no running test bed or not root: the submission through metaschedd"
    exit $tap_failed
fi
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
trap daemon_cleanup EXIT
daemon_db_ready || { tap_skip 1 "cannot migrate the test bed's database"; exit $tap_failed; }
tap_services_exclusive
daemon_lock
log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-extprobe\ntrue\n' > "$d/probe.sh"
chmod 755 "$d/probe.sh"
daemon_answers "$u" "$d" probe.sh
carriers=0 ncl=0
for c in $MS_CLUSTERS; do
    ncl=$((ncl + 1))
    eval served=\${MS_$(upper "$c")_REST_VERSIONS:-v0.0.38}
    for v in $served; do
        case $v in v0.0.4[3-9]) carriers=$((carriers + 1)); break ;; esac
    done
done
out=$(msb "$u" "$d" --external -t 2 < /dev/null 2>&1); rc=$?
if [ "$carriers" = 0 ]; then
    n=$(printf '%s' "$out" | grep -o -- "--external: this cluster's Slurm does not know it ([^)]*; the option needs v0.0.43, Slurm 25.05, or later)" | wc -l)
    [ $rc = 1 ] && [ "$n" = "$ncl" ] && ! printf '%s' "$out" | grep -qi "script"
    tap_ok $? "msbatch --external (no script) through metaschedd: refused on each of $ncl clusters for the option, not for a script ($n, rc $rc): $out"
else
    id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    [ $rc = 0 ] && [ -n "$id" ] && [ "$(q "SELECT name FROM jobs WHERE id = ${id:-0}")" = external ]
    tap_ok $? "msbatch --external (no script) through metaschedd: accepted as meta job $id named external (rc $rc): $out"
fi
exit $tap_failed
