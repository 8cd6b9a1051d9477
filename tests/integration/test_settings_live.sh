#!/bin/sh
# The settings table against a real metaschedd on the test bed: the keys
# the daemon shows are the table's live rows with their defaults
# (`metasched config list --tsv`); `config get` prints the keys asked; a
# value out of a row's range is refused over HTTP naming the key and the
# value (400) and changes nothing; a value at a row's end is taken and read
# back. The daemon runs on a scratch database with a private socket. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
[ -x "${MS_METASCHEDD:-$MS_BUILDDIR/metasched/metaschedd}" ] \
    || tap_skip_all "metaschedd is not built (${MS_METASCHEDD:-$MS_BUILDDIR/metasched/metaschedd})"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (an admin) and $MS_TEST_USER (not one)"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"
command -v psql >/dev/null || tap_skip_all "psql not installed (postgresql-client-15)"

tmp=$(mktemp -d /tmp/ms-test-settab.XXXXXX)
chmod 755 "$tmp"
. "${MS_SRCDIR:-.}/tests/integration/scratch_lib.sh"
trap scratch_cleanup EXIT
scratch_db ms_test_settab_$$ sync

tap_plan 7

scratch_daemon_conf >"$tmp/metaschedd.conf"

scratch_daemon_start 1 7
tap_ok 0 "metaschedd serves its socket"

tab=$(printf '\t')
"$ms" config list --tsv | awk -F"$tab" '$5 ~ /live/ && $1 != "power_cap_w" { print $1 "\t" $2 "\t" $3 "\t" $4 }' \
    | sort >"$tmp/live"
out=$(as root config 2>&1); rc=$?
printf '%s\n' "$out" | sed -n 's/^\([a-z_]*\) *= \(.*\)$/\1\t\2/p' | sort >"$tmp/shown"
# the keys shown are the table's, each with the table's default
bad=0
nlive=$(wc -l <"$tmp/live")
while IFS="$tab" read -r key type def range; do
    v=$(sed -n "s/^$key$tab//p" "$tmp/shown")
    if [ -z "$v" ]; then
        echo "# the daemon does not show $key"
        bad=$((bad + 1))
    elif [ "$type" = text ] && [ "$v" = null ]; then
        : # a text setting not set live: metaschedd.conf's holds (none here)
    elif [ "$v" != "$def" ] && ! awk -v a="$v" -v b="$def" 'BEGIN { exit !(a + 0 == b + 0 && a ~ /^[0-9.e+-]+$/) }'; then
        echo "# $key: the daemon shows $v, the table's default is $def"
        bad=$((bad + 1))
    fi
done <"$tmp/live"
nshown=$(wc -l <"$tmp/shown")
tap_ok "$(ok "$rc" = 0 -a "$bad" = 0 -a "$nshown" = "$nlive" -a "$nlive" -gt 20)" \
    "the daemon shows the table's $nlive live settings with their defaults (rc $rc, $nshown shown, $bad wrong)"

out=$(as root config get max_reroutes w_energy 2>&1); rc=$?
tap_ok "$(ok "$rc" = 0 -a "$(value max_reroutes)" = 1 -a "$(value w_energy)" = 0.5 -a "$(printf '%s\n' "$out" | wc -l)" = 2)" \
    "config get prints the keys asked (rc $rc: $(one "$out"))"

out=$(as root config get max_reroutes bogus_key 2>&1); rc=$?
tap_ok "$(ok "$rc" = 2 -a -n "$(printf '%s' "$out" | grep "unknown setting 'bogus_key'")")" \
    "config get refuses a key the table lacks (rc $rc: $(one "$out"))"

# every number or integer row, one past its top (or below its bottom):
# refused, naming the key and the value, HTTP 400, nothing changed
bad=0
n=0
while IFS="$tab" read -r key type def range; do
    case $type in number|integer) ;; *) continue ;; esac
    case $range in
        *..*) v=$(awk -v r="${range#0 or }" -v t="$type" 'BEGIN { split(r, a, /\.\./); print (t == "integer") ? a[2] + 1 : a[2] * 2 + 1 }') ;;
        *) v=-1 ;;
    esac
    n=$((n + 1))
    out=$(as root config set "$key=$v" 2>&1); rc=$?
    if [ "$rc" != 1 ] || ! printf '%s' "$out" | grep -q "setting '$key'.*out of range.*HTTP 400"; then
        echo "# $key=$v: rc $rc: $(one "$out")"
        bad=$((bad + 1))
    fi
done <"$tmp/live"
out=$(as root config 2>&1)
printf '%s\n' "$out" | sed -n 's/^\([a-z_]*\) *= \(.*\)$/\1\t\2/p' | sort >"$tmp/after"
cmp -s "$tmp/shown" "$tmp/after"; same=$?
tap_ok "$(ok "$bad" = 0 -a "$n" -gt 15 -a "$same" = 0)" \
    "$n out-of-range values refused with key, value and HTTP 400; nothing changed ($bad wrong)"

out=$(as root config set pref_margin=10 max_reroutes=1000 refit_interval_s=0 siblings=8 2>&1); rc=$?
pm=$(value pref_margin)
tap_ok "$(ok "$rc" = 0 -a "${pm%.0}" = 10 -a "$(value max_reroutes)" = 1000 -a "$(value siblings)" = 8)" \
    "values at the ends of their ranges are taken and read back (rc $rc: pref_margin $pm)"

out=$(as root config set max_reroutes=1001 2>&1); rc=$?
tap_ok "$(ok "$rc" = 1 -a -n "$(printf '%s' "$out" | grep "setting 'max_reroutes': 1001 is out of range 0..1000")")" \
    "max_reroutes=1001: the message names key, value and range (rc $rc: $(one "$out"))"
exit $tap_failed
