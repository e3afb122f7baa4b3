#!/usr/bin/env bash
# The cross-process hand-over, step by step: runs scale-processes/1/<candidate> for each candidate
# (benchmarks/run.sh, the last build), records the scheduler (`perf sched record`, all CPUs) for
# the first --seconds of each measurement window, and prints per kind of thread its wake-ups, mean
# scheduling delay and CPU per hand-over, and, for a candidate that hands over by pub/sub, where a
# hand-over's time goes from one grant to the next, then the longest times from one grant to the
# next with the tasks that ran most in each (benchmarks/handover_steps.py).
#
#   benchmarks/handover-steps.sh [--candidates floor,quorumlock] [--seconds 4] [--busy-cpus] [--out DIR]
#
# --busy-cpus runs one SCHED_IDLE spinner per CPU during each case (stopped by PID afterwards): they
# take only time nobody else wants, but keep the CPUs from going idle, so that a wake-up never waits
# for an idle (virtual) CPU to come back; comparing with and without tells how much of a hand-over is
# that wait. Needs perf (Debian: linux-perf), python3, chrt, and the rights to trace the scheduler
# (root, or kernel.perf_event_paranoid <= -1). The figures of a traced run are a little below an
# untraced one's; the hand-overs per second printed are the traced run's own.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
candidates="floor,quorumlock"
seconds=4
busy=0
out="$here/target/handover-steps"
while [[ $# -gt 0 ]]; do
	case "$1" in
		--candidates) candidates="$2"; shift ;;
		--seconds) seconds="$2"; shift ;;
		--busy-cpus) busy=1 ;;
		--out) out="$2"; shift ;;
		--help | -h) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "handover-steps.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
for tool in perf python3 chrt; do
	command -v "$tool" > /dev/null || { echo "handover-steps.sh: needs $tool on the PATH" >&2; exit 2; }
done
mkdir -p "$out"

spinners=()
stop_spinners() {
	local pid
	for pid in ${spinners[@]+"${spinners[@]}"}; do kill "$pid" 2>/dev/null || true; done
	for pid in ${spinners[@]+"${spinners[@]}"}; do wait "$pid" 2>/dev/null || true; done
	spinners=()
}
trap stop_spinners EXIT

for candidate in ${candidates//,/ }; do
	log="$out/$candidate.log"
	trace="$out/$candidate.perf"
	if [[ $busy == 1 ]]; then
		for _ in $(seq "$(nproc)"); do
			chrt --idle 0 bash -c 'while :; do :; done' &
			spinners+=($!)
		done
	fi
	"$here/run.sh" --no-build --only "^scale-processes/1/$candidate\$" --out "$out" --name "$candidate" > "$log" 2>&1 &
	run=$!
	until grep -q '^\[processes\] window of' "$log"; do
		if ! kill -0 "$run" 2>/dev/null; then
			echo "handover-steps.sh: the case ended before its window; see $log" >&2
			exit 1
		fi
		sleep 0.2
	done
	window="$(grep '^\[processes\] window of' "$log")"
	port="${window#*server redis://127.0.0.1:}"
	port="${port%%,*}"
	clients="${window##*client pids }"
	server="$(pgrep -f "redis-server 127.0.0.1:$port\$" | head -n 1 || true)"
	perf sched record -a -o "$trace" -- sleep "$seconds" > /dev/null 2>&1
	wait "$run"
	stop_spinners
	result="$(grep -o 'candidate=[a-z-]*, .*' "$log" | head -n 1)"
	rate="$(sed 's/.*opsPerSecond=\([0-9.]*\).*/\1/' <<< "$result")"
	echo "### $candidate$([[ $busy == 1 ]] && echo ', CPUs kept busy' || true)"
	echo
	echo "$result"
	echo
	perf sched timehist -w -i "$trace" 2> /dev/null > "$out/$candidate.timehist"
	python3 "$here/handover_steps.py" "$out/$candidate.timehist" "$rate" "$clients" "${server:-0}"
	echo
done
