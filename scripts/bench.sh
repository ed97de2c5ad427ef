#!/usr/bin/env bash
# Runs parley-bench under a memory limit (default 4G, PARLEY_BENCH_MEMORY_MAX
# overrides it), passing its arguments through, e.g. the issue 18 run:
#
#   scripts/bench.sh -n 1000000 -http 10000 -repeat 20 -scan=false
#
# The limit covers everything the bench starts, PostgreSQL peer included, and
# swap is not allowed to stand in for memory. The script builds the bench,
# then puts it in a cgroup with the limit, whichever way this machine allows:
#   1. systemd-run --scope -p MemoryMax=... when systemd runs the machine;
#   2. else a child cgroup of our own, cgroup v2 (memory.max) when the
#      memory controller is on the unified hierarchy;
#   3. else a child cgroup of our own on the v1 memory hierarchy
#      (memory.limit_in_bytes), as on hybrid hosts and in many containers.
# Ways 2 and 3 need root (or a delegated cgroup). The child is made under the
# cgroup the script runs in, so any limit above it still applies; it is
# removed at the end. The bench runs niced (nice -n 19).
set -euo pipefail
limit=${PARLEY_BENCH_MEMORY_MAX:-4G}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
cg=""
cleanup() {
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		rmdir "$cg" 2>/dev/null || echo "bench.sh: could not remove cgroup $cg" >&2
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

bytes() { # 4G, 512M, 1048576 -> bytes
	local n=${1%[KkMmGgTt]} unit=${1: -1}
	case $unit in
	[Kk]) echo $((n << 10)) ;; [Mm]) echo $((n << 20)) ;; [Gg]) echo $((n << 30)) ;; [Tt]) echo $((n << 40)) ;;
	*) echo "$1" ;;
	esac
}

(cd "$root" && nice -n 19 go build -o "$tmp/parley-bench" ./cmd/parley-bench)
bench=("nice" "-n" "19" "$tmp/parley-bench" "$@")

if [ -d /run/systemd/system ] && command -v systemd-run >/dev/null; then
	echo "bench.sh: MemoryMax=$limit through systemd-run" >&2
	exec systemd-run --scope --quiet -p MemoryMax="$limit" -p MemorySwapMax=0 -- "${bench[@]}"
fi

# run_in CGROUP: runs the bench as a member of CGROUP and waits for it.
run_in() {
	local status=0
	(
		echo "$BASHPID" >"$1/cgroup.procs"
		exec "${bench[@]}"
	) || status=$?
	return $status
}

v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
v2path=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
if [ -n "$v2" ] && [ -n "$v2path" ] && grep -qw memory "$v2$v2path/cgroup.controllers" 2>/dev/null; then
	parent=$v2$v2path
	# A v2 cgroup with processes cannot hand controllers to children; the
	# parent must already delegate memory (systemd and container runtimes do).
	if ! grep -qw memory "$parent/cgroup.subtree_control"; then
		echo "bench.sh: $parent does not delegate the memory controller to children; run as a systemd scope or in a delegated cgroup" >&2
		exit 1
	fi
	cg=$parent/parley-bench-$$
	mkdir "$cg"
	echo "$(bytes "$limit")" >"$cg/memory.max"
	[ -f "$cg/memory.swap.max" ] && echo 0 >"$cg/memory.swap.max"
	echo "bench.sh: memory.max=$limit in cgroup v2 $cg" >&2
	status=0
	run_in "$cg" || status=$?
	[ -f "$cg/memory.peak" ] && echo "bench.sh: cgroup peak $(($(cat "$cg/memory.peak") >> 20)) MB" >&2
	grep -w oom_kill "$cg/memory.events" >&2 || true
	exit $status
fi

v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
v1path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
if [ -n "$v1" ] && [ -d "$v1$v1path" ]; then
	cg=$v1$v1path/parley-bench-$$
	cg=${cg//\/\//\/}
	mkdir "$cg"
	echo "$(bytes "$limit")" >"$cg/memory.limit_in_bytes"
	# memsw (memory + swap) exists only with swap accounting on.
	[ -f "$cg/memory.memsw.limit_in_bytes" ] && echo "$(bytes "$limit")" >"$cg/memory.memsw.limit_in_bytes"
	echo "bench.sh: memory.limit_in_bytes=$limit in cgroup v1 $cg" >&2
	status=0
	run_in "$cg" || status=$?
	echo "bench.sh: cgroup peak $(($(cat "$cg/memory.max_usage_in_bytes") >> 20)) MB, limit hit $(cat "$cg/memory.failcnt") times" >&2
	grep -w oom_kill "$cg/memory.oom_control" >&2 || true
	exit $status
fi

echo "bench.sh: no way to limit memory here (no systemd, no cgroup memory controller)" >&2
exit 1
