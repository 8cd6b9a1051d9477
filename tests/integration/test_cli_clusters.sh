#!/bin/sh
# `metasched clusters` against the test bed, and its errors on bad input.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
ms=$MS_BUILDDIR/metasched/metasched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 7

out=$("$ms" clusters -c "$MS_CLUSTERS_CONF" 2>&1); rc=$?
tap_ok "$([ $rc = 0 ] && echo 0 || echo 1)" "clusters answers for the test bed (rc $rc)"
n=$(printf '%s\n' "$out" | grep -c '^      up: nodes')
tap_ok "$([ "$n" = 4 ] && echo 0 || echo 1)" "four partitions up on three clusters (saw $n)"

# each cluster speaks the newest version it serves (the test bed says which
# it serves: MS_<C>_REST_VERSIONS, oldest first), but 23.02's v0.0.39 (a
# draft: its slurmrestd exits on a job's nice) where v0.0.38 serves too
bad=
for c in $MS_CLUSTERS; do
    C=$(echo "$c" | tr a-z A-Z)
    eval served=\${MS_${C}_REST_VERSIONS:-v0.0.38}
    want=${served##* }
    case " $served " in *" v0.0.38 v0.0.39 "*) [ "$want" = v0.0.39 ] && want=v0.0.38 ;; esac
    got=$(printf '%s\n' "$out" | sed -n "/^$c (/,/^[a-z]/s/^  OpenAPI \(v[0-9.]*\) (negotiated)$/\1/p" | head -1)
    [ "$got" = "$want" ] || bad="$bad $c:$got(want $want)"
done
tap_ok "$([ -z "$bad" ] && echo 0 || echo 1)" "each cluster negotiated the newest version it serves (v0.0.38 over a draft v0.0.39)${bad:+:$bad}"

# api_version pins: the oldest version alpha serves, used as it is
eval served=\${MS_ALPHA_REST_VERSIONS:-v0.0.38}
oldest=${served%% *}
awk -v v="$oldest" '{print} /^\[cluster alpha\]$/ {print "api_version = " v}' "$MS_CLUSTERS_CONF" > "$tmp/pin.conf"
out=$("$ms" clusters -c "$tmp/pin.conf" 2>&1); rc=$?
printf '%s\n' "$out" | grep -A1 '^alpha (' | grep -qx "  OpenAPI $oldest (pinned)"
tap_ok "$([ $? = 0 ] && [ $rc = 0 ] && echo 0 || echo 1)" "api_version = $oldest pins alpha's version (rc $rc)"

sed 's/^nodes        = 4$/nodes = 4\nfrequncy = 1/' "$MS_CLUSTERS_CONF" > "$tmp/bad.conf"
out=$("$ms" clusters -c "$tmp/bad.conf" 2>&1); rc=$?
line=$(grep -n '^frequncy' "$tmp/bad.conf" | cut -d: -f1)
printf '%s\n' "$out" | grep -q "^metasched clusters: $tmp/bad.conf:$line: unknown key 'frequncy'"
tap_ok "$([ $? = 0 ] && [ $rc = 1 ] && echo 0 || echo 1)" "a misspelt key names file:line (rc $rc: $out)"

sed "s|^url        = $MS_ALPHA_URL\$|url = http://127.0.0.1:1|" "$MS_CLUSTERS_CONF" > "$tmp/down.conf"
out=$("$ms" clusters -c "$tmp/down.conf" 2>&1); rc=$?
printf '%s\n' "$out" | grep -q "unreachable: cluster alpha: negotiating the OpenAPI version: GET http://127.0.0.1:1/slurm/v0.0.46/ping: Couldn't connect"
tap_ok "$([ $? = 0 ] && [ $rc = 1 ] && echo 0 || echo 1)" "an unreachable cluster is named, the others still answer (rc $rc)"

"$ms" clusters --bogus >/dev/null 2>&1; rc=$?
tap_ok "$([ $rc = 2 ] && echo 0 || echo 1)" "an unknown option is a usage error (rc $rc)"
