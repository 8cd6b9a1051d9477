#!/bin/sh
# The commands as the tools that drive sbatch, squeue and scancel use them
# (pipelines, workflow managers), against the real metaschedd, PostgreSQL
# and Slurm clusters of the test bed, as two ordinary users: msbatch
# --parsable with --wrap and a script on standard input (sbatch's main in
# src/sbatch/sbatch.c), --wait and its exit status (_job_wait there);
# msqueue's -j, -u, -h, -o and -t as squeue reads and applies them
# (parse_format and _parse_token in src/squeue/opts.c, _filter_job and
# _print_str in src/squeue/print.c) and --json in squeue's shape; mscancel's
# filters and -Q as scancel's (_verify_job_ids and _filter_job_records in
# src/scancel/scancel.c), never reaching another user's job. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
msqueue=$MS_BUILDDIR/metasched/msqueue
mscancel=$MS_BUILDDIR/metasched/mscancel
for p in "$msbatch" "$msqueue" "$mscancel"; do
    [ -x "$p" ] || tap_skip_all "$p not built"
done
id "$MS_TEST_USER2" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER2"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 18

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER u2=$MS_TEST_USER2
d=$(job_dir "$u")
d2=$(job_dir "$u2")
tag=tools$$
# as USER CMD ARGS...: a command of ours as USER in USER's directory
as () {
    a_u=$1; shift
    a_d=$d; [ "$a_u" = "$u2" ] && a_d=$d2
    (cd "$a_d" && runuser -u "$a_u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$@")
}
mq () { a_u=$1; shift; as "$a_u" "$msqueue" "$@"; }
printf '#!/bin/sh\ntrue\n' > "$d/ready.sh"
chmod 755 "$d/ready.sh"
daemon_answers "$u" "$d" ready.sh

# ---- msbatch: what sbatch --parsable prints, --wrap, standard input -----
out=$(as "$u" "$msbatch" --parsable -t 5 -J "$tag-wrap" --wrap "echo wrapped" 2>&1); rc=$?
idw=$out
tap_ok "$([ "$rc" = 0 ] && printf '%s' "$out" | grep -qx '[0-9][0-9]*'; echo $?)" \
    "msbatch --parsable --wrap prints the job id alone, as sbatch --parsable (rc $rc: $out)"
out=$(printf '#!/bin/sh\n#SBATCH -t 5\n#SBATCH -J %s-stdin\necho from stdin\n' "$tag" \
    | as "$u" "$msbatch" --parsable 2>&1); rc=$?
ids=$out
tap_ok "$([ "$rc" = 0 ] && printf '%s' "$out" | grep -qx '[0-9][0-9]*'; echo $?)" \
    "a script on standard input is submitted (rc $rc: $out)"

# ---- --wait: the job's exit code is msbatch's -------------------------
out=$(as "$u" "$msbatch" --parsable --wait -t 5 -J "$tag-exit3" --wrap "exit 3" 2>&1); rc=$?
id3=$out
tap_ok "$([ "$rc" = 3 ] && printf '%s' "$out" | grep -qx '[0-9][0-9]*'; echo $?)" \
    "--wait returns when the job ends, with its exit code 3 (rc $rc: $out)"
out=$(as "$u" "$msbatch" -W -t 5 -J "$tag-ok" --wrap "true" 2>&1); rc=$?
idok=$(printf '%s' "$out" | sed -n 's/^Submitted meta job \([0-9]*\)$/\1/p')
tap_ok "$([ "$rc" = 0 ] && [ -n "$idok" ]; echo $?)" "-W: a job that succeeds gives 0 (rc $rc: $out)"

# ---- msqueue: squeue's selection and format -------------------------------
out=$(mq "$u" -h -j "$idok,$id3" -o '%i|%T|%t|%j|%u|%D'); rc=$?
tap_ok "$([ "$rc" = 0 ] && [ "$out" = "$idok|COMPLETED|CD|$tag-ok|$u|1
$id3|FAILED|F|$tag-exit3|$u|1" ]; echo $?)" \
    "msqueue -h -j -o prints squeue's fields: the ended jobs COMPLETED and FAILED (rc $rc: $(printf '%s' "$out" | tr '\n' ' '))"
out=$(mq "$u" -o '%.10i %T' -j "$idok" | head -1)
tap_ok "$([ "$out" = "     JOBID STATE" ]; echo $?)" "without -h the header is squeue's, justified as asked ($out)"
out=$(mq "$u" --noheader -u "$u" -t CD,completed -o %i); rc=$?
tap_ok "$([ "$rc" = 0 ] && printf '%s\n' "$out" | grep -qx "$idok" \
    && ! printf '%s\n' "$out" | grep -qx "$id3"; echo $?)" \
    "-u and -t CD select the completed job, not the failed one (rc $rc)"
out=$(mq "$u2" -h -u "$u" -o %i); rc=$?
tap_ok "$([ "$rc" = 0 ] && [ -z "$out" ]; echo $?)" "$u2 asking for $u's jobs sees none of them (rc $rc: $out)"
out=$(mq "$u2" -h -j "$idok" -o %i 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && [ "$out" = "msqueue: job $idok: no such job" ]; echo $?)" \
    "$u2 naming $u's job with -j: no such job (rc $rc: $out)"
js=$(mq "$u" --json -j "$id3")
jck=$(printf '%s' "$js" | python3 -c '
import json, sys
o = json.load(sys.stdin)
j = o["jobs"][0]
ok = (j["job_state"] == ["FAILED"] and j["exit_code"]["status"] == ["ERROR"]
      and j["exit_code"]["return_code"]["number"] == 3
      and j["time_limit"] == {"set": True, "infinite": False, "number": 5}
      and j["end_time"]["set"] and j["user_name"] == sys.argv[1]
      and isinstance(o["errors"], list) and "data_parser" in o["meta"]["plugin"]
      and j["metasched"]["state"] == "failed")
print("ok" if ok else "bad: " + json.dumps(j)[:600])' "$u" 2>&1)
tap_ok "$([ "$jck" = ok ]; echo $?)" "msqueue --json is shaped like squeue --json (job_state, exit_code, time_limit; $jck)"
# an array: with -r a line per task, each task's own state (squeue -r)
out=$(as "$u" "$msbatch" --parsable --wait -t 5 -a 1-3 -o /dev/null -J "$tag-arr" --wrap 'exit $((SLURM_ARRAY_TASK_ID == 2))' 2>&1); rc=$?
ida=$out
out=$(mq "$u" -h -r -j "$ida" -o '%i %T %K'); rc2=$?
tap_ok "$([ "$rc" = 1 ] && [ "$rc2" = 0 ] && [ "$out" = "${ida}_1 COMPLETED 1
${ida}_2 FAILED 2
${ida}_3 COMPLETED 3" ]; echo $?)" \
    "an array's tasks with -r -o: each its own state; --wait gives the worst task's code (rc $rc; $(printf '%s' "$out" | tr '\n' ' '))"
out=$(mq "$u" -t WAITING 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && printf '%s' "$out" | grep -q "^msqueue: --states: 'WAITING' is not a job state"; echo $?)" \
    "an unknown state is refused, named (rc $rc: $out)"

# ---- mscancel: scancel's filters, only ever the caller's jobs ----------
for n in a b keep; do
    as "$u" "$msbatch" --parsable -t 10 -o /dev/null -J "$tag-$n" --wrap "sleep 300" > "$d/id.$n" 2>&1
done
ida=$(cat "$d/id.a") idb=$(cat "$d/id.b") idk=$(cat "$d/id.keep")
st () { mq "$u" -h -j "$1" -o %T 2>&1; }
out=$(as "$u2" "$mscancel" -n "$tag-keep" 2>&1); rc=$?
out2=$(as "$u2" "$mscancel" -u "$u" 2>&1); rc2=$?
tap_ok "$([ "$rc" = 0 ] && [ "$rc2" = 0 ] && [ "$(st "$idk")" != CANCELLED ]; echo $?)" \
    "$u2's mscancel -n and -u $u reach none of $u's jobs ($(st "$idk"); $out $out2)"
out=$(as "$u" "$mscancel" -v -n "$tag-a" 2>&1); rc=$?
tap_ok "$([ "$rc" = 0 ] && [ "$out" = "job $ida cancelled" ] \
    && [ "$(st "$ida")" = CANCELLED ] && [ "$(st "$idb")" != CANCELLED ]; echo $?)" \
    "mscancel -n cancels the job of that name only (rc $rc: $out; b $(st "$idb"))"
out=$(as "$u" "$mscancel" -v -t PENDING,RUNNING "$idb" "$idok" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && [ "$(st "$idb")" = CANCELLED ] && [ "$(st "$idk")" != CANCELLED ] \
    && printf '%s\n' "$out" | grep -qx "job $idb cancelled" \
    && printf '%s\n' "$out" | grep -qx "mscancel: job $idok: already completed"; echo $?)" \
    "ids with -t: the live one named is cancelled, the ended one is an error, the one not named stays (rc $rc: $(printf '%s' "$out" | tr '\n' ' '))"
out=$(as "$u" "$mscancel" -Q "$ida" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && [ -z "$out" ]; echo $?)" "-Q: no message for a job already ended, as scancel -Q (rc $rc: $out)"
out=$(as "$u" "$mscancel" -u "$u" -t PD,R 2>&1); rc=$?
tap_ok "$([ "$rc" = 0 ] && [ "$(st "$idk")" = CANCELLED ]; echo $?)" \
    "mscancel -u USER -t PD,R cancels the rest ($(st "$idk"); rc $rc: $out)"
out=$(as "$u" "$mscancel" --signal=USR1 "$idk" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && printf '%s' "$out" | grep -q "^mscancel: job $idk: job $idk is [a-z]*: only a job on a cluster"; echo $?)" \
    "--signal to a job that ended is refused with its state (rc $rc: $out)"
: "$idw" "$ids"
exit $tap_failed
