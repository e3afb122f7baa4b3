#!/usr/bin/env bash
# quorumlock benchmarks, side by side with Redisson, Spring Integration and the raw-Lettuce floor,
# run by JMH's own runner; the tables are rendered from JMH's JSON results.
#
#   benchmarks/run.sh           full run (about 25 minutes on 2 cores): JMH's results in
#                               benchmarks/results/<date>.json, the tables in <date>.md (and a <date>.log)
#   benchmarks/run.sh --smoke   every benchmark once, briefly, in-process (about a minute):
#                               writes benchmarks/target/smoke/<date>.{json,md}; timings are printed, never asserted
#   benchmarks/run.sh --compare DIR [--labels before,after]
#                               the uncontended and throughput benchmarks of the floor and quorumlock on the build
#                               in DIR (the benchmarks directory of another checkout, packaged) and on this one,
#                               alternately, --rounds times (3), on the same servers: JMH's results in
#                               <out>/<name>/<label>-<round>-<scenario>-<nodes>.json, the comparison in <out>/<name>.md
#
# Then the scale scenarios (ScaleRunner: held leases, waiters, a stalled master,
# contention across processes; each case in its own JVM): <date>-scale.{json,md} next to the others.
#
# Options: --no-build uses the last build (./mvnw verify or package made it); --only REGEX selects
# by id, scenario/nodes/candidate, such as latency/1/floor, contention-threads/1/si-pubsub,
# memory/1/quorumlock or scale-held/3/quorumlock/1000; --rounds N (JMH forks of each benchmark;
# 3 for latency, 2 for the others), --warmup 4s and --measurement 2s (every scenario; by default
# 4 s of warm-up for latency, 10 s for throughput, 2 s for the others, 2 s measured),
# --memory-keys N, --jvm-arg ARG (to each forked JVM), --out DIR, --name NAME; --held-sizes
# 1000,10000 and --waiters N go to ScaleRunner only. Arguments after -- go to every JMH run as
# they are (e.g. -- -prof stack).
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
command_line="benchmarks/run.sh$(printf ' %q' "$@")"
build=1
smoke=0
out=""
name="$(date -u +%F)"
only=""
rounds=0
warmup=""
measurement="2s"
memory_keys=1000000
compare=""
labels="baseline,current"
jvm_args=()
jmh_extra=()
scale_args=()
while [[ $# -gt 0 ]]; do
	case "$1" in
		--no-build) build=0 ;;
		--smoke) smoke=1 ;;
		--only) only="$2"; shift ;;
		--rounds) rounds="$2"; shift ;;
		--warmup) warmup="$2"; shift ;;
		--measurement) measurement="$2"; shift ;;
		--memory-keys) memory_keys="$2"; shift ;;
		--jvm-arg) jvm_args+=("$2"); shift ;;
		--out) out="$2"; shift ;;
		--name) name="$2"; shift ;;
		--compare) compare="$(cd "$2" && pwd)"; shift ;;
		--labels) labels="$2"; shift ;;
		--held-sizes | --waiters) scale_args+=("$1" "$2"); shift ;;
		--) shift; jmh_extra=("$@"); break ;;
		--help | -h) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "run.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
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
export BENCH_LOAD_BEFORE="$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?')"
commit_of() {
	local commit
	git -C "$1" rev-parse --git-dir >/dev/null 2>&1 || { echo "?"; return; }
	commit="$(git -C "$1" rev-parse --short HEAD)"
	if [[ -n "$(git -C "$1" status --porcelain 2>/dev/null)" ]]; then commit="$commit+uncommitted"; fi
	echo "$commit"
}
if command -v git >/dev/null 2>&1; then export BENCH_COMMIT="$(commit_of "$root")"; fi
echo "run.sh: ${#nodes[@]} redis-server (${redis_version}) at $BENCH_NODES, pids ${pids[*]}"

if [[ -z $out ]]; then
	if [[ $smoke == 1 ]]; then out="$here/target/smoke"; else out="$here/results"; fi
fi
mkdir -p "$out"
started=$SECONDS
status=0

# scenario|benchmark|nodes|candidates: one JMH run each
plan=(
	"latency|LatencyBenchmark.lockUnlock|1|floor,quorumlock,quorumlock-aspect,redisson-lease,redisson-watchdog,si-spin,si-pubsub"
	"latency|LatencyBenchmark.lockUnlock|3|floor,quorumlock,redisson-redlock"
	"latency|LatencyBenchmark.lockUnlock|5|floor,quorumlock,redisson-redlock"
	"throughput|ThroughputBenchmark.distinctKeys|1|floor,quorumlock,redisson-lease,redisson-watchdog,si-spin,si-pubsub"
	"throughput|ThroughputBenchmark.distinctKeys|3|floor,quorumlock,redisson-redlock"
	"throughput|ThroughputBenchmark.distinctKeys|5|floor,quorumlock,redisson-redlock"
	"contention-threads|ContentionBenchmark.oneClient|1|quorumlock,redisson-lease,si-spin,si-pubsub"
	"contention-clients|ContentionBenchmark.fourClients|1|quorumlock,redisson-lease,si-spin,si-pubsub"
	"aspect|AspectOverheadBenchmark.call|0|quorumlock,quorumlock-aspect"
	"shared-latency|LatencyBenchmark.lockUnlock|1|quorumlock-shared,redisson-shared,quorumlock-permits,redisson-permits"
	"shared-latency|LatencyBenchmark.lockUnlock|3|quorumlock-shared,quorumlock-permits"
	"shared-latency|LatencyBenchmark.lockUnlock|5|quorumlock-shared,quorumlock-permits"
	"shared-throughput|SharedThroughputBenchmark.fewKeys|1|quorumlock-shared,redisson-shared,quorumlock-permits,redisson-permits"
	"shared-throughput|SharedThroughputBenchmark.fewKeys|3|quorumlock-shared,quorumlock-permits"
	"shared-throughput|SharedThroughputBenchmark.fewKeys|5|quorumlock-shared,quorumlock-permits"
	"memory|MemoryBenchmark.distinctKeys|1|quorumlock"
)

# the candidates of a plan line that --only selects, comma-separated (empty: none)
selected() {
	local scenario="$1" nodes="$2" candidates="$3" c chosen=()
	for c in ${candidates//,/ }; do
		if [[ -z $only || "$scenario/$nodes/$c" =~ $only ]]; then chosen+=("$c"); fi
	done
	(IFS=,; echo "${chosen[*]-}")
}

# jmh JSON-FILE SCENARIO BENCHMARK NODES CANDIDATES: one JMH run of one plan line
jmh() {
	local file="$1" scenario="$2" benchmark="$3" nodes="$4" candidates="$5" cp="${JMH_CLASSPATH:-$classpath}"
	local forks=$rounds wu="$warmup" options=()
	if (( forks == 0 )); then [[ $scenario == latency || $scenario == shared-latency ]] && forks=3 || forks=2; fi
	if [[ -z $wu ]]; then
		case "$scenario" in
			latency | shared-latency) wu=4s ;;
			# 16 threads on 2 cores: C2 compiles the larger code paths (quorumlock's, Redisson's) for several
			# seconds; after 3 s quorumlock measured 0.70x the floor on 3 nodes, after 10 s 0.91x
			throughput | shared-throughput) wu=10s ;;
			*) wu=2s ;;
		esac
	fi
	options=(-wi 1 -w "$wu" -i 1 -r "$measurement" -f "$forks")
	if [[ $scenario == memory ]]; then options=(-bm ss -wi 0 -i 1 -f 1 -p "keys=$memory_keys"); fi
	if [[ $smoke == 1 ]]; then
		options=(-f 0 -wi 0 -i 1 -r 500ms)
		if [[ $scenario == memory ]]; then options=(-bm ss -f 0 -wi 0 -i 1 -p keys=20000); fi
	fi
	if [[ -z ${JMH_CLASSPATH:-} ]]; then options+=(-prof gc -prof io.quorumlock.bench.BenchProfiler); fi
	local fork_args="-Xms1g -Xmx1g${jvm_args[*]+ ${jvm_args[*]}}"
	echo
	echo "=== $scenario on $nodes node(s): $candidates ($((SECONDS - started)) s elapsed)"
	"$java" -Xms1g -Xmx1g -cp "$cp" "${JMH_MAIN:-io.quorumlock.bench.Jmh}" "\\.$benchmark\$" \
		-p "candidate=$candidates" -p "nodes=$nodes" -jvmArgs "$fork_args" "${options[@]}" \
		-foe true -rf json -rff "$file" ${jmh_extra[@]+"${jmh_extra[@]}"}
}

if [[ -n $compare ]]; then
	base_classpath="$compare/target/classes:$(cat "$compare/target/classpath.txt")"
	IFS=, read -r base_label this_label <<<"$labels"
	(( rounds > 0 )) || rounds=3
	total_rounds=$rounds
	rounds=1
	mkdir -p "$out/$name"
	render_args=()
	for round in $(seq 1 "$total_rounds"); do
		for side in base this; do
			if [[ $side == base ]]; then label=$base_label; cp=$base_classpath; else label=$this_label; cp=$classpath; fi
			files=""
			for line in "${plan[@]}"; do
				IFS='|' read -r scenario benchmark n candidates <<<"$line"
				[[ $scenario == latency || $scenario == throughput ]] || continue
				chosen="$(selected "$scenario" "$n" floor,quorumlock)"
				[[ -n $chosen ]] || continue
				file="$out/$name/$label-$round-$scenario-$n.json"
				echo "=== round $round of $total_rounds: $label"
				JMH_CLASSPATH="$cp" JMH_MAIN=org.openjdk.jmh.Main jmh "$file" "$scenario" "$benchmark" "$n" "$chosen" \
					|| status=$?
				if [[ -s $file ]]; then files="$files${files:+,}$file"; fi
			done
			if [[ -n $files ]]; then render_args+=("$label=$files"); fi
		done
	done
	note="Command: \`$command_line\`; $base_label: the build in $compare (commit $(commit_of "$compare")), $this_label: commit ${BENCH_COMMIT:-?}. Each round runs $base_label, then $this_label, each a JMH run with a fork per benchmark, on the same servers. JMH's results: [$name/]($name/)."
	"$java" -cp "$classpath" io.quorumlock.bench.Render --compare "$out/$name.md" --note "$note" "${render_args[@]}" \
		|| status=$?
	echo "run.sh: done in $((SECONDS - started)) s (exit $status)"
	exit "$status"
fi

log="$out/$name.log"
if [[ $smoke == 1 ]]; then log=/dev/null; fi
files=()
for line in "${plan[@]}"; do
	IFS='|' read -r scenario benchmark n candidates <<<"$line"
	chosen="$(selected "$scenario" "$n" "$candidates")"
	[[ -n $chosen ]] || continue
	file="$work/$scenario-$n.json"
	jmh "$file" "$scenario" "$benchmark" "$n" "$chosen" 2>&1 | tee -a "$log" || status=$?
	if [[ -s $file ]]; then files+=("$file"); fi
done
if (( ${#files[@]} > 0 )); then
	"$java" -cp "$classpath" io.quorumlock.bench.Render "$out/$name.md" --note "Command: \`$command_line\`." \
		--json "$out/$name.json" "${files[@]}" || status=$?
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
scale_opts=(--out "$out" --name "$name" --vt-java "$vt_java")
if [[ $smoke == 1 ]]; then scale_opts+=(--smoke); fi
if [[ -n $only ]]; then scale_opts+=(--only "$only"); fi
scale_status=0
"$java" -Xms256m -Xmx256m -cp "$classpath" io.quorumlock.bench.ScaleRunner "${scale_opts[@]}" \
	${scale_args[@]+"${scale_args[@]}"} 2>&1 | tee -a "$log" || scale_status=$?
if (( status == 0 )); then status=$scale_status; fi
echo "run.sh: done in $((SECONDS - started)) s (exit $status)"
exit "$status"
