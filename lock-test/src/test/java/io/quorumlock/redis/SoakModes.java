package io.quorumlock.redis;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockException;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;

/**
 * The shared/exclusive and permit workloads of a soak process ({@link SoakWorker}),
 * beside its exclusive one, on the same engine and under the same faults:
 * <ul>
 * <li>mix: threads take {@value #MIX_KEYS} keys (name {@code soak-mix}), shared three
 * times in four and exclusive otherwise, so that shared holds of a key overlap across
 * threads and JVMs and exclusive ones come between them;</li>
 * <li>permit: threads take one of k permits of {@value #PERMIT_KEYS} keys (name
 * {@code soak-permit}; key {@code p<i>} has k = 2 + i % 2), more threads than
 * permits.</li>
 * </ul>
 * Every hold goes to this process's modes log ({@code -Dsoak.modes.log}), one record a
 * line in {@link SoakModeChecker}'s format, flushed per record. Off unless that property
 * is set; {@code -Dsoak.modes.threads=N} threads per workload (default 3).
 */
final class SoakModes {

	static final int MIX_KEYS = 4;

	static final int PERMIT_KEYS = 2;

	private final QuorumLockEngine locks;

	private final String jvm;

	private final Duration lease;

	private final Map<Lease, Long> lostAt;

	private final int threads;

	private final BufferedWriter log;

	private final AtomicLong shared = new AtomicLong();

	private final AtomicLong exclusive = new AtomicLong();

	private final AtomicLong permits = new AtomicLong();

	private final AtomicLong notAcquired = new AtomicLong();

	private final AtomicLong unavailable = new AtomicLong();

	private final AtomicLong lost = new AtomicLong();

	private SoakModes(QuorumLockEngine locks, String jvm, Duration lease, Map<Lease, Long> lostAt, int threads,
			BufferedWriter log) {
		this.locks = locks;
		this.jvm = jvm;
		this.lease = lease;
		this.lostAt = lostAt;
		this.threads = threads;
		this.log = log;
	}

	/**
	 * The workloads of this process, or null if {@code soak.modes.log} is not set.
	 * @param lostAt when the engine reported each lease lost (the worker's listener)
	 */
	static SoakModes fromProperties(QuorumLockEngine locks, String jvm, Duration lease, Map<Lease, Long> lostAt)
			throws IOException {
		String file = System.getProperty("soak.modes.log");
		if (file == null) {
			return null;
		}
		return new SoakModes(locks, jvm, lease, lostAt, Integer.getInteger("soak.modes.threads", 3),
				Files.newBufferedWriter(Path.of(file), StandardCharsets.UTF_8));
	}

	/** Start the threads of both workloads; each stops by itself at the deadline. */
	List<Thread> start(long deadline) {
		List<Thread> started = new ArrayList<>();
		for (int t = 0; t < this.threads; t++) {
			started.add(start("soak-mix-" + this.jvm + "-" + t, () -> run(deadline, false)));
			started.add(start("soak-permit-" + this.jvm + "-" + t, () -> run(deadline, true)));
		}
		return started;
	}

	private static Thread start(String name, Runnable body) {
		Thread thread = new Thread(body, name);
		thread.start();
		return thread;
	}

	private void run(long deadline, boolean permit) {
		String thread = Thread.currentThread().getName();
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (System.nanoTime() - deadline < 0) {
			String key;
			String mode;
			LockRequest request;
			if (permit) {
				int i = random.nextInt(PERMIT_KEYS);
				int k = 2 + i % 2;
				key = "p" + i;
				mode = "permit:" + k;
				request = LockRequest.of(key).name("soak-permit").permits(k);
			}
			else {
				boolean writer = random.nextInt(4) == 0;
				key = "m" + random.nextInt(MIX_KEYS);
				mode = writer ? "exclusive" : "shared";
				request = LockRequest.of(key).name("soak-mix").mode(writer ? LockMode.EXCLUSIVE : LockMode.SHARED);
			}
			Lease held;
			try {
				held = this.locks.acquire(request.lease(this.lease).renew(true).waitAtMost(SoakWorker.WAIT_AT_MOST));
			}
			catch (LockNotAcquiredException ex) {
				this.notAcquired.incrementAndGet();
				continue;
			}
			catch (QuorumUnavailableException ex) {
				this.unavailable.incrementAndGet();
				SoakWorker.pause(20);
				continue;
			}
			(permit ? this.permits : "shared".equals(mode) ? this.shared : this.exclusive).incrementAndGet();
			write("E", key, thread, mode, System.nanoTime(), "-");
			SoakWorker.pause((random.nextInt(500) == 0) ? this.lease.toMillis() * 3 / 2 : 1 + random.nextInt(4));
			long exit = System.nanoTime();
			write("X", key, thread, mode, exit, release(held));
		}
	}

	/**
	 * Release after the hold's end was stamped; {@code ok}, or {@code lost:<nanoTime>}
	 * from which the engine no longer counted the lease valid (as {@link SoakWorker}).
	 */
	private String release(Lease held) {
		// valid at a later instant means valid at the stamped exit
		boolean lostIt = !held.isValid();
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
		if (!lostIt) {
			return "ok";
		}
		this.lost.incrementAndGet();
		return "lost:" + ((reported != null) ? Math.min(reported, validUntil) : validUntil);
	}

	private void write(String kind, String key, String thread, String mode, long nanos, String status) {
		SoakWorker.append(this.log, String.join("\t", kind, key, this.jvm, thread, mode, Long.toString(nanos), status));
	}

	/** Write the summary record and close the log. */
	void close() throws IOException {
		write("S", "-", "-", "-", System.nanoTime(),
				"shared=" + this.shared + ",exclusive=" + this.exclusive + ",permits=" + this.permits + ",notAcquired="
						+ this.notAcquired + ",unavailable=" + this.unavailable + ",lost=" + this.lost);
		this.log.close();
	}

}
