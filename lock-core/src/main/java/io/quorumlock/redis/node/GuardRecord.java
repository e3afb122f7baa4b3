package io.quorumlock.redis.node;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The restart guard as the masters record it ({@link ServerState}): this engine's own,
 * which it records on every master it reads, and the longest any engine of these masters
 * recorded, which it adopts. A master that lost its data is held back for that longest
 * guard, so an engine with a shorter one (an older version during a rolling deploy) does
 * not let it vote while a longer lease of another engine may live.
 */
public final class GuardRecord {

	/** This engine's guard, in nanoseconds. */
	private final long nanos;

	/** The longest guard seen recorded on any master, in milliseconds. */
	private final AtomicLong adoptedMillis;

	/**
	 * @param nanos this engine's guard, positive
	 */
	public GuardRecord(long nanos) {
		this.nanos = nanos;
		this.adoptedMillis = new AtomicLong(millis());
	}

	/**
	 * This engine's guard, in whole milliseconds (rounded up), as recorded on masters.
	 */
	public long millis() {
		return TimeUnit.NANOSECONDS.toMillis(this.nanos + 999_999);
	}

	/** Adopt a guard recorded on a master, if longer than any seen. */
	public void adopt(long millis) {
		this.adoptedMillis.accumulateAndGet(millis, Math::max);
	}

	/** The longest guard of these masters seen so far, at least this engine's own. */
	public long adoptedMillis() {
		return Math.max(millis(), this.adoptedMillis.get());
	}

	/** {@link #adoptedMillis()} in nanoseconds. */
	public long adoptedNanos() {
		return Math.max(this.nanos, TimeUnit.MILLISECONDS.toNanos(this.adoptedMillis.get()));
	}

}
