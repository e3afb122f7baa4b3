package io.quorumlock.redis;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockException;
import io.quorumlock.LockListener;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;

/**
 * One process of the soak ({@link SoakIntegrationTests}): a few threads lock random keys
 * out of a small set, ask for the fencing token, work a few ms and release, and every
 * hold is written to this process's log as an enter and an exit record (see
 * {@link SoakChecker} for the format), flushed per record so that the log survives a
 * crash. With {@code -Dsoak.modes.log} it runs the shared/exclusive and permit workloads
 * of {@link SoakModes} beside, on the same engine.
 * <p>
 * Arguments: {@code log jvm runMillis threads keys leaseMillis uri...}. It stops by
 * itself after {@code runMillis}, and at once (exit code 3) when its standard input
 * closes, that is, when the parent test process is gone.
 */
final class SoakWorker {

	/** Longest wait for a key; far above the few ms a holder works. */
	static final Duration WAIT_AT_MOST = Duration.ofSeconds(1);

	private final QuorumLockEngine locks;

	private final String jvm;

	private final int keys;

	private final Duration lease;

	private final BufferedWriter log;

	/** When the engine reported each lease lost, by lease identity, until its exit. */
	private final Map<Lease, Long> lostAt;

	private final AtomicLong acquired = new AtomicLong();

	private final AtomicLong notAcquired = new AtomicLong();

	private final AtomicLong unavailable = new AtomicLong();

	private final AtomicLong noToken = new AtomicLong();

	private final AtomicLong lost = new AtomicLong();

	private SoakWorker(QuorumLockEngine locks, String jvm, int keys, Duration lease, BufferedWriter log,
			Map<Lease, Long> lostAt) {
		this.locks = locks;
		this.lostAt = lostAt;
		this.jvm = jvm;
		this.keys = keys;
		this.lease = lease;
		this.log = log;
	}

	/**
	 * Run one soak process.
	 * @param args {@code log jvm runMillis threads keys leaseMillis uri...}
	 * @throws Exception on a failure, which the parent sees as a non-zero exit code
	 */
	public static void main(String[] args) throws Exception {
		if (args.length < 7) {
			System.err.println("usage: SoakWorker log jvm runMillis threads keys leaseMillis uri... (got "
					+ Arrays.toString(args) + ")");
			System.exit(2);
		}
		exitWhenParentIsGone();
		Path logFile = Path.of(args[0]);
		String jvm = args[1];
		long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[2]));
		int threads = Integer.parseInt(args[3]);
		int keys = Integer.parseInt(args[4]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
		List<String> uris = List.of(args).subList(6, args.length);
		long deadline = System.nanoTime() + runNanos;
		Map<Lease, Long> lostAt = new ConcurrentHashMap<>();
		try (QuorumLockEngine locks = QuorumLockEngine.builder()
			.nodes(uris)
			.nodeTimeout(Duration.ofMillis(Long.getLong("soak.nodeTimeoutMillis", 50)))
			.retryDelay(Duration.ofMillis(5), Duration.ofMillis(50))
			.defaults(LockOptions.none().lease(lease))
			.rejoinDelay(rejoinDelay(lease))
			.listener(new LockListener() {
				@Override
				public void onLost(LockRequest request, Lease lost, LeaseLostException cause) {
					lostAt.putIfAbsent(lost, System.nanoTime());
				}
			})
			.build(); BufferedWriter log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8)) {
			SoakWorker worker = new SoakWorker(locks, jvm, keys, lease, log, lostAt);
			SoakModes modes = SoakModes.fromProperties(locks, jvm, lease, lostAt);
			List<Thread> running = new ArrayList<>();
			if (modes != null) {
				running.addAll(modes.start(deadline));
			}
			for (int t = 0; t < threads; t++) {
				Thread thread = new Thread(() -> worker.run(deadline), "soak-" + jvm + "-" + t);
				thread.start();
				running.add(thread);
			}
			for (Thread thread : running) {
				// a thread ends within one wait and one hold of the deadline
				thread.join(TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadline - System.nanoTime())) + 30_000);
				if (thread.isAlive()) {
					throw new IllegalStateException(thread.getName() + " did not stop 30 s after the deadline");
				}
			}
			worker.summary();
			if (modes != null) {
				modes.close();
			}
		}
		System.exit(0);
	}

	/**
	 * The restart guard in force: an empty restarted node sits out one lease. Only an
	 * experiment showing what the guard prevents sets another value.
	 */
	private static Duration rejoinDelay(Duration lease) {
		return Duration.ofMillis(Long.getLong("soak.rejoinDelayMillis", lease.toMillis()));
	}

	/** The parent holds our stdin open; end-of-file means it died or gave up on us. */
	private static void exitWhenParentIsGone() {
		Thread watcher = new Thread(() -> {
			try {
				while (System.in.read() != -1) {
					// the parent writes nothing; any byte is ignored
				}
			}
			catch (IOException ex) {
				// treated as end of input
			}
			Runtime.getRuntime().halt(3);
		}, "soak-parent-watch");
		watcher.setDaemon(true);
		watcher.start();
	}

	private void run(long deadline) {
		String thread = Thread.currentThread().getName();
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (System.nanoTime() - deadline < 0) {
			String key = "k" + random.nextInt(this.keys);
			Lease held;
			try {
				held = this.locks
					.acquire(LockRequest.of(key).name("soak").lease(this.lease).renew(true).waitAtMost(WAIT_AT_MOST));
			}
			catch (LockNotAcquiredException ex) {
				this.notAcquired.incrementAndGet();
				continue;
			}
			catch (QuorumUnavailableException ex) {
				// fails fast while too few nodes vote: back off rather than spin
				this.unavailable.incrementAndGet();
				pause(20);
				continue;
			}
			long enter = System.nanoTime();
			this.acquired.incrementAndGet();
			long token = -1;
			try {
				token = held.fencingToken();
			}
			catch (LockException ex) {
				this.noToken.incrementAndGet();
			}
			write("E", key, thread, token, enter, "");
			work(random);
			long exit = System.nanoTime();
			// valid at a later instant means valid at exit
			boolean lostIt = !held.isValid();
			// the instant the lease stopped protecting, by this process's own account
			long validUntil = ((RedisLease) held).validUntil();
			try {
				held.release();
			}
			catch (LeaseLostException ex) {
				lostIt = true;
			}
			catch (LockException ex) {
				// a failed release leaves the key to expire; the hold ended at exit
			}
			Long reported = this.lostAt.remove(held);
			if (lostIt) {
				this.lost.incrementAndGet();
			}
			long invalidAt = (reported != null) ? Math.min(reported, validUntil) : validUntil;
			write("X", key, thread, token, exit, lostIt ? "lost:" + invalidAt : "ok");
		}
	}

	/**
	 * A few ms of work, much shorter than the lease, so that losses stay rare; one hold
	 * in 500 works one and a half leases, kept by renewal, so that some holders span a
	 * fault.
	 */
	private void work(ThreadLocalRandom random) {
		pause((random.nextInt(500) == 0) ? this.lease.toMillis() * 3 / 2 : 1 + random.nextInt(4));
	}

	static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void write(String kind, String key, String thread, long token, long nanos, String status) {
		append(this.log, String.join("\t", kind, key, this.jvm, thread, Long.toString(token), Long.toString(nanos),
				Long.toString(System.currentTimeMillis()), status));
	}

	/**
	 * Append one record to a log shared by threads, flushed so that it survives a crash.
	 */
	static void append(BufferedWriter log, String line) {
		synchronized (log) {
			try {
				log.write(line);
				log.newLine();
				log.flush();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	private void summary() {
		write("S", "-", "-", -1, System.nanoTime(), "acquired=" + this.acquired + ",notAcquired=" + this.notAcquired
				+ ",unavailable=" + this.unavailable + ",noToken=" + this.noToken + ",lost=" + this.lost);
	}

}
