package io.quorumlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-JVM fault soak, run only by {@code -Psoak}: five masters, three worker JVMs
 * ({@link SoakWorker}) of eight threads locking 20 keys with a 2 s renewed lease, while
 * this process kills and restarts a minority of the masters, pauses one past the lease,
 * restarts one empty, restarts a third while two are still held back by the restart
 * guard, and restarts a majority with commands in flight (frozen, then killed and
 * restarted empty at once, so that Lettuce sends what was in flight again to the new
 * processes within the node timeout). The restart guard is in force ({@code rejoin-delay}
 * = the lease). Afterwards {@link SoakChecker} reads the workers' logs and this process's
 * fault log: no two holds of a key may overlap and fencing tokens must rise in enter
 * order (except where the lock reported the lease lost, counted apart).
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

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(5);

	@Test
	void threeJvmsUnderMasterFaultsNeverHoldAKeyTogether() throws Exception {
		Duration duration = duration(System.getProperty("soak.duration", "60s"), "soak.duration",
				Duration.ofSeconds(10));
		long seed = Long.getLong("soak.seed", System.nanoTime());
		Path dir = Path.of("target", "soak", "run-" + System.currentTimeMillis()).toAbsolutePath();
		Files.createDirectories(dir);
		System.out.printf(
				"soak: %s, seed %d, %d JVMs x %d threads, %d keys, lease %d ms, rejoin-delay %d ms, logs in %s%n",
				duration, seed, WORKERS, THREADS, KEYS, LEASE.toMillis(), REJOIN_DELAY.toMillis(), dir);
		List<Process> workers = new ArrayList<>();
		FaultInjector faults = new FaultInjector(redis, dir.resolve("faults.log"), new Random(seed));
		try {
			for (int i = 0; i < WORKERS; i++) {
				workers.add(startWorker(dir, i, duration));
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
			faults.healAll();
		}
		SoakChecker.Report report = SoakChecker.check(dir);
		System.out.println(report.describe());
		Files.writeString(dir.resolve("report.txt"), report.describe() + "\n", StandardCharsets.UTF_8);
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
	}

	private static Process startWorker(Path dir, int index, Duration duration) throws IOException {
		List<String> command = new ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:+UseSerialGC",
				"-XX:TieredStopAtLevel=1", "-Dsoak.rejoinDelayMillis=" + REJOIN_DELAY.toMillis(),
				"-Dsoak.modes.log=" + dir.resolve("modes-" + index + ".log"), "-Dsoak.modes.threads=" + MODE_THREADS,
				"-Dsoak.nodeTimeoutMillis=" + NODE_TIMEOUT.toMillis(), "-cp", System.getProperty("java.class.path"),
				SoakWorker.class.getName(), dir.resolve("worker-" + index + ".log").toString(), "jvm" + index,
				Long.toString(duration.toMillis()), Integer.toString(THREADS), Integer.toString(KEYS),
				Long.toString(LEASE.toMillis())));
		command.addAll(redis.uris());
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
	 * The fault schedule, one step per call, on a random node each time; every fault is
	 * written to the fault log. At most two of the five masters are down or paused at
	 * once, except in two steps: in one a third restarts while the first two are still
	 * held back by the restart guard, so no quorum forms until the guard lets them back;
	 * in the other three freeze with commands in flight to them and are then killed and
	 * restarted empty together, and Lettuce sends those commands again to the new
	 * processes (a {@code SET NX} there answers OK on a key another holder still holds on
	 * the first three).
	 */
	static final class FaultInjector {

		/**
		 * The restart guard's hold on a restarted node, plus the up to two seconds its
		 * start may be dated late (an uptime of whole seconds, taken a second short).
		 */
		private static final Duration GUARD = LEASE.plusSeconds(2);

		private final RedisServers servers;

		private final Path log;

		private final Random random;

		private int step;

		FaultInjector(RedisServers servers, Path log, Random random) {
			this.servers = servers;
			this.log = log;
			this.random = random;
		}

		/** Run the next fault of the cycle and the quiet time after it. */
		void next(CompletableFuture<?> stop, long end) throws InterruptedException {
			int size = this.servers.size();
			switch (this.step++ % 5) {
				case 0 -> {
					// a minority crashes, stays down a while, comes back empty
					int a = this.random.nextInt(size);
					int b = (a + 1 + this.random.nextInt(size - 1)) % size;
					kill(a);
					kill(b);
					if (!quiet(stop, end, Duration.ofSeconds(1))) {
						return;
					}
					restart(a, "kill-restart");
					restart(b, "kill-restart");
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case 1 -> {
					// one master freezes past the lease, then resumes
					int c = this.random.nextInt(size);
					this.servers.node(c).pause();
					record("pause", c);
					quiet(stop, end, LEASE.plusMillis(500));
					this.servers.node(c).resume();
					quiet(stop, end, Duration.ofSeconds(1));
				}
				case 2 -> {
					// one master restarts at once, empty
					int d = this.random.nextInt(size);
					restart(d, "restart-empty");
					quiet(stop, end, GUARD.plusMillis(500));
				}
				case 3 -> {
					// Commands in flight at a restart: a majority freezes while the
					// workers keep sending (their SET NX for busy keys, renewals,
					// fencing), then dies and comes back empty at once. Lettuce
					// reconnects within a few ms and sends the commands in flight again
					// to the new, empty processes; the answers come back within the node
					// timeout and must not vote.
					List<Integer> nodes = IntStream.range(0, size).boxed().collect(Collectors.toList());
					Collections.shuffle(nodes, this.random);
					List<Integer> majority = nodes.subList(0, size / 2 + 1);
					majority.forEach((n) -> this.servers.node(n).pause());
					if (!quiet(stop, end, Duration.ofMillis(150))) {
						majority.forEach((n) -> this.servers.node(n).resume());
						return;
					}
					majority.forEach(this::kill);
					CompletableFuture
						.allOf(majority.stream()
							.map((n) -> CompletableFuture.runAsync(() -> this.servers.node(n).restart()))
							.toArray(CompletableFuture[]::new))
						.join();
					majority.forEach((n) -> record("inflight-restart", n));
					quiet(stop, end, GUARD.plusMillis(500));
				}
				default -> {
					// The case the restart guard exists for: two masters crash and come
					// back empty, then a third restarts empty. A holder that kept its
					// lease on the other three through the crash now holds it on two, and
					// without the guard the three empty masters would grant the key again
					// while that lease is still valid.
					int a = this.random.nextInt(size);
					int b = (a + 1 + this.random.nextInt(size - 1)) % size;
					List<Integer> others = IntStream.range(0, size).filter((i) -> i != a && i != b).boxed().toList();
					int c = others.get(this.random.nextInt(others.size()));
					kill(a);
					kill(b);
					if (!quiet(stop, end, Duration.ofSeconds(1))) {
						return;
					}
					restart(a, "kill-restart");
					restart(b, "kill-restart");
					restart(c, "restart-third-empty");
					quiet(stop, end, GUARD.plusMillis(500));
				}
			}
		}

		/** Bring every node back: resume the paused, restart the dead. */
		void healAll() {
			for (int i = 0; i < this.servers.size(); i++) {
				RedisServer node = this.servers.node(i);
				node.resume();
				if (!node.isRunning()) {
					node.restart();
				}
			}
		}

		private void kill(int node) {
			this.servers.node(node).kill();
			record("kill", node);
		}

		private void restart(int node, String kind) {
			this.servers.node(node).restart();
			if (!"kill-restart".equals(kind)) {
				record(kind, node);
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

		private void record(String kind, int node) {
			String line = "F\t" + System.nanoTime() + "\t" + kind + "\t" + this.servers.node(node) + "\n";
			try {
				Files.writeString(this.log, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
						StandardOpenOption.APPEND);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			System.out.print("soak: " + line.substring(2));
		}

	}

}
