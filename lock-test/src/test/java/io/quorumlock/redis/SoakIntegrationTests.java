package io.quorumlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Script;
import io.quorumlock.testing.RedisErrorReply;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Multi-JVM fault soak, run only by {@code -Psoak}: five masters, each reached through a
 * proxy that stands for its address ({@link RewritingProxy}), three worker JVMs
 * ({@link SoakWorker}) of eight threads locking 20 keys with a 2 s renewed lease, while
 * this process kills and restarts a minority of the masters, pauses one past the lease,
 * restarts one empty, restarts a third while two are still held back by the restart
 * guard, restarts a majority with commands in flight (frozen, then killed and restarted
 * empty at once, so that Lettuce sends what was in flight again to the new processes
 * within the node timeout), restarts one empty with its reported uptime stepped a minute
 * forward, fails an address over to a spare long-running server, puts one under memory
 * pressure with an eviction policy until it evicts, and flushes one; then three losses
 * that keep the dataset marker, which the restart guard must hold back by the master's
 * replication history: a lagging replica (a spare copied from the master, then detached
 * while the workers go on granting on the master) promoted behind the address and
 * restarted from its append-only file during its hold-back, a lagging replica promoted
 * behind a proxy that keeps the client connections open (half the time with the lock
 * scripts loaded on it beforehand, so no {@code NOSCRIPT} shows the switch), and a master
 * resynced from a lagging replica and failed back ({@link FaultInjector}). The restart
 * guard is in force ({@code rejoin-delay} = the lease). Afterwards {@link SoakChecker}
 * reads the workers' logs and this process's fault log: no two holds of a key may overlap
 * and fencing tokens must rise in enter order (except where the lock reported the lease
 * lost, counted apart).
 * <p>
 * {@code -Dsoak.masters=1} runs the same workers on one master, where the engine hands a
 * released key straight to the first waiter queued on the master and the waiter learns of
 * its grant from the release's message. One master is single mode, which has no restart
 * guard (the {@code rejoin-delay} is passed but not in force), so a master that loses
 * keys may grant them again while their leases run: by default every fault keeps what the
 * master answered. It is killed and comes back a second later with its data (saved with
 * writes paused, as an append-only file with {@code fsync always} keeps it), paused past
 * the lease, restarted from its data with commands in flight, restarted from its data
 * with its uptime stepped forward, failed over to a replica promoted once it has every
 * write, and its clients' connections are killed while hand-overs are in flight
 * ({@code CLIENT KILL TYPE pubsub}, now and then {@code TYPE normal}).
 * {@code -Dsoak.data-loss=true} adds the faults that lose data (restarts empty, failover
 * to another dataset, eviction, {@code FLUSHALL}), to see what the missing guard allows:
 * the checker then finds overlaps. {@code -Dsoak.masters=3} runs the five-master schedule
 * on three (a minority is one master, a majority two). A subscriber in this process
 * counts the release messages on the first address ({@link ReleaseCounter}): those that
 * carry a token are hand-overs.
 * <p>
 * Beside the exclusive workload each worker runs {@link SoakModes}: a shared/exclusive
 * mix on 4 keys and permits (k = 2 and 3) on 2 keys, {@value #MODE_THREADS} threads each,
 * on the same engine and under the same faults; {@link SoakModeChecker} reads their logs:
 * an exclusive hold never overlaps another hold, and never more than k permit holds at
 * once.
 * <p>
 * {@code -Dsoak.duration=10m} runs longer (default 60 s, at most 2 h);
 * {@code -Dsoak.seed=N} replays a fault schedule. Logs stay in
 * {@code target/soak/<run>/}.
 */
@Tag("soak")
@Timeout(value = 3, unit = TimeUnit.HOURS)
class SoakIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final int WORKERS = 3;

	private static final int THREADS = 8;

	private static final int KEYS = 20;

	/** Threads per worker for each of the mix and permit workloads. */
	private static final int MODE_THREADS = 3;

	private static final Duration LONGEST = Duration.ofHours(2);

	/**
	 * The workers' node timeout: just below a third of the lease, long enough for a
	 * command sent to a frozen master to be answered by its restarted process, which the
	 * in-flight restart needs (a re-sent command answered after the deadline counts for
	 * nothing anyway).
	 */
	private static final Duration NODE_TIMEOUT = LEASE.dividedBy(3).minusMillis(50);

	/**
	 * The restart guard: the lease. {@code -Dsoak.rejoin-delay=0s} turns it off, only to
	 * see what it prevents (the checker may then find overlaps).
	 */
	private static final Duration REJOIN_DELAY = duration(System.getProperty("soak.rejoin-delay", "2s"),
			"soak.rejoin-delay", Duration.ZERO);

	/** How long past its deadline a worker may take to stop. */
	private static final Duration STOP_GRACE = Duration.ofSeconds(60);

	/**
	 * The masters the workers use, each reached through a proxy: 5, or 1 or 3 by
	 * {@code -Dsoak.masters}.
	 */
	private static final int MASTERS = masters(System.getProperty("soak.masters", "5"));

	/**
	 * On one master, whether the faults include those that lose its data (restart empty,
	 * flush, failover to another dataset, eviction): {@code -Dsoak.data-loss=true}. One
	 * master is single mode, which has no restart guard, so overlaps are then expected;
	 * by default every fault on one master keeps what the master answered.
	 */
	private static final boolean DATA_LOSS = Boolean.getBoolean("soak.data-loss");

	/**
	 * Long-running servers no address reaches at first, for failovers behind an address.
	 */
	private static final int SPARES = 2;

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(MASTERS + SPARES);

	/**
	 * A spare of its own that keeps an append-only file with {@code fsync always}, for a
	 * promoted replica restarted from it (the other servers run without persistence).
	 */
	@RegisterExtension
	static final RedisServers aofSpare = RedisServers.builder()
		.nodes(1)
		.args("--appendonly", "yes", "--appendfsync", "always")
		.build();

	@Test
	void threeJvmsUnderMasterFaultsNeverHoldAKeyTogether() throws Exception {
		Duration duration = duration(System.getProperty("soak.duration", "60s"), "soak.duration",
				Duration.ofSeconds(10));
		long seed = Long.getLong("soak.seed", System.nanoTime());
		Path dir = Path.of("target", "soak", "run-" + System.currentTimeMillis()).toAbsolutePath();
		Files.createDirectories(dir);
		System.out.printf(
				"soak: %s, seed %d, %d master(s)%s, %d JVMs x %d threads, %d keys, lease %d ms, rejoin-delay %d ms, logs in %s%n",
				duration, seed, MASTERS, (MASTERS == 1) ? (DATA_LOSS ? " with data loss" : " keeping its data") : "",
				WORKERS, THREADS, KEYS, LEASE.toMillis(), REJOIN_DELAY.toMillis(), dir);
		List<Process> workers = new ArrayList<>();
		List<RewritingProxy> proxies = new ArrayList<>();
		for (int i = 0; i < MASTERS; i++) {
			proxies.add(new RewritingProxy(redis.node(i)));
		}
		FaultInjector faults = new FaultInjector(redis, aofSpare.node(0), proxies, dir.resolve("faults.log"),
				new Random(seed));
		ReleaseCounter releases = new ReleaseCounter(proxies.get(0).uri());
		try {
			List<String> uris = proxies.stream().map(RewritingProxy::uri).toList();
			for (int i = 0; i < WORKERS; i++) {
				workers.add(startWorker(dir, i, duration, uris));
			}
			CompletableFuture<?> allExited = CompletableFuture
				.allOf(workers.stream().map(Process::onExit).toArray(CompletableFuture[]::new));
			long end = System.nanoTime() + duration.toNanos();
			while (System.nanoTime() - end < 0 && !allExited.isDone()) {
				faults.next(allExited, end);
			}
			faults.healAll();
			try {
				allExited.get(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				// reported per worker below
			}
			for (int i = 0; i < workers.size(); i++) {
				Process worker = workers.get(i);
				assertThat(worker.isAlive()).as("worker %d still running %s after the soak ended", i, STOP_GRACE)
					.isFalse();
				assertThat(worker.exitValue()).as("worker %d exit code; its output:%n%s", i, tail(dir, i)).isZero();
			}
		}
		finally {
			workers.forEach(Process::destroyForcibly);
			releases.close();
			faults.healAll();
			for (RewritingProxy proxy : proxies) {
				proxy.close();
			}
		}
		String counted = releases.describe() + "\n" + faults.commandStats();
		System.out.println(counted);
		SoakChecker.Report report = SoakChecker.check(dir);
		System.out.println(report.describe());
		Files.writeString(dir.resolve("report.txt"), report.describe() + "\n" + counted + "\n", StandardCharsets.UTF_8);
		SoakModeChecker.Report modes = SoakModeChecker.check(dir);
		System.out.println(modes.describe());
		Files.writeString(dir.resolve("report.txt"), modes.describe() + "\n", StandardCharsets.UTF_8,
				StandardOpenOption.APPEND);
		assertThat(report.finishedWorkers()).as("workers that wrote their summary").isEqualTo(WORKERS);
		assertThat(report.malformed()).as("malformed records").isZero();
		assertThat(report.unfinished()).as("holds without an exit record").isZero();
		assertThat(report.acquisitions()).as("acquisitions").isPositive();
		assertThat(report.faultCount()).as("faults injected").isPositive();
		assertThat(report.overlaps()).as("overlapping holds: %s", report.examples()).isZero();
		assertThat(report.tokenViolations()).as("fencing tokens out of order: %s", report.examples()).isZero();
		assertThat(modes.finishedWorkers()).as("workers that wrote their modes summary").isEqualTo(WORKERS);
		assertThat(modes.malformed()).as("malformed modes records").isZero();
		assertThat(modes.unfinished()).as("mode holds without an exit record").isZero();
		assertThat(modes.shared()).as("shared acquisitions").isPositive();
		assertThat(modes.exclusive()).as("exclusive acquisitions of the mix").isPositive();
		assertThat(modes.permits()).as("permit acquisitions").isPositive();
		assertThat(modes.mixViolations()).as("exclusive holds overlapping others: %s", modes.examples()).isZero();
		assertThat(modes.permitViolations()).as("more than k permit holders: %s", modes.examples()).isZero();
		if (MASTERS == 1) {
			assertThat(releases.handOvers()).as("hand-overs heard on the one master").isPositive();
		}
	}

	/** {@code -Dsoak.masters}: 1, 3 or 5. */
	private static int masters(String text) {
		int masters;
		try {
			masters = Integer.parseInt(text.trim());
		}
		catch (NumberFormatException ex) {
			masters = -1;
		}
		if (masters != 1 && masters != 3 && masters != 5) {
			throw new IllegalArgumentException("soak.masters: '" + text + "' is not 1, 3 or 5");
		}
		return masters;
	}

	private static Process startWorker(Path dir, int index, Duration duration, List<String> uris) throws IOException {
		List<String> command = new ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:+UseSerialGC",
				"-XX:TieredStopAtLevel=1", "-Dsoak.rejoinDelayMillis=" + REJOIN_DELAY.toMillis(),
				"-Dsoak.modes.log=" + dir.resolve("modes-" + index + ".log"), "-Dsoak.modes.threads=" + MODE_THREADS,
				"-Dsoak.nodeTimeoutMillis=" + NODE_TIMEOUT.toMillis(), "-cp", System.getProperty("java.class.path"),
				SoakWorker.class.getName(), dir.resolve("worker-" + index + ".log").toString(), "jvm" + index,
				Long.toString(duration.toMillis()), Integer.toString(THREADS), Integer.toString(KEYS),
				Long.toString(LEASE.toMillis())));
		command.addAll(uris);
		// stdin stays a pipe: the worker exits when it closes, that is, when we are gone
		return new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(dir.resolve("worker-" + index + ".out").toFile())
			.start();
	}

	private static String tail(Path dir, int index) {
		try {
			List<String> lines = Files.readAllLines(dir.resolve("worker-" + index + ".out"), StandardCharsets.UTF_8);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
		}
		catch (IOException ex) {
			return "(no output: " + ex.getMessage() + ")";
		}
	}

	/**
	 * {@code 90s}, {@code 10m}, {@code 2h}, {@code 500ms} or ISO-8601 ({@code PT10M}).
	 */
	static Duration duration(String text, String property, Duration shortest) {
		String value = text.trim().toLowerCase(Locale.ROOT);
		Duration duration;
		try {
			if (value.startsWith("pt")) {
				duration = Duration.parse(value.toUpperCase(Locale.ROOT));
			}
			else if (value.endsWith("ms")) {
				duration = Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
			}
			else {
				long amount = Long.parseLong(value.substring(0, value.length() - 1));
				duration = switch (value.charAt(value.length() - 1)) {
					case 's' -> Duration.ofSeconds(amount);
					case 'm' -> Duration.ofMinutes(amount);
					case 'h' -> Duration.ofHours(amount);
					default -> throw new NumberFormatException();
				};
			}
		}
		catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException ex) {
			throw new IllegalArgumentException(
					property + ": '" + text + "' is not a duration such as 60s, 10m, 2h or PT10M");
		}
		if (duration.compareTo(shortest) < 0 || duration.compareTo(LONGEST) > 0) {
			throw new IllegalArgumentException(property + ": " + text + " is outside " + shortest.toSeconds() + "s.."
					+ LONGEST.toHours() + "h (the soak's own time limit is 3 h)");
		}
		return duration;
	}

	/**
	 * The fault schedule, one step per call, on a random address each time; every fault
	 * is written to the fault log and, stamped with the wall-clock time, to the status
	 * output. The workers reach each master through a proxy ({@link RewritingProxy}), the
	 * address they were given; the faults act on the server behind it. On five masters
	 * ({@link #QUORUM_CYCLE}) at most two are down or paused at once, except in two
	 * steps: in one a third restarts while the first two are still held back by the
	 * restart guard, so no quorum forms until the guard lets them back; in the other
	 * three freeze with commands in flight to them and are then killed and restarted
	 * empty together, and Lettuce sends those commands again to the new processes (a
	 * {@code SET NX} there answers OK on a key another holder still holds on the first
	 * three). Besides: a master restarted empty whose {@code INFO} reports its uptime
	 * stepped a minute forward (a wall clock stepped after a reboot); the address
	 * switched to a long-running spare server (empty, or with the dataset it kept from
	 * serving another address); memory pressure on a master given a small memory limit
	 * and an eviction policy, filled until it evicts, then set back to
	 * {@code noeviction}; and {@code FLUSHALL}. Then three losses that keep the dataset
	 * marker, each starting from a lagging copy of the master ({@link #laggingCopy}): the
	 * copy promoted behind the address and restarted from its append-only file during its
	 * hold-back ({@link #promotedAofRestart}), the copy promoted behind the address over
	 * the client connections open ({@link #keptConnectionsFailover}), and the master
	 * resynced from the copy and failed back ({@link #resyncFailback}). On three masters
	 * the same schedule takes one as the minority and two as the majority.
	 * <p>
	 * On one master ({@link #ONE_MASTER_CYCLE}) each step takes the master, and keeps its
	 * data: it is saved with writes paused before a kill or a restart and its new process
	 * starts from the snapshot, and a failover promotes a replica that has every write.
	 * There is no minority to spare and no third to restart; between the other steps its
	 * clients' connections are killed ({@code CLIENT KILL TYPE pubsub}, now and then
	 * {@code normal}), so that a hand-over's message is lost or heard on a pub/sub
	 * connection that was not the one its round was sent under. With
	 * {@code -Dsoak.data-loss=true} ({@link #ONE_MASTER_LOSSY_CYCLE}) the kill comes back
	 * empty or with its data at random, and the steps that lose data are added.
	 */
	static final class FaultInjector {

		/**
		 * The restart guard's hold on a restarted node, plus the up to two seconds its
		 * start may be dated late (an uptime of whole seconds, taken a second short).
		 */
		private static final Duration GUARD = LEASE.plusSeconds(2);

		/** The policies the memory-pressure step sets, each evicting keys with a TTL. */
		private static final List<String> EVICTION_POLICIES = List.of("volatile-lru", "allkeys-lru", "volatile-random",
				"allkeys-random");

		/** A filler value, 64 KiB. */
		private static final String FILLER = "x".repeat(64 * 1024);

		/** The faults, in the order of the five (and three) masters' schedule. */
		enum Fault {

			KILL_RESTART, PAUSE, RESTART_EMPTY, INFLIGHT_RESTART, CLOCK_STEP, FAILOVER, EVICTION, FLUSHALL,
			RESTART_THIRD, CLIENT_KILL, PROMOTED_AOF_RESTART, KEPT_CONNECTIONS_FAILOVER, RESYNC_FAILBACK

		}

		/** The schedule on three or five masters, one step each, over and over. */
		private static final List<Fault> QUORUM_CYCLE = List.of(Fault.KILL_RESTART, Fault.PAUSE, Fault.RESTART_EMPTY,
				Fault.INFLIGHT_RESTART, Fault.CLOCK_STEP, Fault.FAILOVER, Fault.EVICTION, Fault.FLUSHALL,
				Fault.RESTART_THIRD, Fault.PROMOTED_AOF_RESTART, Fault.KEPT_CONNECTIONS_FAILOVER,
				Fault.RESYNC_FAILBACK);

		/**
		 * The schedule on one master: no minority to spare, no third to restart, every
		 * restart and failover keeping the data; client kills in between, aimed at
		 * hand-overs in flight.
		 */
		private static final List<Fault> ONE_MASTER_CYCLE = List.of(Fault.KILL_RESTART, Fault.PAUSE, Fault.CLIENT_KILL,
				Fault.INFLIGHT_RESTART, Fault.CLIENT_KILL, Fault.CLOCK_STEP, Fault.FAILOVER, Fault.CLIENT_KILL);

		/**
		 * The schedule on one master with {@code -Dsoak.data-loss=true}: the restarts
		 * empty, the failover to another dataset, eviction and {@code FLUSHALL} too.
		 */
		private static final List<Fault> ONE_MASTER_LOSSY_CYCLE = List.of(Fault.KILL_RESTART, Fault.PAUSE,
				Fault.CLIENT_KILL, Fault.RESTART_EMPTY, Fault.INFLIGHT_RESTART, Fault.CLIENT_KILL, Fault.CLOCK_STEP,
				Fault.FAILOVER, Fault.CLIENT_KILL, Fault.EVICTION, Fault.FLUSHALL, Fault.CLIENT_KILL);

		/** A command's calls in {@code INFO commandstats}. */
		private static final Pattern CALLS = Pattern.compile("^cmdstat_(evalsha|eval|publish|set):calls=(\\d+)");

		/** The dataset marker and the pending record of the restart guard. */
		private static final String MARKER = "lock:{quorumlock:marker}";

		private static final String PENDING = "lock:{quorumlock:pending}";

		private final RedisServers servers;

		/**
		 * The spare with an append-only file, server {@link #aofIndex}: in a slot of its
		 * own, never among {@link #spares}.
		 */
		private final RedisServer aof;

		private final int aofIndex;

		private final List<RewritingProxy> proxies;

		/** For each address (proxy), the index of the server behind it now. */
		private final int[] behind;

		/** The servers without persistence no address reaches now. */
		private final ArrayDeque<Integer> spares = new ArrayDeque<>();

		private final Path log;

		private final Random random;

		private final List<Fault> cycle;

		/** Calls by command, added up by {@link #tally}. */
		private final Map<String, Long> calls = new TreeMap<>();

		/** Whether restarts and failovers keep the data: one master without data loss. */
		private final boolean keepData;

		/** How far each proxy's INFO steps the uptime, in seconds. */
		private final long[] clockSteps;

		private int step;

		FaultInjector(RedisServers servers, RedisServer aof, List<RewritingProxy> proxies, Path log, Random random) {
			this.servers = servers;
			this.aof = aof;
			this.aofIndex = servers.size();
			this.proxies = proxies;
			this.behind = IntStream.range(0, proxies.size()).toArray();
			for (int i = proxies.size(); i < servers.size(); i++) {
				this.spares.add(i);
			}
			this.clockSteps = new long[proxies.size()];
			this.log = log;
			this.random = random;
			this.keepData = proxies.size() == 1 && !DATA_LOSS;
			this.cycle = (proxies.size() == 1) ? (DATA_LOSS ? ONE_MASTER_LOSSY_CYCLE : ONE_MASTER_CYCLE) : QUORUM_CYCLE;
		}

		/** The server the address {@code address} reaches now. */
		private RedisServer server(int address) {
			return node(this.behind[address]);
		}

		/** Server {@code index}: one of {@link #servers}, or the AOF spare. */
		private RedisServer node(int index) {
			return (index == this.aofIndex) ? this.aof : this.servers.node(index);
		}

		/** Run the next fault of the cycle and the quiet time after it. */
		void next(CompletableFuture<?> stop, long end) throws InterruptedException {
			int size = this.proxies.size();
			switch (this.cycle.get(this.step++ % this.cycle.size())) {
				case KILL_RESTART -> {
					if (size == 1) {
						killRestartOne(stop, end);
						return;
					}
					// a minority crashes, stays down a while, comes back empty
					List<Integer> minority = minority();
					minority.forEach(this::kill);
					if (!quiet(stop, end, Duration.ofSeconds(1))) {
						return;
					}
					minority.forEach((n) -> restart(n, "kill-restart"));
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case PAUSE -> {
					// one master freezes past the lease, then resumes
					int c = this.random.nextInt(size);
					server(c).pause();
					record("pause", c, "");
					quiet(stop, end, LEASE.plusMillis(500));
					server(c).resume();
					quiet(stop, end, Duration.ofSeconds(1));
				}
				case RESTART_EMPTY -> {
					// one master restarts at once, empty
					int d = this.random.nextInt(size);
					restart(d, "restart-empty");
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case INFLIGHT_RESTART -> {
					// Commands in flight at a restart: a majority (the master, when there
					// is one) freezes while the workers keep sending (their SET NX for
					// busy keys, renewals, fencing), then dies and comes back empty at
					// once. Lettuce reconnects within a few ms and sends the commands in
					// flight again to the new, empty processes; the answers come back
					// within the node timeout and must not vote.
					List<Integer> nodes = IntStream.range(0, size).boxed().collect(Collectors.toList());
					Collections.shuffle(nodes, this.random);
					// On one master keeping its data, it is saved with writes paused
					// first: what it is sent while frozen it never ran, and its new
					// process starts from the snapshot.
					List<Integer> majority = nodes.subList(0, size / 2 + 1);
					Path snapshot = this.keepData ? snapshot(majority.get(0)) : null;
					majority.forEach((n) -> server(n).pause());
					if (!quiet(stop, end, Duration.ofMillis(150))) {
						majority.forEach((n) -> server(n).resume());
						unpause(majority.get(0), snapshot);
						return;
					}
					majority.forEach(this::kill);
					CompletableFuture
						.allOf(majority.stream()
							.map((n) -> CompletableFuture.runAsync(() -> server(n).restart()))
							.toArray(CompletableFuture[]::new))
						.join();
					restored(snapshot);
					majority
						.forEach((n) -> record((snapshot != null) ? "inflight-restart-keep-data" : "inflight-restart",
								n, ""));
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case CLOCK_STEP -> {
					// A reboot with a wall-clock step: the master comes back empty and
					// its INFO reports an uptime a minute longer than it has been up, as
					// Redis does when the clock is stepped after it started
					// (on one master keeping its data, back with it)
					int e = this.random.nextInt(size);
					this.clockSteps[e] += 60;
					this.proxies.get(e).stepClock(this.clockSteps[e]);
					Path snapshot = this.keepData ? snapshot(e) : null;
					server(e).restart();
					restored(snapshot);
					record((snapshot != null) ? "restart-clock-step-keep-data" : "restart-clock-step", e,
							"uptime +" + this.clockSteps[e] + " s");
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case FAILOVER -> {
					if (this.keepData) {
						promoteReplica(stop, end);
						return;
					}
					failover(this.random.nextInt(size));
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case EVICTION -> {
					// Memory pressure: a memory limit just above what the master uses,
					// an eviction policy, filler written until it evicts once an engine
					// has seen the policy; a lease later back to noeviction without a
					// limit, after which the master must sit out the restart guard
					int g = this.random.nextInt(size);
					evict(g, EVICTION_POLICIES.get(this.random.nextInt(EVICTION_POLICIES.size())));
					quiet(stop, end, LEASE);
					long evicted = noEviction(g);
					status("eviction over on " + server(g) + ", " + evicted + " keys evicted in all");
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case FLUSHALL -> {
					// every key of one master deleted, the server process running on
					int h = this.random.nextInt(size);
					server(h).flushAll();
					record("flushall", h, "");
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case RESTART_THIRD -> {
					// The case the restart guard exists for: a minority crashes and
					// comes back empty, then one more master restarts empty. A holder
					// that kept its lease on the others through the crash now holds it
					// on a minority, and without the guard the empty majority would
					// grant the key again while that lease is still valid.
					List<Integer> minority = minority();
					List<Integer> others = IntStream.range(0, size)
						.filter((i) -> !minority.contains(i))
						.boxed()
						.toList();
					int c = others.get(this.random.nextInt(others.size()));
					minority.forEach(this::kill);
					if (!quiet(stop, end, Duration.ofSeconds(1))) {
						return;
					}
					minority.forEach((n) -> restart(n, "kill-restart"));
					restart(c, "restart-third-empty");
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case CLIENT_KILL -> clientKills(stop, end);
				case PROMOTED_AOF_RESTART -> promotedAofRestart(stop, end);
				case KEPT_CONNECTIONS_FAILOVER -> keptConnectionsFailover(stop, end);
				case RESYNC_FAILBACK -> resyncFailback(stop, end);
			}
		}

		/**
		 * A failover behind an address: the address starts reaching a spare, long-running
		 * server, flushed (empty) or keeping the dataset it had when another address
		 * reached it; the server it reached before becomes a spare.
		 */
		private void failover(int address) {
			int next = this.spares.remove();
			boolean empty = this.random.nextBoolean();
			RedisServer spare = node(next);
			if (!spare.isRunning()) {
				spare.restart();
			}
			if (empty) {
				spare.flushAll();
			}
			RedisServer before = server(address);
			pointTo(address, next, false);
			record(empty ? "failover-to-empty" : "failover-to-other-dataset", address, "from " + before);
		}

		/**
		 * From now on {@code address} reaches server {@code next}, the connections open
		 * now dropped or kept ({@link RewritingProxy#pointTo(RedisServer, boolean)}); the
		 * server it reached becomes a spare (the AOF spare goes back to its own slot).
		 * @return how many client connections were kept open
		 */
		private int pointTo(int address, int next, boolean keepConnections) {
			int before = this.behind[address];
			this.behind[address] = next;
			int kept;
			try {
				kept = this.proxies.get(address).pointTo(node(next), keepConnections);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			if (before != this.aofIndex) {
				this.spares.add(before);
			}
			return kept;
		}

		/**
		 * A lagging replica promoted behind an address, then restarted from its
		 * append-only file during its hold-back: the AOF spare becomes a lagging copy of
		 * the master behind a random address ({@link #laggingCopy}); the address then
		 * reaches it (the connections open drop; the master becomes a spare), and after a
		 * random time shorter than the guard it is killed and restarted: back with its
		 * data and marker ({@code fsync always}), as a new process without
		 * {@code master_replid2}, so nothing in its {@code INFO} shows the promotion.
		 * After the quiet time the address fails over to a spare ({@link #failover}),
		 * which frees the AOF spare for the next round and keeps it out of the other
		 * faults' restarts (which it would survive with its data).
		 */
		private void promotedAofRestart(CompletableFuture<?> stop, long end) throws InterruptedException {
			int f = this.random.nextInt(this.proxies.size());
			RedisServer master = server(f);
			if (!laggingCopy(f, this.aof, stop, end)) {
				return;
			}
			pointTo(f, this.aofIndex, false);
			record("failover-to-lagging-replica", f, "from " + master);
			long delay = this.random.nextInt((int) GUARD.toMillis());
			if (!quiet(stop, end, Duration.ofMillis(delay))) {
				return;
			}
			// what it wrote since the copy is in its append-only file once the rewrite
			// that follows a sync is done (it takes a few ms)
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> infoField(this.aof, "persistence", "aof_rewrite_in_progress") == 0
						&& infoField(this.aof, "persistence", "aof_rewrite_scheduled") == 0);
			boolean marked = this.aof.exists(MARKER);
			this.aof.kill();
			this.aof.restart();
			record("restart-promoted-from-aof", f,
					delay + " ms after the failover, marker before/after: " + marked + "/" + this.aof.exists(MARKER));
			if (!quiet(stop, end, GUARD.plusMillis(500))) {
				return;
			}
			failover(f);
			quiet(stop, end, GUARD.plusMillis(500));
		}

		/**
		 * A failover behind a proxy that keeps the client connections open: a spare
		 * becomes a lagging copy of the master behind a random address
		 * ({@link #laggingCopy}), then the address reaches it over the connections open
		 * now, no disconnect seen; half the time another client loaded the lock scripts
		 * on it first, so that no {@code NOSCRIPT} shows the switch either. The master
		 * becomes a spare.
		 */
		private void keptConnectionsFailover(CompletableFuture<?> stop, long end) throws InterruptedException {
			int f = this.random.nextInt(this.proxies.size());
			RedisServer master = server(f);
			int next = this.spares.remove();
			RedisServer spare = node(next);
			boolean scripts = this.random.nextBoolean();
			if (!laggingCopy(f, spare, stop, end)) {
				this.spares.addFirst(next);
				return;
			}
			if (scripts) {
				for (Script script : RedisNode.SCRIPTS) {
					spare.call("SCRIPT", "LOAD", script.text());
				}
			}
			int kept = pointTo(f, next, true);
			record(scripts ? "failover-kept-connections-scripts-loaded" : "failover-kept-connections", f,
					"from " + master + ", " + kept + " connections kept");
			quiet(stop, end, GUARD.plusMillis(500));
		}

		/**
		 * A master resynced from a lagging replica, then failed back: a spare becomes a
		 * lagging copy of the master behind a random address ({@link #laggingCopy}); the
		 * master then becomes a replica of the spare (a full resync: the keys written
		 * since the copy are gone, the marker kept), and once in sync a master again: the
		 * same process and the same client connections, another replication history. The
		 * address keeps reaching it; the spare stays a spare.
		 */
		private void resyncFailback(CompletableFuture<?> stop, long end) throws InterruptedException {
			int f = this.random.nextInt(this.proxies.size());
			RedisServer master = server(f);
			int next = this.spares.remove();
			this.spares.add(next);
			RedisServer spare = node(next);
			if (!laggingCopy(f, spare, stop, end)) {
				return;
			}
			long ahead = infoField(master, "replication", "master_repl_offset")
					- infoField(spare, "replication", "master_repl_offset");
			replicate(master, spare);
			record("resync-from-lagging-replica", f, "from " + spare + ", which lagged " + ahead + " bytes behind");
			master.call("REPLICAOF", "NO", "ONE");
			record("failback", f, "");
			quiet(stop, end, GUARD.plusMillis(500));
		}

		/**
		 * Make {@code spare} a copy of the master behind {@code address} that lags from
		 * now on: its replica until in sync, then a master of its own
		 * ({@code REPLICAOF NO ONE}); the workers then grant on the master for 200 to 800
		 * ms.
		 * @return false if the workers stopped or the soak ended meanwhile
		 */
		private boolean laggingCopy(int address, RedisServer spare, CompletableFuture<?> stop, long end)
				throws InterruptedException {
			if (!spare.isRunning()) {
				spare.restart();
			}
			replicate(spare, server(address));
			spare.call("REPLICAOF", "NO", "ONE");
			record("lagging-copy", address, ((spare == this.aof) ? "the AOF spare " : "") + spare + " at offset "
					+ infoField(spare, "replication", "master_repl_offset") + ", marker " + spare.exists(MARKER));
			return quiet(stop, end, Duration.ofMillis(200 + this.random.nextInt(601)));
		}

		/**
		 * {@code replica} replicates {@code master} until it is in sync: a full sync at
		 * once (no diskless sync delay), which leaves no RDB file behind on a server
		 * without persistence (its later restarts stay empty).
		 */
		private static void replicate(RedisServer replica, RedisServer master) {
			master.call("CONFIG", "SET", "repl-diskless-sync-delay", "0");
			replica.call("CONFIG", "SET", "rdb-del-sync-files", "yes");
			replica.call("REPLICAOF", master.host(), Integer.toString(master.port()));
			await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> {
				String info = (String) replica.call("INFO", "replication");
				return info.contains("master_link_status:up") && !info.contains("master_sync_in_progress:1");
			});
		}

		/**
		 * A minority of the masters, at random: two of five (drawn as the schedule always
		 * drew them, so that a seed replays the same faults), one of three.
		 */
		private List<Integer> minority() {
			int size = this.proxies.size();
			int a = this.random.nextInt(size);
			if (size < 5) {
				return List.of(a);
			}
			int b = (a + 1 + this.random.nextInt(size - 1)) % size;
			return List.of(a, b);
		}

		/**
		 * The one master crashes, stays down a second and comes back with the data it had
		 * (with {@code -Dsoak.data-loss=true}, at random, empty): writes paused and the
		 * dataset saved before the kill ({@link #snapshot}), the new process started from
		 * the snapshot (as an append-only file with {@code fsync always} brings it back),
		 * the snapshot then deleted so that later restarts come back empty.
		 */
		private void killRestartOne(CompletableFuture<?> stop, long end) throws InterruptedException {
			boolean keep = this.keepData || this.random.nextBoolean();
			RedisServer server = server(0);
			Path snapshot = keep ? snapshot(0) : null;
			server.kill();
			record(keep ? "kill-keep-data" : "kill", 0, "");
			boolean more = quiet(stop, end, Duration.ofSeconds(1));
			server.restart();
			restored(snapshot);
			if (more) {
				quiet(stop, end, GUARD.plusMillis(500));
			}
		}

		/**
		 * Pause the writes of the server behind {@code address}, so that every write it
		 * answered is in the snapshot and none comes after ({@code CLIENT PAUSE WRITE}),
		 * and save its dataset; its next process starts from the snapshot.
		 * @return the snapshot, for {@link #restored}
		 */
		private Path snapshot(int address) {
			RedisServer server = server(address);
			List<?> dir = (List<?>) server.call("CONFIG", "GET", "dir");
			server.call("CLIENT", "PAUSE", "10000", "WRITE");
			server.call("SAVE");
			tally(address);
			return Path.of((String) dir.get(1), "dump.rdb");
		}

		/**
		 * A snapshot the restarted process has loaded, deleted: later restarts are empty.
		 */
		private static void restored(Path snapshot) {
			if (snapshot == null) {
				return;
			}
			try {
				Files.deleteIfExists(snapshot);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		/** A snapshot not used after all: writes go on, the snapshot is deleted. */
		private void unpause(int address, Path snapshot) {
			if (snapshot != null) {
				server(address).call("CLIENT", "UNPAUSE");
				restored(snapshot);
			}
		}

		/**
		 * A failover that keeps the data, as a replica promoted by Sentinel or a managed
		 * service does it: a spare becomes a replica of the master, its writes are paused
		 * once it is in sync, the spare is promoted when it has every write, and the
		 * address then reaches it (the connections open drop); the old master becomes a
		 * spare.
		 */
		private void promoteReplica(CompletableFuture<?> stop, long end) throws InterruptedException {
			RedisServer master = server(0);
			int next = this.spares.remove();
			RedisServer spare = node(next);
			if (!spare.isRunning()) {
				spare.restart();
			}
			master.call("CONFIG", "SET", "repl-diskless-sync-delay", "0");
			spare.call("REPLICAOF", master.host(), Integer.toString(master.port()));
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> "up".equals(infoText(spare, "replication", "master_link_status")));
			master.call("CLIENT", "PAUSE", "10000", "WRITE");
			long offset = infoField(master, "replication", "master_repl_offset");
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(2))
				.until(() -> infoField(spare, "replication", "slave_repl_offset") >= offset);
			spare.call("REPLICAOF", "NO", "ONE");
			tally(0);
			spare.call("CONFIG", "RESETSTAT"); // what it ran as a replica the master
												// counted
			int before = this.behind[0];
			this.behind[0] = next;
			try {
				this.proxies.get(0).pointTo(spare);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			master.call("CLIENT", "UNPAUSE");
			this.spares.add(before);
			record("failover-to-replica", 0, "from " + master + " at offset " + offset);
			quiet(stop, end, GUARD.plusMillis(500));
		}

		/**
		 * The clients' connections to one master killed a few times, a few hundred ms
		 * apart: mostly the pub/sub connections ({@code CLIENT KILL TYPE pubsub}), so
		 * that hand-over messages go unheard or arrive on a new connection, which the
		 * waiter must not trust for a round sent before it; one kill in four of the
		 * command connections ({@code TYPE normal}), with commands in flight.
		 */
		private void clientKills(CompletableFuture<?> stop, long end) throws InterruptedException {
			int k = this.random.nextInt(this.proxies.size());
			for (int i = 0; i < 5; i++) {
				String type = (this.random.nextInt(4) == 0) ? "normal" : "pubsub";
				Object killed = server(k).call("CLIENT", "KILL", "TYPE", type);
				record(type + "-kill", k, killed + " connections");
				if (!quiet(stop, end, Duration.ofMillis(100 + this.random.nextInt(400)))) {
					return;
				}
			}
			quiet(stop, end, Duration.ofSeconds(1));
		}

		/**
		 * Give the master a memory limit 1 MiB above what it uses and {@code policy},
		 * then, once an engine has seen it evicting (it records that on the master: the
		 * dataset marker goes, and a new nonce names the loss, after which the granting
		 * scripts refuse on it for every engine), write filler keys (with a TTL, so that
		 * every policy may take them) until it has evicted some keys. The engines read a
		 * master's state every second; keys evicted before that read are outside what
		 * they promise (an eviction policy is the operator's to avoid).
		 */
		private void evict(int address, String policy) {
			RedisServer server = server(address);
			long before = infoField(server, "stats", "evicted_keys");
			long used = infoField(server, "memory", "used_memory");
			Object nonce = server.call("HGET", PENDING, "nonce");
			long set = System.nanoTime();
			server.call("CONFIG", "SET", "maxmemory", Long.toString(used + 1024 * 1024));
			server.call("CONFIG", "SET", "maxmemory-policy", policy);
			try {
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(10))
					.until(() -> !server.exists(MARKER)
							&& !Objects.equals(nonce, server.call("HGET", PENDING, "nonce")));
			}
			catch (ConditionTimeoutException ex) {
				record("eviction-unseen", address, policy + ": no engine recorded it in 10 s, not filled");
				return;
			}
			long seenAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - set);
			long evicted = 0;
			for (int i = 0; i < 200 && evicted < 20; i++) {
				try {
					server.call("SET", "soak-filler:" + i, FILLER, "EX", "3600");
				}
				catch (RedisErrorReply ex) {
					// out of memory with nothing left to evict under this policy
				}
				evicted = infoField(server, "stats", "evicted_keys") - before;
			}
			record("eviction-pressure", address, policy + ", seen by an engine after " + seenAfter + " ms, " + evicted
					+ " keys evicted while filling");
		}

		/**
		 * Back to {@code noeviction} without a limit, the filler deleted.
		 * @return how many keys the master evicted since the limit was set
		 */
		private long noEviction(int address) {
			RedisServer server = server(address);
			server.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			server.call("CONFIG", "SET", "maxmemory", "0");
			for (int i = 0; i < 200; i++) {
				server.call("UNLINK", "soak-filler:" + i);
			}
			return infoField(server, "stats", "evicted_keys");
		}

		private static long infoField(RedisServer server, String section, String field) {
			return Long.parseLong(infoText(server, section, field));
		}

		private static String infoText(RedisServer server, String section, String field) {
			String info = (String) server.call("INFO", section);
			for (String line : info.split("\r?\n")) {
				if (line.startsWith(field + ":")) {
					return line.substring(field.length() + 1).trim();
				}
			}
			throw new IllegalStateException("no " + field + " in INFO " + section + " of " + server);
		}

		/**
		 * Calls of {@code EVALSHA} (every script, not split by script), {@code EVAL},
		 * {@code PUBLISH} (run by the release scripts) and {@code SET} by the master: on
		 * one master keeping its data, added up over its processes (read before each
		 * restart and failover); else since the process behind the first address last
		 * started.
		 */
		String commandStats() {
			tally(0);
			String since = this.keepData ? "over every process of the master"
					: "of " + server(0) + " since it last started";
			return "  INFO commandstats, calls " + since + ": " + this.calls;
		}

		/**
		 * Add the calls the server behind {@code address} counted to {@link #calls}, and
		 * reset its counts; after a restart or failover its successor counts anew.
		 */
		private void tally(int address) {
			RedisServer server = server(address);
			String info = (String) server.call("INFO", "commandstats");
			info.lines().filter(CALLS.asPredicate()).forEach((line) -> {
				Matcher m = CALLS.matcher(line);
				m.find();
				this.calls.merge(m.group(1), Long.parseLong(m.group(2)), Long::sum);
			});
			server.call("CONFIG", "RESETSTAT");
		}

		/**
		 * Bring every server back: resume the paused, restart the dead, every one a
		 * master, no eviction.
		 */
		void healAll() {
			for (int i = 0; i <= this.aofIndex; i++) {
				RedisServer node = node(i);
				node.resume();
				if (!node.isRunning()) {
					node.restart();
				}
				node.call("REPLICAOF", "NO", "ONE");
				node.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
				node.call("CONFIG", "SET", "maxmemory", "0");
			}
		}

		private void kill(int address) {
			server(address).kill();
			record("kill", address, "");
		}

		private void restart(int address, String kind) {
			server(address).restart();
			if (!"kill-restart".equals(kind)) {
				record(kind, address, "");
			}
		}

		/** Wait out the quiet time, or until the workers stop or the soak ends. */
		private boolean quiet(CompletableFuture<?> stop, long end, Duration time) throws InterruptedException {
			long left = Math.min(time.toNanos(), end - System.nanoTime());
			if (left <= 0) {
				return false;
			}
			try {
				stop.get(left, TimeUnit.NANOSECONDS);
				return false;
			}
			catch (TimeoutException ex) {
				return true;
			}
			catch (ExecutionException ex) {
				return false;
			}
		}

		/**
		 * Log a fault: {@code F nanoTime kind server address detail} in the fault log,
		 * and the same stamped with the wall-clock time in the status output.
		 */
		private void record(String kind, int address, String detail) {
			String line = "F\t" + System.nanoTime() + "\t" + kind + "\t" + server(address) + "\t"
					+ this.proxies.get(address).uri() + "\t" + detail + "\n";
			try {
				Files.writeString(this.log, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
						StandardOpenOption.APPEND);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			status(line.substring(2).trim().replace('\t', ' '));
		}

		private static void status(String text) {
			System.out.println("soak: " + Instant.now() + " " + text);
		}

	}

	/**
	 * Counts the release messages one address carries, by pattern
	 * ({@code PSUBSCRIBE lock:*:released*}: a key's channel, and each process's own
	 * channel of it, where hand-overs go): a message that is a 40-hex-digit token is a
	 * hand-over (the key set to that waiter's token), {@code 1} a plain release. It
	 * reconnects after every fault and misses what is published while it is cut off, so
	 * the counts are at least what happened.
	 */
	static final class ReleaseCounter implements AutoCloseable {

		private static final Pattern TOKEN = Pattern.compile("[0-9a-f]{40}");

		private final ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofMillis(20)))
			.build();

		private final RedisClient client;

		private final StatefulRedisPubSubConnection<String, String> connection;

		private final AtomicLong handOvers = new AtomicLong();

		private final AtomicLong releases = new AtomicLong();

		private final AtomicLong others = new AtomicLong();

		private final String uri;

		ReleaseCounter(String uri) {
			this.uri = uri;
			this.client = RedisClient.create(this.resources, uri);
			this.connection = this.client.connectPubSub();
			this.connection.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String pattern, String channel, String message) {
					if (TOKEN.matcher(message).matches()) {
						ReleaseCounter.this.handOvers.incrementAndGet();
					}
					else if ("1".equals(message)) {
						ReleaseCounter.this.releases.incrementAndGet();
					}
					else {
						ReleaseCounter.this.others.incrementAndGet();
					}
				}

			});
			this.connection.sync().psubscribe("lock:*:released*");
		}

		long handOvers() {
			return this.handOvers.get();
		}

		String describe() {
			return "release messages heard on " + this.uri + " (at least):\n  hand-overs (a token):     "
					+ this.handOvers + "\n  plain releases (1):       " + this.releases
					+ "\n  other messages:           " + this.others;
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
			this.resources.shutdown();
		}

	}

}
