#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The commands of README.md's "Quick start", one a line, as a newcomer
# copies them: CI and the fresh-machine check run exactly these, so neither
# can drift from the text.
awk '/^## /{ inside = ($0 == "## Quick start") } inside && /^    [^ ]/{ sub(/^    /, ""); print }' \
  "${1:-$(dirname "$0")/../README.md}"
