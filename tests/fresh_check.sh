#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A newcomer's first hour, proved: a minimal root of a fresh distribution
# (debootstrap --variant=minbase: the base system and nothing else), a clean
# clone of this repository's HEAD in it, and README.md's quick-start
# commands run there one after the other, exactly as the README prints
# them, as root.  Each command's status and time are reported; the exit
# status is 0 only when all succeed.
#   sh tests/fresh_check.sh [SUITE [MIRROR]]    (make fresh-check)
# SUITE: bookworm (Debian 12, default) or noble (Ubuntu 24.04, needs
# ubuntu-keyring).  Needs root, debootstrap, git and the distribution's
# mirror; takes ~15 minutes on two cores, most of it the test suite.
set -u
suite=${1:-bookworm}
case $suite in
  noble) mirror=${2:-http://archive.ubuntu.com/ubuntu}
    script=/usr/share/debootstrap/scripts/gutsy keyring=--keyring=/usr/share/keyrings/ubuntu-archive-keyring.gpg
    components=--components=main,universe ;;
  *) mirror=${2:-http://deb.debian.org/debian} script="" keyring="" components="" ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh-check: needs root (debootstrap, chroot)"; exit 2; }
for tool in debootstrap git chroot; do
  command -v $tool >/dev/null || { echo "fresh-check: needs $tool (apt-get install $tool)"; exit 2; }
done
git -C "$src" rev-parse HEAD >/dev/null 2>&1 || { echo "fresh-check: $src is not a git checkout"; exit 2; }
root=$(mktemp -d /var/tmp/hd-fresh.XXXXXX) || exit 2
cleanup() {
  umount "$root/proc" "$root/dev" 2>/dev/null
  rm -rf "$root"
}
trap cleanup EXIT INT TERM
echo "fresh-check: $suite from $mirror into $root"
t0=$(date +%s)
# shellcheck disable=SC2086
if ! debootstrap --variant=minbase $keyring $components "$suite" "$root" "$mirror" $script >"$root.log" 2>&1; then
  tail -n 20 "$root.log"
  echo "fresh-check: debootstrap failed"
  exit 2
fi
rm -f "$root.log"
echo "fresh-check: minimal root in $(($(date +%s) - t0)) s ($(chroot "$root" dpkg-query -W | wc -l) packages)"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" || exit 2
git clone -q "$src" "$root/root/hd" || exit 2
echo "fresh-check: clean clone of $(git -C "$src" rev-parse --short HEAD)"
sh "$src/tests/readme_commands.sh" "$root/root/hd/README.md" >"$root/root/commands"
status=0
k=0
while IFS= read -r cmd; do
  k=$((k + 1))
  t0=$(date +%s)
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive /bin/sh -c "cd /root/hd && $cmd" >"$root/root/log$k" 2>&1 </dev/null
  rc=$?
  echo "fresh-check: README command $k: exit $rc after $(($(date +%s) - t0)) s"
  tail -n 3 "$root/root/log$k" | sed 's/^/    /'
  [ $rc -eq 0 ] || { status=1; tail -n 40 "$root/root/log$k"; }
done <"$root/root/commands"
[ -s "$root/root/hd/heat.png" ] && echo "fresh-check: heat.png is there ($(wc -c <"$root/root/hd/heat.png") bytes)"
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$root/root/hd/test-suite.log" 2>/dev/null | sed 's/^/    /'
[ $status -eq 0 ] && echo "fresh-check: passed" || echo "fresh-check: FAILED"
exit $status
