#!/usr/bin/env bash
# quorumlock benchmarks, side by side with Redisson, Spring Integration and the raw-Lettuce floor.
#
#   benchmarks/run.sh           full run (about 14 minutes on 2 cores):
#                               writes benchmarks/results/<date>.json, <date>.md (and <date>.log)
#   benchmarks/run.sh --smoke   every benchmark once, briefly, in-process (under a minute):
#                               writes benchmarks/target/smoke/<date>.{json,md}; timings are printed, never asserted
#
# Then the scale scenarios (ScaleRunner: held leases, waiters, a stalled master,
# contention across processes; each case in its own JVM): <date>-scale.{json,md} next to the others.
#
# Options: --no-build uses the last build (./mvnw verify or package made it); --held-sizes 1000,10000
# and --waiters N go to ScaleRunner only; every other option goes to BenchRunner and ScaleRunner
# (--rounds N, --warmup 2s, --measurement 2s, --only REGEX, --out DIR, --help). --only matches the
# ids of both, e.g. --only '^scale-' runs only the scale scenarios.
# The waiters scenario needs Java 21+ (virtual threads): $BENCH_VT_JAVA_HOME, else $JAVA_HOME if it is
# 21+, else the first 21+ JDK under /usr/lib/jvm; without one it is reported as skipped.
# $BENCH_CLIENT_JAVA_OPTS go to the JVM of each scale case and to the client JVMs of the
# contention-across-processes scenario, %i standing for the case's class or the client's number,
# e.g. a flight recording each:
# BENCH_CLIENT_JAVA_OPTS='-XX:StartFlightRecording=filename=/tmp/client-%i.jfr,settings=profile'
# The stalled-master scenario stops (SIGSTOP) the third server, by the PID started here, and resumes it
# (SIGCONT) when done; on exit every server is resumed before it is stopped, whatever happened.
#
# Starts its own five redis-server masters on free loopback ports (benchmarks on N nodes use the
# first N) and stops them, by PID, on exit. The binary: $REDIS_SERVER (a path, or "embedded"), else
# redis-server on the PATH, else the one inside the embedded-redis jar, so only a JDK is needed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build=1
smoke=0
out=""
args=()
scale_args=()
while [[ $# -gt 0 ]]; do
	case "$1" in
		--no-build) build=0 ;;
		--held-sizes | --waiters) scale_args+=("$1" "$2"); shift ;;
		--smoke) smoke=1; args+=("$1") ;;
		--out) out="$2"; shift ;;
		*) args+=("$1") ;;
	esac
	shift
done

if [[ $build == 1 || ! -f $here/target/classpath.txt || ! -f $here/target/classes/META-INF/BenchmarkList ]]; then
	echo "run.sh: building the benchmarks module"
	(cd "$root" && ./mvnw -B -q -pl benchmarks -am -DskipTests -Dspring-javaformat.skip=true package)
fi
classpath="$here/target/classes:$(cat "$here/target/classpath.txt")"
if [[ -n ${JAVA_HOME:-} ]]; then java="$JAVA_HOME/bin/java"; else java="java"; fi

work="$(mktemp -d "${TMPDIR:-/tmp}/quorumlock-bench.XXXXXX")"
pids=()
cleanup() {
	local pid
	for pid in ${pids[@]+"${pids[@]}"}; do
		# a server the stalled-master scenario stopped must run again to see its SIGTERM
		kill -CONT "$pid" 2>/dev/null || true
		kill "$pid" 2>/dev/null || true
	done
	for pid in ${pids[@]+"${pids[@]}"}; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the project's one binary lookup (lock-test's RedisBinary): $REDIS_SERVER, the PATH, the jar
redis="$("$java" -cp "$classpath" io.quorumlock.testing.RedisBinary "$work")"
redis_version="$("$redis" --version | head -n 1)"

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pong() {
	(
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'PING\r\n' >&3
		IFS= read -r -t 1 reply <&3 || exit 1
		[[ $reply == +PONG* ]]
	) 2>/dev/null
}

nodes=()
start_server() {
	local attempt port pid i
	for attempt in $(seq 1 50); do
		port=$((20000 + RANDOM % 30000))
		if listening "$port"; then continue; fi
		"$redis" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
			--dir "$work" --logfile "$work/redis-$port.log" &
		pid=$!
		for i in $(seq 1 100); do
			if pong "$port"; then
				pids+=("$pid")
				nodes+=("redis://127.0.0.1:$port")
				return 0
			fi
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	echo "run.sh: could not start $redis" >&2
	return 1
}
for n in 1 2 3 4 5; do start_server; done

export BENCH_NODES="$(IFS=,; echo "${nodes[*]}")"
export BENCH_PIDS="$(IFS=,; echo "${pids[*]}")"
export BENCH_REDIS_BINARY="$redis ($redis_version)"
if command -v git >/dev/null 2>&1 && git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
	BENCH_COMMIT="$(git -C "$root" rev-parse --short HEAD)"
	if [[ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]]; then BENCH_COMMIT="$BENCH_COMMIT+uncommitted"; fi
	export BENCH_COMMIT
fi
echo "run.sh: ${#nodes[@]} redis-server (${redis_version}) at $BENCH_NODES, pids ${pids[*]}"

if [[ -z $out ]]; then
	if [[ $smoke == 1 ]]; then out="$here/target/smoke"; else out="$here/results"; fi
fi
mkdir -p "$out"
started=$SECONDS
status=0
if [[ $smoke == 1 ]]; then
	"$java" -Xms1g -Xmx1g -cp "$classpath" io.quorumlock.bench.BenchRunner --out "$out" ${args[@]+"${args[@]}"} || status=$?
else
	log="$out/$(date -u +%F).log"
	"$java" -Xmx512m -cp "$classpath" io.quorumlock.bench.BenchRunner --out "$out" ${args[@]+"${args[@]}"} 2>&1 | tee "$log" \
		|| status=$?
fi

# the scale scenarios; the waiters need a Java 21+
java_feature() { # the feature release of the JDK at $1 (e.g. 25), or 0
	local version
	[[ -x "$1/bin/java" && -f "$1/release" ]] || { echo 0; return; }
	version=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release")
	echo "${version:-0}"
}
vt_java="none"
for jdk in "${BENCH_VT_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
	[[ -n "$jdk" ]] || continue
	if (( $(java_feature "$jdk") >= 21 )); then vt_java="$jdk/bin/java"; break; fi
done
if [[ $vt_java == none ]]; then
	echo "run.sh: waiters scenario skipped: no JDK 21+ (set BENCH_VT_JAVA_HOME)"
else
	echo "run.sh: waiters scenario on $vt_java"
fi
scale_status=0
if [[ $smoke == 1 ]]; then
	"$java" -Xms256m -Xmx256m -cp "$classpath" io.quorumlock.bench.ScaleRunner --out "$out" --vt-java "$vt_java" \
		${args[@]+"${args[@]}"} ${scale_args[@]+"${scale_args[@]}"} || scale_status=$?
else
	"$java" -Xmx256m -cp "$classpath" io.quorumlock.bench.ScaleRunner --out "$out" --vt-java "$vt_java" \
		${args[@]+"${args[@]}"} ${scale_args[@]+"${scale_args[@]}"} 2>&1 | tee -a "$log" || scale_status=$?
fi
if (( status == 0 )); then status=$scale_status; fi
echo "run.sh: done in $((SECONDS - started)) s (exit $status)"
exit "$status"
