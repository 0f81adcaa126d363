#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer harnesses with clang (ASan + UBSan) and run each for
# SECONDS (default 60) from its seed corpus; a crash fails and leaves the
# reproducer in tests/fuzz/crashes/.  Usage: sh tests/fuzz/run.sh [SECONDS]
set -eu
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${FUZZ_OUT:-$(mktemp -d)}
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$top/include -I$top/drivers/common -I$top/drivers"
mkdir -p "$here/crashes"
status=0
for h in input bodies checkpoint tea; do
  case $h in
    input) srcs="$top/drivers/common/cli.c" ;;
    bodies) srcs="$top/drivers/nbody/bodies.c" ;;
    checkpoint) srcs="$top/drivers/common/checkpoint.c $top/drivers/common/output.c" ;;
    tea) srcs="$top/drivers/heat/tea.c $top/drivers/common/dialect.c" ;;
  esac
  srcs="$srcs $top/drivers/common/input_file.c" # every reader opens its files through it
  # shellcheck disable=SC2086
  clang $flags -o "$out/fuzz_$h" "$here/fuzz_$h.c" $srcs -lm
  mkdir -p "$out/corpus_$h"
  cp "$here/corpus/$h"/* "$out/corpus_$h/" 2>/dev/null || true
  if ! "$out/fuzz_$h" -max_total_time="$secs" -rss_limit_mb=1024 -max_len=4096 \
      -artifact_prefix="$here/crashes/${h}_" "$out/corpus_$h" >"$out/fuzz_$h.log" 2>&1; then
    echo "fuzz_$h: FAILED (see tests/fuzz/crashes/)"
    tail -n 30 "$out/fuzz_$h.log"
    status=1
  else
    echo "fuzz_$h: $(grep -E '^Done|#[0-9]+.*DONE' "$out/fuzz_$h.log" | tail -n 1)"
  fi
done
exit $status
