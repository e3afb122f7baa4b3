package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What a standalone node knows of its server for the restart guard and to tell one master
 * listed twice: when it started (from the uptime of {@code INFO server}) and its
 * {@code run_id}. Both are read together in one connection epoch and believed only while
 * that epoch is current: an answer that comes back in a later epoch is dropped (it may
 * come from a new server, after Lettuce sent the command again), and from the moment the
 * connection drops until the next read succeeds the start and the run_id are unknown, so
 * the node does not vote.
 */
final class ServerStart {

	/** A start not known on the connection open now. */
	static final long UNKNOWN = Long.MIN_VALUE;

	/** What became of one read. */
	enum Read {

		/** Answered on the connection it was sent on: the start and run_id hold now. */
		BELIEVED,

		/** Answered after the connection changed: dropped, the reconnect reads again. */
		STALE,

		/** Failed on the connection it was sent on: worth trying again. */
		FAILED

	}

	private final LongSupplier epoch;

	private final LongSupplier nanoClock;

	/**
	 * The last start and run_id believed, with the epoch they were read in. Replaced
	 * whole, so that a start and its epoch are always read together.
	 */
	private volatile Start start = new Start(-1, UNKNOWN, null);

	private volatile boolean reading;

	/**
	 * @param epoch the node's connection epoch now
	 * @param nanoClock the engine's clock
	 */
	ServerStart(LongSupplier epoch, LongSupplier nanoClock) {
		this.epoch = epoch;
		this.nanoClock = nanoClock;
	}

	/**
	 * Send {@code INFO server} and take the start and run_id from the answer, tagged with
	 * the epoch it was sent in.
	 * @param info sends {@code INFO server}
	 * @param latency told the round trip of a believed answer
	 * @return what became of the read; never completes exceptionally
	 */
	CompletableFuture<Read> read(Supplier<? extends CompletionStage<String>> info, LongConsumer latency) {
		this.reading = true;
		long sentIn = this.epoch.getAsLong();
		long sent = this.nanoClock.getAsLong();
		return info.get().toCompletableFuture().handle((answer, error) -> {
			this.reading = false;
			long now = this.nanoClock.getAsLong();
			if (this.epoch.getAsLong() != sentIn) {
				// sent before a reconnect and perhaps answered by a new server: its
				// uptime
				// is from after "sent", so the start would come out too early
				return Read.STALE;
			}
			if (error != null || answer == null) {
				return Read.FAILED;
			}
			latency.accept(now - sent);
			long uptimeSeconds = parseUptimeSeconds(answer);
			// Tagged with its epoch: believed only while that connection lasts.
			this.start = new Start(sentIn, (uptimeSeconds < 0) ? UNKNOWN : latestStart(uptimeSeconds, now),
					parseRunId(answer));
			return Read.BELIEVED;
		});
	}

	/**
	 * The latest moment the server can have started, given the uptime it reported in an
	 * answer that arrived at {@code answeredAt}; never earlier than the real start.
	 * <ul>
	 * <li>Counted back from the answer, not from the request: the server read its uptime
	 * at some moment before the answer arrived. Counted from the request it would be
	 * early by the whole round trip, and a slow reply (a busy or just-restarted server, a
	 * starved client) let a restarted server vote inside its guard.</li>
	 * <li>One second less than reported: Redis computes {@code uptime_in_seconds} as the
	 * difference of two wall-clock times each truncated to whole seconds, so it can run
	 * up to a second ahead of the real uptime (a server started at x.999 s reports 1 at
	 * x+1.001 s). Taken at face value it let a server restarted 1.1 s earlier vote under
	 * a 2 s guard (found by the multi-JVM soak).</li>
	 * </ul>
	 */
	static long latestStart(long uptimeSeconds, long answeredAt) {
		return answeredAt - TimeUnit.SECONDS.toNanos(Math.max(0, uptimeSeconds - 1));
	}

	/** Whether a read is in flight. */
	boolean isReading() {
		return this.reading;
	}

	/** When the server started, if read on the connection open now; else UNKNOWN. */
	long startedAt() {
		Start current = this.start;
		return (current.epoch == this.epoch.getAsLong()) ? current.nanos : UNKNOWN;
	}

	/** How long the server has been up, as last read; negative while unknown. */
	long uptimeNanos() {
		long started = startedAt();
		return (started == UNKNOWN) ? -1 : this.nanoClock.getAsLong() - started;
	}

	/** The server's {@code run_id} as read on the connection open now; else null. */
	String runId() {
		Start current = this.start;
		return (current.epoch == this.epoch.getAsLong()) ? current.runId : null;
	}

	/**
	 * Whether the server is known to have been up at least {@code guardNanos}; zero or
	 * less disables the guard.
	 */
	boolean isVoting(long guardNanos) {
		if (guardNanos <= 0) {
			return true;
		}
		long started = startedAt();
		return started != UNKNOWN && this.nanoClock.getAsLong() - started >= guardNanos;
	}

	/** The {@code run_id} line of {@code INFO server}; null if there is none. */
	static String parseRunId(String info) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("run_id:")) {
				String id = line.substring("run_id:".length()).trim();
				return id.isEmpty() ? null : id;
			}
		}
		return null;
	}

	/** The {@code uptime_in_seconds} line of {@code INFO server}; -1 if there is none. */
	static long parseUptimeSeconds(String info) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("uptime_in_seconds:")) {
				try {
					return Long.parseLong(line.substring("uptime_in_seconds:".length()).trim());
				}
				catch (NumberFormatException ex) {
					return -1;
				}
			}
		}
		return -1;
	}

	/** A server's start and run_id as read in one connection epoch; immutable. */
	private record Start(long epoch, long nanos, String runId) {
	}

}
