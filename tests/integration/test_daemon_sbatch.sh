#!/bin/sh
# Users' batch scripts end to end on the test bed: sbatch's options go
# through msbatch, the API and metaschedd to the cluster the job lands on,
# and that cluster's own scontrol shows each of them recorded as sbatch
# would have. The everyday script of a new user (account, memory, mail,
# array, time) lands where its account and memory exist and completes; a
# script carrying many options (mail, comment beside metasched's tag, nice,
# no-requeue, open-mode, signal, wckey, hint, deadline, memory, constraint)
# completes with each recorded or seen at work; every script of the corpus
# tests/data/scripts is either routed by --test-only or refused with the
# reason, never with an unknown option or a crash. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
sbatch_cleanup () {
    [ -n "${restore:-}" ] && cfg set "priority_boost=$restore" >/dev/null 2>&1
    daemon_cleanup
}
trap sbatch_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 23

log=$dtmp/msd.log
write_conf "$dtmp/msd.conf"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
tap_ok "$(ok_if wait_for 10 grep -q 'leading: this instance now schedules' "$log")" \
    "the daemon starts and leads"

u=$MS_TEST_USER
d=$(job_dir "$u")
idof () { printf '%s' "$1" | sed -n 's/^Submitted meta job \([0-9][0-9]*\)$/\1/p'; }
done_state () { [ "$(q "SELECT state FROM jobs WHERE id = $1")" = completed ]; }
# show JOBID: the cluster job's record, as the cluster's own scontrol shows
# it (of an array, its first task's)
show () { on_cluster "$cl" scontrol show job "$1" 2>&1 | sed '/^ *$/q'; }
# field NAME: the value of NAME= in $sj (the rest of the line for Comment)
field () {
    if [ "$1" = Comment ]; then
        printf '%s\n' "$sj" | sed -n 's/^ *Comment=\(.*[^ ]\) *$/\1/p'
    else
        printf '%s\n' "$sj" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1
    fi
}

# until its first cycle the daemon has no predictions (503): wait for it
printf '#!/bin/sh\ntrue\n' > "$d/ready.sh"
chmod 755 "$d/ready.sh"
daemon_answers "$u" "$d" ready.sh

# ---- 1. the everyday script of the issue, with a command that exists ----
sed 's#^srun ./a.out$#srun hostname#' "$MS_SRCDIR/tests/data/scripts/misc_everyday.sh" > "$d/real.sh"
chmod 755 "$d/real.sh"
out=$(msb "$u" "$d" real.sh 2>&1); id1=$(idof "$out")
tap_ok "$(ok_if [ -n "$id1" ])" "the everyday script (account, --mem=4G, mail, array, time) is accepted ($out)"
[ -n "$id1" ] && wait_for 180 done_state "$id1"; r=$?
row=$(q "SELECT cluster, cluster_job_id, time_limit_min FROM jobs WHERE id = ${id1:-0}")
IFS='|' read -r cl cjid lim <<EOR
$row
EOR
tap_ok "$r" "it completes ($(q "SELECT state, cluster, partition, cluster_job_id, last_error FROM jobs WHERE id = ${id1:-0}"))"
# beta alone has the account physics (slurmdbd, enforced) and 4 GiB a node
tap_ok "$(ok_if [ "$cl" = beta ])" "it lands on beta, where its account and memory exist (cluster '$cl')"
sj=$(show "$cjid")
v="$(field JobName)|$(field Account)|$(field MinMemoryNode)|$(field MailType)|$(field Comment)"
# the tag (metasched:ID:DISPATCH.COPY:MAC) with its MAC taken out
vt=$(printf '%s' "$v" | sed 's/|metasched:\([0-9]*\):[0-9]*\.[0-9]*:[0-9a-f]\{32\}$/|metasched:\1/')
tap_ok "$(ok_if [ "$vt" = "sim|physics|4G|END|metasched:$id1" ])" \
    "$cl job $cjid: name, account, memory, mail type and tag as asked ($v)"
tl=$(field TimeLimit)
tap_ok "$(if [ "$tl" = "$(printf '%02d:%02d:00' $((lim / 60)) $((lim % 60)))" ] && [ "${lim:-0}" -ge 60 ]; then echo 0; else echo 1; fi)" \
    "$cl job $cjid: the time limit is the row's, at least the user's hour ($tl, row $lim min)"
h=$(hostname)
outs=$(ls "$d"/slurm-"$cjid".out "$d"/slurm-"$cjid"_*.out 2>/dev/null)
tap_ok "$(if [ -n "$outs" ] && [ "$(cat $outs | grep -cvx "$h")" = 0 ]; then echo 0; else echo 1; fi)" \
    "srun ran in the job: each output holds the node's host name ($(cat $outs 2>/dev/null | sort | uniq -c | tr '\n' ' '))"
# one meta job per array, routed as one Slurm array (the issue's promise)
tasks=$(on_cluster "$cl" squeue -h -a -t all -r -j "$cjid" -o '%K:%T' 2>/dev/null | sort -t: -k1n | tr '\n' ' ')
want=
for t in $(seq 1 10); do want="$want$t:COMPLETED "; done
tap_ok "$(ok_if [ "$tasks" = "$want" ])" \
    "$cl job $cjid is a Slurm array of tasks 1-10, each COMPLETED ($tasks)"

# ---- 2. a script carrying many options ----
# The priority boost sets a pending job's priority, and Slurm then shows
# that job's nice as 0 (its priority is fixed from then on): off for this
# job, whose --nice is checked.
restore=$(cfg_value priority_boost)
cfg set priority_boost=no >/dev/null 2>&1
cat > "$d/carried.sh" <<'EOS'
#!/bin/bash
#SBATCH --job-name=carried --time=00:03:00
#SBATCH --mail-type=BEGIN,END,FAIL --mail-user=someone@example.org
#SBATCH --comment="my run 7"
#SBATCH --nice=50 --no-requeue --open-mode=append
#SBATCH --signal=USR1@150 --wckey=projx --hint=nomultithread
#SBATCH --deadline=now+7days
#SBATCH --mem=1000 --constraint=ib
#SBATCH --output=carried.out
echo "job $SLURM_JOB_ID"
# --signal without B: signals the steps, not the batch shell
srun sh -c 'trap "echo step got USR1; exit 0" USR1; sleep 600 & wait'
EOS
chmod 755 "$d/carried.sh"
# --open-mode=append keeps what the output file held
echo "an earlier line" > "$d/carried.out"
chown "$u" "$d/carried.out"
out=$(msb "$u" "$d" carried.sh 2>&1); id2=$(idof "$out")
tap_ok "$(ok_if [ -n "$id2" ])" "a script carrying many options is accepted ($out)"
[ -n "$id2" ] && wait_for 300 done_state "$id2"; r=$?
row=$(q "SELECT cluster, cluster_job_id FROM jobs WHERE id = ${id2:-0}")
cl=${row%%|*} cjid=${row#*|}
tap_ok "$r" "it completes ($(q "SELECT state, cluster, partition, cluster_job_id, last_error FROM jobs WHERE id = ${id2:-0}"))"
sj=$(show "$cjid")
tap_ok "$(ok_if [ "$(field JobState)" = COMPLETED ])" "$cl job $cjid is COMPLETED ($(field JobState))"
v="$(field MailType)|$(field MailUser)"
tap_ok "$(ok_if [ "$v" = "BEGIN,END,FAIL|someone@example.org" ])" "--mail-type and --mail-user recorded ($v)"
v=$(field Comment)
# the tag (metasched:ID:DISPATCH.COPY:MAC), then the user's words
vt=$(printf '%s' "$v" | sed 's/^metasched:\([0-9]*\):[0-9]*\.[0-9]*:[0-9a-f]\{32\} /metasched:\1 /')
tap_ok "$(ok_if [ "$vt" = "metasched:$id2 my run 7" ])" "the user's --comment follows metasched's tag ($v)"
nice=$(field Nice)
tap_ok "$(if [ "${nice:-0}" -ge 50 ] && [ "$(field Requeue)" = 0 ]; then echo 0; else echo 1; fi)" \
    "--nice=50 under metasched's and --no-requeue recorded (Nice=$nice Requeue=$(field Requeue))"
v="$(field MinMemoryNode)|$(field Features)"
tap_ok "$(ok_if [ "$v" = "1000M|ib" ])" "--mem=1000 and --constraint=ib recorded ($v)"
# what sbatch makes of --hint=nomultithread: one thread a core
v=$(field ReqB:S:C:T)
tap_ok "$(ok_if [ "$v" = "0:0:*:1" ])" "--hint=nomultithread recorded as one thread a core (ReqB:S:C:T=$v)"
# the deadline: v0.0.38 takes it relative to the submission
dl=$(field Deadline)
want=$(q "SELECT (options->>'deadline')::bigint FROM jobs WHERE id = ${id2:-0}")
got=$(date -d "$dl" +%s 2>/dev/null)
diff=$(( ${got:-0} - ${want:-0} ))
tap_ok "$(if [ -n "$want" ] && [ "${diff#-}" -le 120 ]; then echo 0; else echo 1; fi)" \
    "--deadline=now+7days recorded (Deadline=$dl, asked $(date -d "@${want:-0}" +%FT%T))"
v=$(on_cluster "$cl" squeue -h -a -t all -j "$cjid" -O WCKey 2>&1 | tr -d ' ')
tap_ok "$(ok_if [ "$v" = projx ])" "--wckey recorded ($v)"
o=$(cat "$d/carried.out" 2>/dev/null)
tap_ok "$(ok_if [ "$(printf '%s\n' "$o" | head -2 | tr '\n' '|')" = "an earlier line|job $cjid|" ])" \
    "--open-mode=append: the file's earlier line stays, the job's follow ($(printf '%s' "$o" | tr '\n' '|'))"
tap_ok "$(ok_if [ "$(printf '%s\n' "$o" | grep -c '^step got USR1$')" = 1 ])" \
    "--signal=USR1@150 reached the job's step before its end"
# no licenses: the test bed's clusters define none

# ---- 3. the corpus: every script routes or is refused with its reason ----
routed=0 refused=0 bad= why=
for f in "$MS_SRCDIR"/tests/data/scripts/*.sh; do
    b=$(basename "$f")
    cp "$f" "$d/$b" && chown "$u" "$d/$b"
    out=$(msb "$u" "$d" --test-only "$b" 2>&1); rc=$?
    case $out in
    *"nknown option"* | *"AddressSanitizer"* | *"runtime error"*) bad="$bad $b(rc $rc: $(printf '%s' "$out" | head -2 | tr '\n' ' '))"; continue ;;
    esac
    if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '^\* '; then
        routed=$((routed + 1))
    elif [ "$rc" = 1 ] && printf '%s\n' "$out" | grep -q '^msbatch: .'; then
        refused=$((refused + 1))
        why="$why
# $b: $(printf '%s\n' "$out" | grep '^msbatch: ' | head -1)"
    elif [ "$rc" = 0 ] && printf '%s\n' "$out" | sed -n '/^excluded:$/,$p' | grep -q '^  [a-z].*: .'; then
        refused=$((refused + 1))
        why="$why
# $b: excluded everywhere: $(printf '%s\n' "$out" | sed -n '/^excluded:$/,$p' | sed 1d | tr '\n' ';')"
    else
        bad="$bad $b(rc $rc: $(printf '%s' "$out" | head -2 | tr '\n' ' '))"
    fi
done
n=$(ls "$MS_SRCDIR"/tests/data/scripts/*.sh | wc -l)
printf '%s\n' "$why" | sed '/^$/d'
echo "# corpus: $routed of $n scripts route on the test bed, $refused refused with their reason"
tap_ok "$(if [ -z "$bad" ] && [ $((routed + refused)) = "$n" ]; then echo 0; else echo 1; fi)" \
    "each of the $n corpus scripts routes ($routed) or is refused with its reason ($refused)${bad:+; neither:$bad}"
tap_ok "$(if [ "$routed" -gt 0 ] && msb "$u" "$d" --test-only misc_everyday.sh 2>&1 | grep -q '^\* beta '; then echo 0; else echo 1; fi)" \
    "the corpus's everyday script routes to beta with --test-only"

tap_ok "$(ok_if test "$(grep -c 'next try in' "$log")" = 0)" "no cluster was ever unreachable meanwhile"
