#!/bin/sh
# A real workflow manager through metasched: Snakemake 7 (Debian's
# snakemake package) runs the workflow of doc/examples/snakemake (21
# cluster jobs in three steps: 10 made, 10 transformed, one summary) on
# the test bed with that directory's profile, as doc/workflows.md shows
# it: --cluster "msbatch --parsable ...", --cluster-status over msqueue,
# --cluster-cancel mscancel. Every rule's output is produced, and each job
# was one meta job whose cluster metaschedd chose (a decision among several
# candidates, no partition asked). Then an interrupted workflow: Snakemake
# cancels its jobs with mscancel. Snakemake runs as an ordinary user in a
# directory the nodes see (the test bed's nodes are this machine). TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
command -v snakemake >/dev/null 2>&1 || tap_skip_all "snakemake is not installed (Debian: apt-get install snakemake)"
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
for p in msbatch msqueue mscancel; do
    [ -x "$MS_BUILDDIR/metasched/$p" ] || tap_skip_all "$p not built"
done
smk_pid=
smk_cleanup () {
    [ -n "$smk_pid" ] && kill "$smk_pid" 2>/dev/null
    daemon_cleanup
}
trap smk_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 7

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
w=$d/wf
ex=$MS_SRCDIR/doc/examples/snakemake
mkdir -p "$w/profile" "$w/home"
cp "$ex/Snakefile" "$w/Snakefile"
cp "$ex/config.yaml" "$ex/msqueue-status.sh" "$w/profile/"
chown -R "$u" "$w"
printf '#!/bin/sh\ntrue\n' > "$d/ready.sh"
chmod 755 "$d/ready.sh"
daemon_answers "$u" "$d" ready.sh

# ---- the workflow, every job through metasched ----------------------------
t0=$(date +%s)
timeout 900 sh -c "$(cat <<'EOS'
cd "$1" && exec runuser -u "$2" -- env -i HOME="$1/home" LANG=C.UTF-8 \
    PATH="$3:/usr/local/bin:/usr/bin:/bin" METASCHED_SERVER="$4" \
    METASCHED_MUNGE_SOCKET="$5" XDG_CACHE_HOME="$1/home/.cache" \
    snakemake --profile profile
EOS
)" smk "$w" "$u" "$MS_BUILDDIR/metasched" "unix:$dtmp/msd.sock" "$MS_MUNGE_SOCKET" \
    > "$dtmp/smk.log" 2>&1
rc=$?
tap_ok "$([ "$rc" = 0 ]; echo $?)" "snakemake --profile (doc/examples/snakemake) completes the workflow in $(( $(date +%s) - t0 )) s (rc $rc: $(grep -E 'Error|error|steps \(' "$dtmp/smk.log" | tail -3 | tr '\n' ' '))"
nraw=$(ls "$w"/raw/*.txt 2>/dev/null | wc -l)
nup=$(ls "$w"/up/*.txt 2>/dev/null | wc -l)
nsum=$(grep -c '^S[0-9][0-9] ' "$w/summary.txt" 2>/dev/null)
tap_ok "$([ "$nraw" = 10 ] && [ "$nup" = 10 ] && [ "$nsum" = 10 ]; echo $?)" \
    "every rule's output is there: $nraw raw, $nup transformed, a summary of $nsum lines"

# the meta job ids Snakemake got from msbatch --parsable
ids=$(sed -n "s/^Submitted job [0-9]* with external jobid '\([0-9][0-9]*\)'\.$/\1/p" "$dtmp/smk.log" | sort -n | tr '\n' ',' | sed 's/,$//')
nids=$(printf '%s' "$ids" | tr ',' '\n' | grep -c .)
tap_ok "$([ "$nids" = 21 ]; echo $?)" "Snakemake submitted 21 jobs through msbatch --parsable and followed them by their meta job ids ($nids: $ids)"
row=$(q "SELECT count(*),
        count(*) FILTER (WHERE j.state = 'completed' AND j.owner_name = '$u'
                         AND j.cluster IS NOT NULL AND j.cluster_job_id IS NOT NULL
                         AND coalesce (j.options->>'partition', '') = ''),
        count(DISTINCT j.name),
        count(*) FILTER (WHERE EXISTS (SELECT 1 FROM decisions x WHERE x.job_id = j.id
                         AND x.cluster = j.cluster AND json_array_length (x.candidates::json) > 1)),
        string_agg (DISTINCT j.cluster, ' ')
        FROM jobs j WHERE j.id IN (${ids:-0})")
IFS='|' read -r n ncomp nnames ndec clusters <<EOR
$row
EOR
tap_ok "$([ "$n" = 21 ] && [ "$ncomp" = 21 ] && [ "$nnames" = 3 ]; echo $?)" \
    "the meta queue holds the 21 jobs ($n), all completed on a cluster, none with a partition asked ($ncomp), named by their rules ($nnames names)"
tap_ok "$([ "$ndec" = 21 ]; echo $?)" \
    "metaschedd chose every job's cluster among several candidates ($ndec decisions; clusters used: $clusters)"
# the status script's answers for an ended job and for one that is not
st_ok=$(cd "$w" && runuser -u "$u" -- env PATH="$MS_BUILDDIR/metasched:/usr/bin:/bin" \
    METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    profile/msqueue-status.sh "$(printf '%s' "$ids" | cut -d, -f1)" 2>&1)
st_no=$(cd "$w" && runuser -u "$u" -- env PATH="$MS_BUILDDIR/metasched:/usr/bin:/bin" \
    METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    profile/msqueue-status.sh 999999999 2>&1)
tap_ok "$([ "$st_ok" = success ] && [ "$st_no" = failed ]; echo $?)" \
    "msqueue-status.sh says success for a completed job, failed for an unknown one ($st_ok, $st_no)"

# ---- an interrupted workflow: Snakemake cancels its jobs with mscancel ----
mkdir -p "$w/slow"
cat > "$w/slow/Snakefile" <<'EOF'
rule all:
    input: expand("done/{i}", i=range(3))
rule slow:
    output: "done/{i}"
    shell: "sleep 300; touch {output}"
EOF
chown -R "$u" "$w/slow"
t1=$(date +%s)
# a command started with & ignores SIGINT; Snakemake gets it as a terminal
# would give it (restored to the default, which Python turns into
# KeyboardInterrupt)
sigint_default='import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])'
(cd "$w/slow" && exec runuser -u "$u" -- env -i HOME="$w/home" LANG=C.UTF-8 \
    PATH="$MS_BUILDDIR/metasched:/usr/local/bin:/usr/bin:/bin" \
    METASCHED_SERVER="unix:$dtmp/msd.sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
    XDG_CACHE_HOME="$w/home/.cache" \
    /usr/bin/python3 -c "$sigint_default" snakemake --profile ../profile) > "$dtmp/slow.log" 2>&1 &
smk_pid=$!
submitted () { [ "$(grep -c 'with external jobid' "$dtmp/slow.log")" = 3 ]; }
wait_for 120 submitted
sids=$(sed -n "s/^Submitted job [0-9]* with external jobid '\([0-9][0-9]*\)'\.$/\1/p" "$dtmp/slow.log" | tr '\n' ',' | sed 's/,$//')
sleep 2
# Ctrl-C: snakemake's own process (runuser's child)
spid=$(pgrep -u "$u" -f 'snakemake --profile ../profile' | head -1)
[ -n "$spid" ] && kill -INT "$spid"
wait "$smk_pid" 2>/dev/null
smk_pid=
# Snakemake's own log of the interruption, kept beside the test's
cp "$dtmp/slow.log" "$MS_BUILDDIR/tests/integration/test_snakemake.slow.log" 2>/dev/null
cancelled () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN (${sids:-0}) AND state = 'cancelled'")" = 3 ]; }
wait_for 60 cancelled; r=$?
tap_ok "$([ "$r" = 0 ] && [ -n "$sids" ]; echo $?)" \
    "interrupted, Snakemake cancels its 3 jobs through mscancel ($(q "SELECT string_agg (id || ':' || state, ' ') FROM jobs WHERE id IN (${sids:-0})"); $(( $(date +%s) - t1 )) s)"
exit $tap_failed
