#!/bin/sh
# The man pages' lists of settings against the one table of settings
# (core/settings_table.c, printed by `metasched config list`): every live
# setting's heading in metasched-config(1) is the one the table makes
# (type, range, default) and the page heads no other; every metaschedd.conf
# number is in metaschedd.conf(5) with its default; every simulator flag is
# in metasched-simulate(1) and its --help. Out-of-range values are refused
# naming the place, the setting and the value (the flag; file:line). No
# daemon is contacted. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
metasched=${MS_BUILDDIR:-.}/metasched/metasched
metaschedd=${MS_BUILDDIR:-.}/metasched/metaschedd
doc=${MS_SRCDIR:-.}/doc
[ -x "$metasched" ] || tap_skip_all "$metasched is not built"
[ -x "$metaschedd" ] || tap_skip_all "$metaschedd is not built"
tmp=$(mktemp -d /tmp/ms-test-setdocs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tab=$(printf '\t')
tap_plan 9

"$metasched" config list --tsv >"$tmp/tsv" 2>"$tmp/err"
rc=$?
n=$(wc -l <"$tmp/tsv")
[ $rc = 0 ] && [ "$n" -gt 40 ]
tap_ok $? "metasched config list --tsv: one line a setting ($n, rc $rc)"

# 1. the headings of metasched-config(1), KEYS, are the table's
"$metasched" config list --man >"$tmp/man" 2>>"$tmp/err"
missing=0
while IFS= read -r line; do
    if ! grep -qxF -- "$line" "$doc/metasched-config.1"; then
        echo "# metasched-config.1 lacks: $line"
        missing=$((missing + 1))
    fi
done <"$tmp/man"
nman=$(wc -l <"$tmp/man")
[ "$nman" -gt 20 ] && [ $missing = 0 ]
tap_ok $? "metasched-config.1 has every live setting's heading ($nman, $missing missing)"

# ...and heads no setting the table lacks
extra=0
for key in $(sed -n 's/^\.BR \([a-z_]*\)\.\{0,1\} .*(\(string\|number\|integer\|boolean\|0 or\|[a-z]* or [a-z]*\)[ ,].*/\1/p' \
    "$doc/metasched-config.1"); do
    grep -q "^$key$tab" "$tmp/tsv" || { echo "# not in the table: $key"; extra=$((extra + 1)); }
done
[ $extra = 0 ]
tap_ok $? "metasched-config.1 heads no setting the table lacks"

# 2. metaschedd.conf(5): every [daemon] number, with its default
bad=0
awk -F"$tab" '$5 ~ /conf/ { print $1 "\t" $3 }' "$tmp/tsv" >"$tmp/conf"
nconf=$(wc -l <"$tmp/conf")
while IFS="$tab" read -r key def; do
    para=$(awk -v k="$key" '$0 == ".B " k { p = 1; next } p && /^\.(TP|SH|SS)/ { exit } p' \
        "$doc/metaschedd.conf.5")
    if [ -z "$para" ]; then
        echo "# metaschedd.conf.5 lacks .B $key"
        bad=$((bad + 1))
    elif ! printf '%s\n' "$para" | tr '\n' ' ' | grep -q "default[^.;]*\b$def\b"; then
        echo "# metaschedd.conf.5: $key's paragraph does not give default $def"
        bad=$((bad + 1))
    fi
done <"$tmp/conf"
[ "$nconf" -gt 8 ] && [ $bad = 0 ]
tap_ok $? "metaschedd.conf.5 has every number of [daemon] with its default ($nconf, $bad wrong)"

# 3. metasched-simulate(1) and simulate --help: every simulator flag
"$metasched" simulate --help >"$tmp/help" 2>&1
bad=0
nflag=0
for flag in $(awk -F"$tab" '$7 != "-" { print $7 }' "$tmp/tsv"); do
    nflag=$((nflag + 1))
    esc=$(printf '%s' "$flag" | sed 's/-/\\\\-/g')
    grep -q -- "$esc" "$doc/metasched-simulate.1" \
        || { echo "# metasched-simulate.1 lacks $flag"; bad=$((bad + 1)); }
    grep -q -- " $flag\b" "$tmp/help" \
        || { echo "# simulate --help lacks $flag"; bad=$((bad + 1)); }
done
[ "$nflag" -gt 12 ] && [ $bad = 0 ]
tap_ok $? "metasched-simulate.1 and --help have every simulator flag ($nflag, $bad missing)"

# 4. out of range, by the flag
"$metasched" simulate --pref-margin 11 -o "$tmp/sim" >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q -- "--pref-margin: bad value '11': pref_margin: 11 is out of range 0..10" "$tmp/out"
tap_ok $? "simulate --pref-margin 11: refused naming the flag, setting and value (rc $rc)"
"$metasched" simulate --sibling-hold=-1 -o "$tmp/sim" >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q -- "--sibling-hold: bad value '-1': sibling_hold: -1 is out of range" "$tmp/out" \
    && [ ! -e "$tmp/sim" ]
tap_ok $? "simulate --sibling-hold=-1: refused before anything runs (rc $rc)"

# 5. out of range, by file:line of metaschedd.conf
printf '[daemon]\ndatabase = dbname=none\n# the API\nthreads = 65\n' >"$tmp/d.conf"
"$metaschedd" -t -f "$tmp/d.conf" >"$tmp/out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "$tmp/d.conf:4: threads: 65 is out of range \[1, 64\]" "$tmp/out"
tap_ok $? "metaschedd.conf threads = 65: refused at file:line (rc $rc: $(head -c 160 "$tmp/out"))"

# 6. config get: a key the table does not have is refused before any call
METASCHED_SERVER=unix:$tmp/none.sock "$metasched" config get w_energy no_such_key \
    >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "unknown setting 'no_such_key'" "$tmp/out"
tap_ok $? "config get no_such_key: refused by the table (rc $rc)"
exit $tap_failed
