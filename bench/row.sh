# SPDX-License-Identifier: BSD-3-Clause
# One benchmark row for any driver (sourced by the table scripts): the
# label's columns, then the common keys of its --bench summary (rate, the
# measured ceiling's fraction) and, where the module has one, its own key.
#   bench_row "LABEL COLUMNS" "SUMMARY" [EXTRA_KEY]
bench_header() { # label header columns
  printf '%s %14s %-16s %8s\n' "$1" rate unit "of ceiling"
}
bench_row() {
  printf '%s\n' "$2" | awk -v label="$1" -v extra="${3:-}" -F': ' '
    { k[$1] = $2 }
    END {
      split(k["rate"], r, " ")
      f = k["fraction_of_ceiling"] == "" ? "-" : sprintf("%.1f%%", 100 * k["fraction_of_ceiling"])
      printf "%s %14.4g %-16s %8s", label, r[1], r[2], f
      if (extra != "") printf " %s", k[extra]
      printf "\n"
    }'
}
