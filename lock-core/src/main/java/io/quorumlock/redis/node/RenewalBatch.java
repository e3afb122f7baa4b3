package io.quorumlock.redis.node;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisCommandExecutionException;

/**
 * The renewals due on one node that the watchdog does not already send together in one
 * round (those of leases with several keys, and retries), sent together: each
 * {@link #extend} joins a queue and gets its own answer, and the queue goes to the node
 * as one {@link Script#EXTEND_MANY} call per {@code maxKeys} keys, pipelined on the
 * node's connection. The watchdog's ticks of one wheel tick arrive as a burst of
 * scheduler tasks; the first renewal of a burst asks for a flush on the timing wheel's
 * next tick (see {@code RedisVoters#onNextTick}: never behind the scheduler's backlog),
 * by when the burst has been queued, so a burst costs one call, not one round trip per
 * lease. A full chunk is sent at once by the renewal that fills it, so no renewal waits
 * behind more than {@code maxKeys - 1} others, and none waits for a flush longer than a
 * wheel tick.
 * <p>
 * Safety stays with the per-lease {@code Round}: each lease still runs its own round with
 * its own quorum, deadline, epoch and restart-guard check, and its validity is measured
 * from before its round began, so the time a renewal waits in the queue comes off its
 * validity. A batch is sent after the round captured the node's epoch, which can only
 * turn a good answer into a failure (a reconnect in between), never the reverse. The
 * round arms its node-timeout deadline once its part was sent ({@link QueuedReply}): on a
 * starved machine the wait for the flush thread would otherwise spend the node timeout
 * before the call even left, and the retries that follow would add to the load (measured:
 * a quarter of the answers late at 10,000 leases on 3 masters). Each element of the
 * answer is what {@link Script#EXTEND} would have said for that key, so a failed or slow
 * batch is a failed or slow extension of each of its leases and the watchdog's retry
 * applies.
 * <p>
 * Used for exclusive keys on standalone nodes without sync-replicas only: a Redis Cluster
 * cannot run one script on keys of different hash slots, a sync-replicas write waits
 * ({@code WAIT}) on its own connection, and shared holds have a script of their own;
 * those renew one key per call.
 */
public final class RenewalBatch {

	/** Sends one chunk to the node. */
	public interface Sender {

		/**
		 * Run {@link Script#EXTEND_MANY}.
		 * @param keys the lock keys
		 * @param args per key, its token then its lease in milliseconds
		 * @return one answer per key: a {@code Long}, or a {@code String} error
		 */
		CompletionStage<List<Object>> send(String[] keys, String[] args);

	}

	/** Keys per call when none is given: short scripts, few round trips. */
	public static final int MAX_KEYS = 256;

	/**
	 * One key's renewal: completes with its answer; {@link #sent()} completes once its
	 * chunk was handed to the node's connection, when its round arms its deadline.
	 */
	static final class Pending extends CompletableFuture<Long> implements QueuedReply {

		private final String key;

		private final String token;

		private final String leaseMillis;

		private final CompletableFuture<Void> sent = new CompletableFuture<>();

		private Pending(String key, String token, String leaseMillis) {
			this.key = key;
			this.token = token;
			this.leaseMillis = leaseMillis;
		}

		@Override
		public CompletableFuture<Void> sent() {
			return this.sent;
		}

	}

	private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();

	/**
	 * Renewals in the queue not yet claimed by a sender. Each is added to the queue
	 * before it is counted here, and a sender claims (decrements) before it polls, so the
	 * queue always holds at least as many elements as are claimed and not yet polled: a
	 * claimed poll never finds it empty. The renewal that raises it from 0 schedules a
	 * flush, and a flush claims until it finds 0, so nothing counted is left without a
	 * flush to come.
	 */
	private final AtomicInteger queued = new AtomicInteger();

	private final Executor flusher;

	private final Sender sender;

	private final int maxKeys;

	/**
	 * @param flusher where a flush runs, soon and never behind other work (the timing
	 * wheel's next tick); if it refuses (closed), the flush runs at once
	 * @param sender sends one chunk
	 * @param maxKeys most keys per call
	 */
	public RenewalBatch(Executor flusher, Sender sender, int maxKeys) {
		if (maxKeys < 1) {
			throw new IllegalArgumentException("a renewal batch needs at least 1 key per call, got " + maxKeys);
		}
		this.flusher = flusher;
		this.sender = sender;
		this.maxKeys = maxKeys;
	}

	/**
	 * Compare-and-pexpire {@code key} to {@code leaseMillis} if {@code token} holds it,
	 * with the next batch.
	 * @return completes with what {@link Script#EXTEND} would answer (1 or 0), or fails
	 * as it would (the call failed, timed out, or the node refused this key); never
	 * blocks
	 */
	public Pending extend(String key, String token, String leaseMillis) {
		Pending pending = new Pending(key, token, leaseMillis);
		this.queue.add(pending);
		int queued = this.queued.incrementAndGet();
		if (queued == 1) {
			flushLater();
		}
		else if (queued >= this.maxKeys) {
			sendChunk();
		}
		return pending;
	}

	private void flushLater() {
		try {
			this.flusher.execute(this::flush);
		}
		catch (RejectedExecutionException ex) {
			flush(); // closed: the node fails the call, and so every renewal in it
		}
	}

	/** Send everything queued, a chunk per call. */
	private void flush() {
		while (sendChunk()) {
			// next chunk
		}
	}

	/** Claim up to a chunk and send it; false if nothing was queued. */
	private boolean sendChunk() {
		int taken = claim();
		if (taken == 0) {
			return false;
		}
		Pending[] chunk = new Pending[taken];
		String[] keys = new String[taken];
		String[] args = new String[2 * taken];
		for (int i = 0; i < taken; i++) {
			Pending p = this.queue.poll(); // never null: see #queued
			chunk[i] = p;
			keys[i] = p.key;
			args[2 * i] = p.token;
			args[2 * i + 1] = p.leaseMillis;
		}
		CompletionStage<List<Object>> reply;
		try {
			reply = this.sender.send(keys, args);
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		for (Pending p : chunk) {
			// sent or failed: either way the rounds may now time out
			p.sent.complete(null);
		}
		reply.whenComplete((answers, error) -> answer(chunk, answers, error));
		return true;
	}

	private int claim() {
		while (true) {
			int queued = this.queued.get();
			if (queued == 0) {
				return 0;
			}
			int taken = Math.min(queued, this.maxKeys);
			if (this.queued.compareAndSet(queued, queued - taken)) {
				return taken;
			}
		}
	}

	/** Complete every renewal of a chunk, each exactly once, from the node's answer. */
	private static void answer(Pending[] chunk, List<Object> answers, Throwable error) {
		if (error != null) {
			Throwable cause = Replies.unwrap(error);
			for (Pending p : chunk) {
				p.completeExceptionally(cause);
			}
			return;
		}
		for (int i = 0; i < chunk.length; i++) {
			Object answer = (i < answers.size()) ? answers.get(i) : null;
			if (answer instanceof Long value) {
				chunk[i].complete(value);
			}
			else if (answer instanceof String refused) {
				chunk[i].completeExceptionally(new RedisCommandExecutionException(refused));
			}
			else {
				chunk[i].completeExceptionally(
						new IllegalStateException(Script.EXTEND_MANY.name() + " answered " + answers.size()
								+ " values for " + chunk.length + " keys; key " + chunk[i].key + " got " + answer));
			}
		}
	}

}
