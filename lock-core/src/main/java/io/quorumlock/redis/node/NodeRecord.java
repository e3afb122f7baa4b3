package io.quorumlock.redis.node;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import io.quorumlock.RegistryStatus;

/**
 * What one node's rounds and connection attempts came to, for status: the last round
 * trip, the answers counted by kind, the last failure, and since when the node is in the
 * state status last saw it in. Written by the I/O and engine threads, read whenever
 * status is; nothing here decides a vote.
 */
public final class NodeRecord {

	private final LongSupplier clock;

	/** Last round-trip time; -1 before the first. */
	private volatile long lastLatencyNanos = -1;

	/** Answers of the rounds, one adder per {@link Voter.Answer}. */
	private final LongAdder[] answers = new LongAdder[Voter.Answer.values().length];

	/**
	 * The last failure of a connection attempt or a command (not a hold-back verdict),
	 * kept as thrown: worded only when status is read.
	 */
	private volatile Throwable lastFailure;

	/** Whether the last answer of a round was a failure. */
	private volatile boolean failing;

	/** The state status last saw and since when ({@link #since}). */
	private final AtomicReference<Seen> seen;

	NodeRecord(LongSupplier clock) {
		this.clock = clock;
		for (int i = 0; i < this.answers.length; i++) {
			this.answers[i] = new LongAdder();
		}
		this.seen = new AtomicReference<>(new Seen(RegistryStatus.NodeState.DOWN, clock.getAsLong()));
	}

	void recordLatency(long nanos) {
		this.lastLatencyNanos = nanos;
	}

	/** A round's answer, with its failure if it failed. */
	void answered(Voter.Answer answer, Throwable failure) {
		this.answers[answer.ordinal()].increment();
		if (failure == null) {
			if (this.failing) {
				this.failing = false;
			}
		}
		else if (answer != Voter.Answer.HELD_BACK && (answer != Voter.Answer.NOT_CONNECTED || !this.failing)) {
			// while the connection is down every command is rejected alike: the first
			// failure of an outage says more than the last rejection
			this.lastFailure = failure;
			this.failing = true;
		}
	}

	/** A connection attempt failed. */
	void connectFailed(Throwable failure) {
		this.lastFailure = failure;
	}

	/** The last round trip, in nanoseconds; -1 before the first. */
	public long lastLatencyNanos() {
		return this.lastLatencyNanos;
	}

	/** The answers counted so far. */
	public RegistryStatus.Answers answers() {
		LongAdder[] a = this.answers;
		return new RegistryStatus.Answers(a[Voter.Answer.YES.ordinal()].sum(), a[Voter.Answer.HELD.ordinal()].sum(),
				a[Voter.Answer.TIMEOUT.ordinal()].sum(), a[Voter.Answer.NOT_CONNECTED.ordinal()].sum(),
				a[Voter.Answer.HELD_BACK.ordinal()].sum(), a[Voter.Answer.ERROR.ordinal()].sum());
	}

	/**
	 * The last failure of a connection attempt or a command in the server's or the
	 * transport's words (never credentials), or null.
	 */
	public String lastFailure() {
		Throwable failure = this.lastFailure;
		return (failure != null) ? Replies.reason(failure) : null;
	}

	/**
	 * Since when the node is in {@code state}, on the engine's clock: the first time
	 * status saw it so. Status is read every second while the application logs node
	 * changes, and whenever an operator looks.
	 */
	public long since(RegistryStatus.NodeState state) {
		Seen before = this.seen.get();
		if (before.state == state) {
			return before.since;
		}
		Seen now = new Seen(state, this.clock.getAsLong());
		return this.seen.compareAndSet(before, now) ? now.since : this.seen.get().since;
	}

	/** A state and when status first saw it. */
	private record Seen(RegistryStatus.NodeState state, long since) {
	}

}
