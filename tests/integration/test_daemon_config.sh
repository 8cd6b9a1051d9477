#!/bin/sh
# metaschedd refuses a bad configuration with file:line and a non-zero
# exit: unknown key, wrong type, a password or token file with loose
# permissions, an unreachable database or slurmrestd; a good one passes
# -t; GPU profiles (gpu_profiles) that cannot be read or have a bad line
# are refused naming both files' lines, good ones pass -t; SIGHUP with a
# bad file keeps the old configuration (and says why),
# SIGTERM stops cleanly. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_plan 17

# refused CONF PATTERN DESCRIPTION: exit 1 and PATTERN in the message
refused () {
    out=$("$msd" -t -f "$1" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -q -- "$2"
    tap_ok "$([ $? = 0 ] && [ $rc = 1 ] && echo 0 || echo 1)" "$3 (rc $rc: $out)"
}
line_of () { grep -n "^$2" "$1" | head -1 | cut -d: -f1; }

c=$dtmp/good.conf
write_conf "$c"
out=$("$msd" -t -f "$c" 2>&1); rc=$?
tap_ok "$([ $rc = 0 ] && echo 0 || echo 1)" "a good configuration passes -t (rc $rc: $out)"

write_conf "$dtmp/k.conf" "cycle_secs = 5"
refused "$dtmp/k.conf" "k.conf:$(line_of "$dtmp/k.conf" cycle_secs): unknown key 'cycle_secs'" \
    "an unknown key is refused with file:line"

write_conf "$dtmp/t.conf"
sed -i 's/^cycle_s = .*/cycle_s = fast/' "$dtmp/t.conf"
refused "$dtmp/t.conf" "t.conf:$(line_of "$dtmp/t.conf" cycle_s): cycle_s: 'fast' is not a number" \
    "a word where seconds belong is refused with file:line"

write_conf "$dtmp/b.conf" "allow_partition = maybe"
refused "$dtmp/b.conf" "b.conf:$(line_of "$dtmp/b.conf" allow_partition): allow_partition: 'maybe' is not a boolean" \
    "a boolean that is none is refused with file:line"

write_conf "$dtmp/l.conf" "log = journal"
refused "$dtmp/l.conf" "l.conf:$(line_of "$dtmp/l.conf" log): log: 'journal' is not one of stderr, syslog" \
    "an unknown log target is refused"

write_conf "$dtmp/s.conf" "[scheduler]"
refused "$dtmp/s.conf" "s.conf:$(line_of "$dtmp/s.conf" '\[scheduler'): unknown section \[scheduler\]" \
    "an unknown section is refused"

printf 'sekritpw42\n' > "$dtmp/pw"; chmod 644 "$dtmp/pw"
write_conf "$dtmp/p.conf" "password_file = $dtmp/pw"
refused "$dtmp/p.conf" "p.conf:$(line_of "$dtmp/p.conf" password_file): password_file: $dtmp/pw has mode 0644" \
    "a password file readable by others is refused"
printf '%s\n' "$out" | grep -q sekritpw42
tap_ok "$([ $? = 1 ] && echo 0 || echo 1)" "the password itself is never printed"

# a cluster whose token file is readable by others
cp "$MS_ALPHA_TOKEN_FILE" "$dtmp/alpha.token"; chmod 640 "$dtmp/alpha.token"
sed "s|^token_file = $MS_ALPHA_TOKEN_FILE\$|token_file = $dtmp/alpha.token|" "$MS_CLUSTERS_CONF" > "$dtmp/cl-tok.conf"
DAEMON_CLUSTERS_CONF=$dtmp/cl-tok.conf write_conf "$dtmp/tok.conf"
refused "$dtmp/tok.conf" "cl-tok.conf:$(line_of "$dtmp/cl-tok.conf" '\[cluster alpha'): token_file: $dtmp/alpha.token has mode 0640" \
    "a slurmrestd token file readable by others is refused, naming the cluster's line"
printf '%s\n' "$out" | grep -q "$(head -c 20 "$MS_ALPHA_TOKEN_FILE")"
tap_ok "$([ $? = 1 ] && echo 0 || echo 1)" "the token itself is never printed"

# GPU profiles: a bad value names the profile's line after the daemon's
printf '[app lu]\ngpus_per_node = 2\ngpu_busy_power_w = lots\n' > "$dtmp/gp-bad.conf"
write_conf "$dtmp/gp.conf" "gpu_profiles = $dtmp/gp-bad.conf"
refused "$dtmp/gp.conf" "gp.conf:$(line_of "$dtmp/gp.conf" gpu_profiles): gpu_profiles: $dtmp/gp-bad.conf:3: gpu_busy_power_w: watts above 0 (at most 10000), not 'lots'" \
    "a GPU profile with a bad value is refused, naming both lines"
write_conf "$dtmp/gp2.conf" "gpu_profiles = $dtmp/no-such-profiles.conf"
refused "$dtmp/gp2.conf" "gp2.conf:$(line_of "$dtmp/gp2.conf" gpu_profiles): gpu_profiles: $dtmp/no-such-profiles.conf: No such file" \
    "GPU profiles that are not there are refused"
printf '[app lu]\ngpu_busy_power_w = 300\ngpu_time = a100:0.8\n' > "$dtmp/gp-good.conf"
write_conf "$dtmp/gp3.conf" "gpu_profiles = $dtmp/gp-good.conf"
out=$("$msd" -t -f "$dtmp/gp3.conf" 2>&1); rc=$?
tap_ok "$([ $rc = 0 ] && echo 0 || echo 1)" "good GPU profiles pass -t (rc $rc: $out)"

# an unreachable database: a port where nothing listens
write_conf "$dtmp/db.conf"
sed -i "s|^database = .*|database = host=127.0.0.1 port=1 dbname=metasched user=ms_daemon connect_timeout=2|" "$dtmp/db.conf"
refused "$dtmp/db.conf" "db.conf:$(line_of "$dtmp/db.conf" database): database: cannot connect to PostgreSQL" \
    "an unreachable database refuses the start with file:line"

# an unreachable slurmrestd
sed "s|^url        = $MS_BETA_URL\$|url = http://127.0.0.1:1|" "$MS_CLUSTERS_CONF" > "$dtmp/cl-down.conf"
DAEMON_CLUSTERS_CONF=$dtmp/cl-down.conf write_conf "$dtmp/down.conf"
refused "$dtmp/down.conf" "cl-down.conf:$(line_of "$dtmp/cl-down.conf" '\[cluster beta'): \[cluster beta\]: http://127.0.0.1:1 is unreachable" \
    "-t names an unreachable slurmrestd with its cluster's line (the daemon itself starts: test_daemon_start_down.sh)"

# SIGHUP with a broken file: the daemon keeps running on the old one
daemon_lock
log=$dtmp/hup.log
write_conf "$dtmp/hup.conf"
start_daemon "$dtmp/hup.conf" "$log"
wait_for 20 test -S "$dtmp/msd.sock"
echo "bogus_key = 1" >> "$dtmp/hup.conf"
kill -HUP "$daemon_pid"
wait_for 20 grep -q "new configuration refused, keeping the old one: .*hup.conf:[0-9]*: unknown key 'bogus_key'" "$log"; r=$?
sleep 0.5
kill -0 "$daemon_pid" 2>/dev/null && [ -S "$dtmp/msd.sock" ]; r2=$?
tap_ok "$([ $r = 0 ] && [ $r2 = 0 ] && echo 0 || echo 1)" "SIGHUP with a bad file: logged why, still serving ($(tail -1 "$log"))"

kill -TERM "$daemon_pid"
wait "$daemon_pid"; rc=$?
tap_ok "$([ $rc = 0 ] && [ ! -e "$dtmp/msd.sock" ] && echo 0 || echo 1)" "SIGTERM: clean exit 0, socket removed (rc $rc)"
