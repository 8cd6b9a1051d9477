#!/bin/sh
# The user commands (msbatch, msqueue, mscancel) as two ordinary users
# against the real metaschedd, PostgreSQL and the three Slurm clusters of the
# test bed. The daemon runs as root with a private socket; the users reach
# it through METASCHED_SERVER and sign with the test bed's munged. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
bin=$MS_BUILDDIR/metasched
daemon=${MS_METASCHEDD:-$MS_BUILDDIR/metasched/metaschedd}
for p in msbatch msqueue mscancel; do
    [ -x "$bin/$p" ] || tap_skip_all "$bin/$p is not built"
done
[ "$(id -u)" = 0 ] || tap_skip_all "needs root to run the commands as $MS_TEST_USER and $MS_TEST_USER2"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"

tmp=$(mktemp -d /tmp/ms-test-cli.XXXXXX)
chmod 755 "$tmp"
daemon_pid=
cleanup () {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    # this run's jobs that may still be on a cluster
    for c in $MS_CLUSTERS; do
        on_cluster "$c" scancel -u "$MS_TEST_USER" -n "$tag-long" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
sock=$tmp/metaschedd.sock
work=$tmp/work
mkdir "$work"
chown "$MS_TEST_USER" "$work"
tag=cli$$

# as USER CMD ARGS...: run a user command as USER, talking to our daemon.
as () {
    u=$1
    shift
    (cd "$work" && runuser -u "$u" -- env METASCHED_SERVER="unix:$sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
        "$@")
}
# the value of "key": in JSON text ($1 the text, $2 the key); first match
jget () { printf '%s\n' "$1" | sed -n "s/^ *\"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" | head -1; }

cat > "$work/job.sh" <<EOF
#!/bin/sh
#SBATCH --job-name=$tag-ok
#SBATCH --time=5
#SBATCH --output=$work/out-%j.txt
echo "ran as \$(id -un) in \$(pwd)"
EOF
printf '#!/bin/sh\n#SBATCH --time=5\n#SBATCH --nodes=two\nhostname\n' > "$work/bad.sh"
printf '#!/bin/sh\n#SBATCH --job-name=%s-long\n#SBATCH --time=10\n#SBATCH --output=/dev/null\nsleep 300\n' "$tag" > "$work/long.sh"
chown "$MS_TEST_USER" "$work"/*.sh

tap_plan 18

# ---- what is refused before anything is sent (no daemon needed) ---------
out=$(as "$MS_TEST_USER" "$bin/msbatch" --bogus job.sh 2>&1); rc=$?
tap_ok "$( [ "$rc" = 1 ] && [ "$out" = "msbatch: unknown option '--bogus' (not an option of sbatch; see msbatch --help)" ]; echo $? )" \
    "msbatch refuses an unknown option, naming it (rc $rc: $out)"
out=$(as "$MS_TEST_USER" "$bin/msbatch" bad.sh 2>&1); rc=$?
tap_ok "$( [ "$rc" = 1 ] && [ "$out" = "msbatch: bad.sh:3: --nodes=two: expected N or MIN-MAX, from 1 to 1048576, or a list of sizes (N,N-M[:STEP],...)" ]; echo $? )" \
    "a bad #SBATCH line is named script:line (rc $rc: $out)"
out=$(as "$MS_TEST_USER" "$bin/msbatch" job.sh 2>&1); rc=$?
tap_ok "$( [ "$rc" = 1 ] && [ "$out" = "msbatch: metaschedd not reachable at unix:$sock: no such file or directory" ]; echo $? )" \
    "no daemon: msbatch says where it looked and why (rc $rc: $out)"
out=$(as "$MS_TEST_USER" "$bin/mscancel" 12 x7 2>&1); rc=$?
tap_ok "$( [ "$rc" = 1 ] && [ "$out" = "mscancel: 'x7' is not a job id" ]; echo $? )" \
    "mscancel checks every id before sending (rc $rc: $out)"

# ---- the daemon ---------------------------------------------------------
if [ ! -x "$daemon" ]; then
    why="metaschedd is not built yet ($daemon)"
    for n in $(seq 5 18); do echo "ok $n # SKIP $why"; done
    exit $tap_failed
fi
# Daemons on one database elect one leader: hold the test bed's daemon
# lock (as tests/integration/daemon_lib.sh does) so no other test's daemon
# meets ours; prepare the schema and this build's clusters.
exec 8>>"$MS_TESTBED_RUN/metaschedd.lock"
flock -x 8
MS_DB_CONNINFO=$MS_PG_CONNINFO "$bin/metasched" db migrate >/dev/null 2>&1
MS_DB_CONNINFO=$MS_PG_CONNINFO "$bin/metasched" db sync "$MS_CLUSTERS_CONF" >/dev/null 2>&1
cat > "$tmp/metaschedd.conf" <<EOF
[daemon]
clusters_conf   = $MS_CLUSTERS_CONF
database        = $MS_PG_CONNINFO
socket          = $sock
munge_socket    = $MS_MUNGE_SOCKET
admins          = root
allow_partition = no
cycle_s         = 1
refit_s         = 0
collect_wrapper = $MS_BUILDDIR/collectors/metasched-collect
tag_key_file    = $tmp/tag.key
EOF
ASAN_OPTIONS=detect_leaks=0 "$daemon" -f "$tmp/metaschedd.conf" -D >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
for i in $(seq 1 300); do
    [ -S "$sock" ] && break
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.1
done
tap_ok "$( [ -S "$sock" ]; echo $? )" "metaschedd serves its socket ($(tail -3 "$tmp/daemon.log" | tr '\n' ' '))"
if [ ! -S "$sock" ]; then
    for n in $(seq 6 18); do echo "not ok $n - metaschedd did not start"; done
    exit 1
fi

out=$(as "$MS_TEST_USER" "$bin/msbatch" job.sh 2>&1); rc=$?
id=$(printf '%s\n' "$out" | sed -n 's/^Submitted meta job \([0-9][0-9]*\)$/\1/p')
tap_ok "$( [ "$rc" = 0 ] && [ -n "$id" ]; echo $? )" "msbatch without a partition prints the meta job id (rc $rc: $out)"

# until its first cycle the daemon has no predictions (503): wait for it
for i in $(seq 1 60); do
    out=$(as "$MS_TEST_USER" "$bin/msbatch" --test-only job.sh 2>&1); rc=$?
    case $out in *"[HTTP 503]"*) sleep 0.5 ;; *) break ;; esac
done
n=0
for c in alpha beta gamma; do
    printf '%s\n' "$out" | grep -q "^[ *] $c " && n=$((n + 1))
done
chosen=$(printf '%s\n' "$out" | grep -c '^\* ')
tap_ok "$( [ "$rc" = 0 ] && [ "$n" = 3 ] && [ "$chosen" = 1 ]; echo $? )" \
    "--test-only lists candidates on all three clusters, one chosen (rc $rc, $n clusters, $chosen chosen: $out)"

out=$(as "$MS_TEST_USER" "$bin/msqueue" --noheader 2>&1); rc=$?
line=$(printf '%s\n' "$out" | awk -v id="$id" '$1 == id')
tap_ok "$( [ "$rc" = 0 ] && [ -n "$line" ]; echo $? )" "msqueue shows the job to its owner (rc $rc: $line)"
out=$(as "$MS_TEST_USER2" "$bin/msqueue" --noheader 2>&1); rc=$?
line=$(printf '%s\n' "$out" | awk -v id="$id" '$1 == id')
tap_ok "$( [ "$rc" = 0 ] && [ -z "$line" ]; echo $? )" "msqueue does not show it to $MS_TEST_USER2 (rc $rc: $line)"

# refusals store nothing: no job of this run's names appears
as "$MS_TEST_USER" "$bin/msbatch" -J "$tag-refused" --bogus job.sh >/dev/null 2>&1
out=$(as "$MS_TEST_USER" "$bin/msbatch" -J "$tag-pinned" --partition=beta/compute job.sh 2>&1); rc=$?
tap_ok "$( [ "$rc" = 1 ] && [ -n "$(printf '%s' "$out" | grep "^msbatch: .*partition.*\[HTTP 400\]")" ]; echo $? )" \
    "--partition is refused with the server's message naming the field (rc $rc: $out)"
stored=$(as "$MS_TEST_USER" "$bin/msqueue" --json 2>&1 | grep -c "\"$tag-\(refused\|pinned\)\"")
tap_ok "$( [ "$stored" = 0 ]; echo $? )" "an unknown option or a refused partition stores nothing ($stored stored)"

# the job runs to completion where the daemon sent it, at its frequency
state=
for i in $(seq 1 180); do
    js=$(as "$MS_TEST_USER" "$bin/msqueue" -j "$id" --json 2>&1)
    state=$(jget "$js" state)
    case $state in completed|failed|cancelled|lost) break ;; esac
    sleep 1
done
cluster=$(jget "$js" cluster)
cjid=$(jget "$js" cluster_job_id)
freq=$(jget "$js" freq_khz)
tap_ok "$( [ "$state" = completed ]; echo $? )" "the job completes (state $state on $cluster job $cjid at $freq kHz)"
sc=$(on_cluster "$cluster" scontrol show job "$cjid" 2>&1)
tap_ok "$( [ -n "$cluster" ] && [ -n "$cjid" ] \
    && printf '%s\n' "$sc" | grep -q "JobState=COMPLETED" \
    && printf '%s\n' "$sc" | grep -q "UserId=$MS_TEST_USER(" \
    && printf '%s\n' "$sc" | grep -q "Comment=metasched:$id\b"; echo $? )" \
    "slurmctld of $cluster ran job $cjid for $MS_TEST_USER, tagged metasched:$id"
tap_ok "$( [ -n "$freq" ] && [ -n "$(printf '%s\n' "$sc" | grep "CPU_max_freq=$freq\b")" ]; echo $? )" \
    "$cluster ran it at the frequency the daemon chose ($freq kHz: $(printf '%s\n' "$sc" | grep -o 'CPU_m[a-z]*_freq=[^ ]*' | tr '\n' ' '))"
tap_ok "$(grep -qx "ran as $MS_TEST_USER in $work" "$work/out-$cjid.txt"; echo $?)" \
    "the job wrote its output as $MS_TEST_USER in its working directory ($(head -c 300 "$work/out-$cjid.txt" 2>&1 | tr '\n' '|'))"

# cancel: not across users, then by the owner
out=$(as "$MS_TEST_USER" "$bin/msbatch" --parsable long.sh 2>&1); rc=$?
long=$out
out=$(as "$MS_TEST_USER2" "$bin/mscancel" "$long" 2>&1); rc=$?
tap_ok "$( [ "$rc" = 1 ] && [ "$out" = "mscancel: job $long: no such job" ]; echo $? )" \
    "$MS_TEST_USER2 cannot cancel $MS_TEST_USER's job $long (rc $rc: $out)"
out=$(as "$MS_TEST_USER" "$bin/mscancel" "$long" 2>&1); rc=$?
tap_ok "$( [ "$rc" = 0 ] && [ -z "$out" ]; echo $? )" "the owner cancels it (rc $rc: $out)"
for i in $(seq 1 30); do
    st=$(as "$MS_TEST_USER" "$bin/msqueue" -j "$long" --noheader 2>&1 | awk '{print $3}')
    [ "$st" = cancelled ] && break
    sleep 1
done
tap_ok "$( [ "$st" = cancelled ]; echo $? )" "msqueue shows it cancelled (state $st)"
exit $tap_failed
