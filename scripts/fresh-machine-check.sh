#!/usr/bin/env bash
# Runs the README's two commands on a fresh Debian 12 (bookworm) minbase, the way a new user meets
# the project: makes a chroot with debootstrap, installs only git by hand, copies a clone of this
# repository in, checks what a non-root user is told, then runs ./scripts/demo.sh and
# ./scripts/test.sh as root, and the benchmark smoke (which must include the MuJoCo rows). Prints
# what set-up cost: apt's download size, the disk it took, the wall time of each command.
#
# Usage (as root, on a Debian or Ubuntu host):
#   scripts/fresh-machine-check.sh [ROOT]      ROOT: the chroot's directory, outside the repository
#                                              (default /var/tmp/kktdae-fresh-root; it is wiped)
# Environment: KKTDAE_FRESH_MIRROR (default http://deb.debian.org/debian).
# Logs go to ROOT.logs/; the last lines are the summary. It takes a while: the chroot builds
# everything from scratch, with ccache's cache empty.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/var/tmp/kktdae-fresh-root}
mirror=${KKTDAE_FRESH_MIRROR:-http://deb.debian.org/debian}
logs="$root.logs"

if [[ $(id -u) -ne 0 ]]; then
  echo "fresh-machine-check: debootstrap and chroot need root" >&2
  exit 2
fi
root=$(realpath -m "$root")
case "$root/" in
  "$repo"/*) echo "fresh-machine-check: ROOT ($root) must be outside the repository" >&2; exit 2 ;;
  /) echo "fresh-machine-check: ROOT must not be /" >&2; exit 2 ;;
esac
if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap
fi

mounts=(proc sys dev)
unmount_all() {
  for m in "${mounts[@]}"; do
    mountpoint -q "$root/$m" && umount -l "$root/$m"
  done
  return 0
}
trap unmount_all EXIT
unmount_all
rm -rf "$root" "$logs"
mkdir -p "$logs"

clock() { date +%s; }
elapsed() { local s=$(($2 - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "$1"
}
disk_mb() { du -sxm "$root" | cut -f1; }

echo "== debootstrap --variant=minbase bookworm $root"
t0=$(clock)
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$logs/debootstrap.log" 2>&1
t1=$(clock)
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"

echo "== git, by hand (the only package a user installs before cloning)"
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git" \
  >"$logs/git.log" 2>&1
in_root "apt-get clean"
# The commit under test, as a clone: what a user who cloned the repository has.
commit=$(git -C "$repo" rev-parse HEAD)
git clone -q --no-local "$repo" "$root/root/kktdae"
git -C "$root/root/kktdae" checkout -q --detach "$commit"
disk_before=$(disk_mb)

echo "== a normal user is told the exact apt-get line, with sudo and with su"
in_root "useradd -m user"
git clone -q --no-local "$root/root/kktdae" "$root/home/user/kktdae"
in_root "chown -R user:user /home/user/kktdae"
if in_root "su user -c 'cd ~/kktdae && ./scripts/demo.sh'" >"$logs/nonroot.log" 2>&1; then
  echo "FAIL: demo.sh succeeded for a non-root user on a machine without the packages" >&2
  exit 1
fi
for expected in "sudo apt-get update && sudo apt-get install -y --no-install-recommends" \
                "su -c 'apt-get update && apt-get install -y --no-install-recommends"; do
  if ! grep -qF "$expected" "$logs/nonroot.log"; then
    echo "FAIL: the non-root message lacks: $expected" >&2
    cat "$logs/nonroot.log" >&2
    exit 1
  fi
done
nonroot_first=$(grep -m1 "su -c" "$logs/nonroot.log")

run_timed() {  # name command: runs it as root in the clone, logs it, records the wall time
  local name=$1 command=$2 start end
  echo "== $command"
  start=$(clock)
  if ! in_root "cd /root/kktdae && $command" >"$logs/$name.log" 2>&1; then
    echo "FAIL: $command (log: $logs/$name.log)" >&2
    tail -40 "$logs/$name.log" >&2
    exit 1
  fi
  end=$(clock)
  eval "time_$name=\$(elapsed $start $end)"
}
run_timed demo ./scripts/demo.sh
disk_after_demo=$(disk_mb)
run_timed test ./scripts/test.sh
run_timed bench "./scripts/bench.sh --smoke"
disk_after=$(disk_mb)

grep -q "bench smoke: every benchmark ([1-9][0-9]* MuJoCo rows)" "$logs/bench.log" || {
  echo "FAIL: the benchmark smoke ran without the MuJoCo rows" >&2
  exit 1
}
archives_mb=$(du -sm "$root/var/cache/apt/archives" | cut -f1)
build_mb=$(du -sm "$root/root/kktdae/build" | cut -f1)
{
  echo "== summary (commit $commit)"
  echo "debootstrap minbase:        $(elapsed "$t0" "$t1")"
  echo "non-root user is told:      ${nonroot_first#"${nonroot_first%%[! ]*}"}"
  echo "apt (from demo.sh):         $(grep -m1 '^Need to get' "$logs/demo.log")"
  echo "                            $(grep -m1 '^After this operation' "$logs/demo.log")"
  echo "./scripts/demo.sh:          $time_demo (packages, configure, build of the demo, the run)"
  echo "./scripts/test.sh:          $time_test (the rest of the build, ctest)"
  echo "                            $(grep -m1 'tests passed' "$logs/test.log")"
  echo "./scripts/bench.sh --smoke: $time_bench; $(grep -m1 'bench smoke:' "$logs/bench.log")"
  echo "disk: $disk_before MB before set-up, $disk_after_demo MB after the demo, $disk_after MB at the end"
  echo "      (apt's .deb cache $archives_mb MB, build/ $build_mb MB)"
  echo "load average at the end:    $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
} | tee "$logs/summary.txt"
