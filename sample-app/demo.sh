#!/usr/bin/env bash
# Multi-instance demo of the quorumlock sample: three Redis masters, three instances of the
# order service sharing them and one database, concurrent payments of the same orders from
# many threads, then the same with one master killed, then with two killed.
#
#   sample-app/demo.sh                 # needs a JDK and bash; builds the sample if needed
#
# Environment (all optional):
#   REDIS_SERVER          redis-server binary (else the one on the PATH, else the one in the jar)
#   ORDERS, PER_ORDER     orders per phase (50) and concurrent requests per order (8)
#   DEMO_DATASOURCE_URL   a shared database for the three instances, e.g.
#                         jdbc:postgresql://127.0.0.1:5432/test (with DEMO_DATASOURCE_USERNAME,
#                         DEMO_DATASOURCE_PASSWORD); default: an H2 TCP server this script starts
#   DEMO_TIMEOUT          seconds before the demo gives up (300)
#
# Exits non-zero if any order is charged twice, or if a phase does not end as expected.
# Every process it starts is stopped on exit, by PID.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
JAR=$ROOT/sample-app/target/sample-app.jar
ORDERS=${ORDERS:-50}
PER_ORDER=${PER_ORDER:-8}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/quorumlock-demo.XXXXXX")
PIDS=()          # every long-running process started here
MASTER_PIDS=()
MASTER_PORTS=()
WATCHDOG=

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	[[ -n $WATCHDOG ]] && kill "$WATCHDOG" 2>/dev/null && wait "$WATCHDOG" 2>/dev/null
	if [[ $status -ne 0 ]]; then
		echo "demo: failed (exit $status); logs of the instances:" >&2
		for log in "$WORK"/app-*.log; do
			[[ -f $log ]] && { echo "--- $log (last lines)" >&2; tail -n 15 "$log" >&2; }
		done
	fi
	rm -rf "$WORK"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the whole demo is bounded in time
(
	trap 'kill $sleeper 2>/dev/null; exit 0' TERM
	sleep "${DEMO_TIMEOUT:-300}" & sleeper=$!
	wait $sleeper
	echo "demo: timed out after ${DEMO_TIMEOUT:-300} s" >&2
	kill -TERM $$
) &
WATCHDOG=$!

step() { printf '\n== %s ==\n' "$*"; }

# run a main class from the sample's executable jar (PropertiesLauncher reads loader.main)
sample_main() {
	local main=$1
	shift
	java -cp "$JAR" -Dloader.main="$main" org.springframework.boot.loader.launch.PropertiesLauncher "$@"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

random_port() {
	local port
	while :; do
		port=$((20000 + RANDOM % 30000))
		port_free "$port" && { echo "$port"; return; }
	done
}

redis_ping() {
	local reply
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf 'PING\r\n' >&3
	IFS= read -r -t 2 reply <&3 || true
	exec 3>&-
	[[ $reply == +PONG* ]]
}

start_master() {
	local i=$1 port pid attempt
	mkdir -p "$WORK/redis-$i"
	for attempt in 1 2 3 4 5; do
		port=$(random_port)
		"$REDIS" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
			--dir "$WORK/redis-$i" >"$WORK/redis-$i.log" 2>&1 &
		pid=$!
		for _ in $(seq 50); do
			redis_ping "$port" 2>/dev/null && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if redis_ping "$port" 2>/dev/null; then
			PIDS+=("$pid")
			MASTER_PIDS+=("$pid")
			MASTER_PORTS+=("$port")
			return
		fi
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	echo "demo: cannot start redis-server ($REDIS), see $WORK/redis-$i.log" >&2
	cat "$WORK/redis-$i.log" >&2
	exit 1
}

kill_master() {
	local i=$1
	kill -KILL "${MASTER_PIDS[$i]}"
	wait "${MASTER_PIDS[$i]}" 2>/dev/null || true
	echo "killed master $((i + 1)) (pid ${MASTER_PIDS[$i]}, 127.0.0.1:${MASTER_PORTS[$i]})"
}

# --- build ----------------------------------------------------------------------------------
if [[ ! -f $JAR ]] || [[ -n $(find "$ROOT/sample-app/src/main" "$ROOT/lock-spring-boot-autoconfigure/src/main" \
	"$ROOT/sample-app/pom.xml" -newer "$JAR" -print -quit) ]]; then
	step "building the sample"
	./mvnw -B -q -pl sample-app -am package -DskipTests
fi

# --- Redis masters --------------------------------------------------------------------------
# the project's one binary lookup (lock-test's RedisBinary): $REDIS_SERVER, the PATH, the jar
REDIS=$(sample_main io.quorumlock.testing.RedisBinary "$WORK/bin")
step "starting 3 Redis masters ($REDIS)"
for i in 0 1 2; do
	start_master "$i"
done
NODES=$(printf 'redis://127.0.0.1:%s,' "${MASTER_PORTS[@]}")
NODES=${NODES%,}
echo "masters: $NODES (pids ${MASTER_PIDS[*]})"

# --- shared database ------------------------------------------------------------------------
DB_ARGS=()
if [[ -n ${DEMO_DATASOURCE_URL:-} ]]; then
	DB_ARGS+=("--spring.datasource.url=$DEMO_DATASOURCE_URL")
	[[ -n ${DEMO_DATASOURCE_USERNAME:-} ]] && DB_ARGS+=("--spring.datasource.username=$DEMO_DATASOURCE_USERNAME")
	[[ -n ${DEMO_DATASOURCE_PASSWORD:-} ]] && DB_ARGS+=("--spring.datasource.password=$DEMO_DATASOURCE_PASSWORD")
	echo "database: $DEMO_DATASOURCE_URL"
else
	# one in-memory H2 for the three instances, served over TCP on loopback only
	DB_PORT=$(random_port)
	# java itself in the background (not a function or subshell), so $! is its PID
	java -cp "$JAR" -Dloader.main=org.h2.tools.Server org.springframework.boot.loader.launch.PropertiesLauncher \
		-tcp -tcpPort "$DB_PORT" -ifNotExists -baseDir "$WORK/h2" >"$WORK/h2.log" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 100); do
		port_free "$DB_PORT" || break
		sleep 0.1
	done
	DB_ARGS+=("--spring.datasource.url=jdbc:h2:tcp://127.0.0.1:$DB_PORT/mem:demo;DB_CLOSE_DELAY=-1")
	echo "database: H2 over TCP on 127.0.0.1:$DB_PORT (pid ${PIDS[-1]})"
fi

# --- three instances of the app -------------------------------------------------------------
step "starting 3 instances of the sample"
URLS=()
for i in 1 2 3; do
	port=$(random_port)
	# quorumlock.rejoin-delay=0s: these masters were started seconds ago by this script and
	# hold no one's lock; the restart guard would otherwise refuse every lock for 30 s.
	# quorumlock.node-timeout=250ms: three JVMs, three Redis servers and the client share this
	# machine, and under that load a Redis answer often takes longer than the 50 ms default
	# (on a real network keep the default: a node slower than that does not count).
	java -XX:TieredStopAtLevel=1 -Xmx256m -jar "$JAR" --server.port="$port" \
		--quorumlock.nodes="$NODES" --quorumlock.rejoin-delay=0s --quorumlock.node-timeout=250ms \
		--sample.processing-delay=50ms --spring.application.name="sample-$i" "${DB_ARGS[@]}" \
		>"$WORK/app-$i.log" 2>&1 &
	PIDS+=("$!")
	URLS+=("http://127.0.0.1:$port")
	echo "instance $i: http://127.0.0.1:$port (pid $!)"
done
sample_main io.quorumlock.sample.demo.DemoClient await 240 "${URLS[@]}"
# a few payments on every instance first, so the phases below do not measure JIT warm-up
sample_main io.quorumlock.sample.demo.DemoClient warmup 30 "${URLS[@]}"

step "phase 1: 3 of 3 masters up"
sample_main io.quorumlock.sample.demo.DemoClient run p1 "$ORDERS" "$PER_ORDER" paid "${URLS[@]}"

step "phase 2: 2 of 3 masters up"
kill_master 0
sample_main io.quorumlock.sample.demo.DemoClient run p2 "$ORDERS" "$PER_ORDER" paid "${URLS[@]}"

step "phase 3: 1 of 3 masters up (no quorum)"
kill_master 1
sample_main io.quorumlock.sample.demo.DemoClient run p3 "$ORDERS" "$PER_ORDER" unavailable "${URLS[@]}"

printf '\ndemo: OK, no order was charged twice\n'
