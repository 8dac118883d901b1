#!/usr/bin/env bash
# bench-remount.sh - hyperfine --prepare step of scripts/bench for the first
# pass through a fresh mount: unmount MNT if it is mounted, mount SRC there
# again, wait until index.json reads, and with "drop" also drop the kernel's
# caches (the sources' pages included) so the pass starts cold everywhere.
#
#   scripts/bench-remount.sh SKILLSFS MNT SRC [drop]
set -euo pipefail
skillsfs=$1 mnt=$2 src=$3 drop=${4:-}

mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; }

if mounted "$mnt"; then
	fusermount3 -u "$mnt" 2>/dev/null || {
		sleep 0.1
		fusermount3 -u "$mnt"
	}
fi
"$skillsfs" "$mnt" --skills-dir "$src"
for _ in $(seq 3000); do
	head -c 12 "$mnt/index.json" 2>/dev/null | grep -q '^{"skills":\[' && break
	sleep 0.01
done
head -c 12 "$mnt/index.json" | grep -q '^{"skills":\[' || {
	echo "bench-remount: $mnt did not become ready" >&2
	exit 1
}
if [ "$drop" = drop ]; then
	sync
	echo 3 >/proc/sys/vm/drop_caches
fi
