package io.quorumlock.redis.node;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The restart guard as the masters record it ({@link ServerState}): this engine's own,
 * which it records on every master it reads, and the longest any live engine of these
 * masters recorded, which it adopts. A master that lost its data is held back for that
 * longest guard, so an engine with a shorter one (an older version during a rolling
 * deploy) does not let it vote while a longer lease of another engine may live.
 * <p>
 * Each engine's record lasts only as long as it renews it ({@link Script#GUARD_READ}, at
 * every read of a master, about every second): its guard, widened by the clock-drift
 * factor, plus a margin. An engine that stopped can hold no lease past its own guard, so
 * once its record has run out nobody needs its guard, and the figure every other engine
 * adopts falls back to the longest of the engines still running. The figure adopted is
 * the longest over the latest read of each master, not the longest ever seen; but a read
 * that shows the master may have lost data, and with it the records, never lowers the
 * figure kept for that master while the record it read could still last there.
 */
public final class GuardRecord {

	/** Beyond the guard itself: a second of refresh, and the masters' clock rates. */
	private static final long MARGIN_MILLIS = 10_000;

	/**
	 * A guard recorded on one master by another engine, and by whom; kept, if a later
	 * read shows a possible loss, until {@code keptUntil} on this engine's clock: as long
	 * as the record read could have lasted on the master.
	 */
	private record Recorded(long millis, String by, long keptUntil) {
	}

	/** This engine's guard, in nanoseconds. */
	private final long nanos;

	/** This engine's id on the masters' records. */
	private final String id;

	/** Who this engine is, for the other engines' messages. */
	private final String who;

	private final double clockDriftFactor;

	/** The longest live guard of the other engines, per master, as last read. */
	private final Map<Object, Recorded> recorded = new ConcurrentHashMap<>();

	private final AtomicBoolean warned = new AtomicBoolean();

	/**
	 * @param nanos this engine's guard, positive
	 */
	public GuardRecord(long nanos) {
		this(nanos, "engine", "engine", 0);
	}

	/**
	 * @param nanos this engine's guard, positive
	 * @param id this engine's id on the masters' records
	 * @param who who this engine is (host, process), as other engines' messages name it
	 * @param clockDriftFactor how far a clock may run from true time
	 */
	public GuardRecord(long nanos, String id, String who, double clockDriftFactor) {
		this.nanos = nanos;
		this.id = id;
		this.who = who;
		this.clockDriftFactor = clockDriftFactor;
	}

	/**
	 * This engine's guard, in whole milliseconds (rounded up), as recorded on masters.
	 */
	public long millis() {
		return TimeUnit.NANOSECONDS.toMillis(this.nanos + 999_999);
	}

	/**
	 * This process as other engines' messages name it: {@code pid@host} (the JVM's own
	 * name) and since when, to the second.
	 */
	public static String thisProcess() {
		return ManagementFactory.getRuntimeMXBean().getName() + " since "
				+ Instant.now().truncatedTo(ChronoUnit.SECONDS);
	}

	/** This engine's id on the masters' records. */
	String id() {
		return this.id;
	}

	/** Who this engine is, recorded beside its guard. */
	String who() {
		return this.who;
	}

	/**
	 * How long this engine's record lasts on a master unless renewed: its guard, widened
	 * by the clock-drift factor, and a margin.
	 */
	long recordMillis() {
		long guard = millis();
		return guard + (long) Math.ceil(guard * this.clockDriftFactor / (1 - this.clockDriftFactor)) + MARGIN_MILLIS;
	}

	/**
	 * The longest guard recorded on {@code master} as last read, and by whom (empty if
	 * this engine's own is the longest).
	 * @param intact whether the read found no sign that the master lost data: a read that
	 * did may lack the records the loss took with it (a flush, another server behind the
	 * address, a replica promoted before the records reached it), so it does not lower
	 * the figure kept for that master while the record read before could still last there
	 * @param nowNanos this engine's clock now
	 * @return whether this engine's own guard is far above the other engines' (more than
	 * twice theirs), reported once: it raises the guard of every client of these masters
	 */
	boolean adopt(Object master, long millis, String by, long others, boolean intact, long nowNanos) {
		Recorded read = new Recorded(millis, by, nowNanos + lifeNanos(millis));
		this.recorded.merge(master, read, (before,
				now) -> (intact || now.millis >= before.millis || nowNanos - before.keptUntil >= 0) ? now : before);
		return others > 0 && millis() > 2 * others && this.warned.compareAndSet(false, true);
	}

	/**
	 * The longest a record of a {@code millis} guard lasts on a master after it was read
	 * there, on this engine's clock: its guard widened by the clock-drift factor, the
	 * margin, widened again for the two clocks.
	 */
	private long lifeNanos(long millis) {
		long life = millis + (long) Math.ceil(millis * this.clockDriftFactor / (1 - this.clockDriftFactor))
				+ MARGIN_MILLIS;
		return TimeUnit.MILLISECONDS
			.toNanos(life + (long) Math.ceil(life * this.clockDriftFactor / (1 - this.clockDriftFactor)));
	}

	/** The longest guard of these masters, at least this engine's own. */
	public long adoptedMillis() {
		long longest = millis();
		for (Recorded each : this.recorded.values()) {
			longest = Math.max(longest, each.millis);
		}
		return longest;
	}

	/** Who recorded the guard adopted, if another engine; else null. */
	public String adoptedBy() {
		long longest = millis();
		String by = null;
		for (Recorded each : this.recorded.values()) {
			if (each.millis > longest && !each.by.isEmpty()) {
				longest = each.millis;
				by = each.by;
			}
		}
		return by;
	}

	/** {@link #adoptedMillis()} in nanoseconds. */
	public long adoptedNanos() {
		return Math.max(this.nanos, TimeUnit.MILLISECONDS.toNanos(adoptedMillis()));
	}

}
