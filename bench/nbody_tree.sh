#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Barnes-Hut tree benchmark table: hd-nbody --bench --method=tree (Plummer)
# on a backend, whole leapfrog steps by phase, and the force error of a
# 64-body sample against the direct sum.
#   bench/nbody_tree.sh BIN BACKEND "PRECISION:N:STEPS:THETA ..."
set -u
bin=$1 backend=$2 cases=$3
printf '%-8s %-6s %9s %5s %9s | %8s %8s %8s %8s %8s %8s | %8s\n' backend prec bodies theta "s/step" \
  keys sort cells moments walk update error
for c in $cases; do
  IFS=: read -r prec n steps theta <<EOC
$c
EOC
  out=$("$bin" --bench --method=tree --ic=plummer --backend="$backend" --precision="$prec" --n="$n" --steps="$steps" \
    --theta="$theta" 2>&1) || { echo "FAILED: $backend $c: $(echo "$out" | tail -n 1)"; continue; }
  echo "$out" | awk -v be="$backend" -v p="$prec" -v n="$n" -v th="$theta" -F': ' '
    { k[$1] = $2 }
    END {
      split(k["phase_seconds_per_step"], f, " ")
      split(k["force_error"], e, " ")
      printf "%-8s %-6s %9d %5s %9.4g | %8.3g %8.3g %8.3g %8.3g %8.3g %8.3g | %8.2e\n", be, p, n, th,
        k["seconds_per_step"], f[2], f[4], f[6], f[8], f[10], f[12], e[1] }'
done
