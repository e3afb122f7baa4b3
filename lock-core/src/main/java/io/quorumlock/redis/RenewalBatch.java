package io.quorumlock.redis;

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
 * The renewals due on one node, sent together: each {@link #extend} joins a queue and
 * gets its own answer, and the queue goes to the node as one {@link Script#EXTEND_MANY}
 * call per {@link #maxKeys} keys, pipelined on the node's connection. The watchdog's
 * ticks of one wheel tick arrive as a burst of scheduler tasks; the first renewal of a
 * burst asks the scheduler for a flush, which runs after the tasks already queued, so a
 * burst costs one call, not one round trip per lease. A full chunk is sent at once by the
 * renewal that fills it, so no renewal waits behind more than {@code maxKeys - 1} others.
 * <p>
 * Safety stays with the per-lease {@link Round}: each lease still runs its own round with
 * its own deadline, epoch and restart-guard check. A batch is sent after the round
 * captured the node's epoch, which can only turn a good answer into a failure (a
 * reconnect in between), never the reverse; and each element of the answer is what
 * {@link Script#EXTEND} would have said for that key, so a failed or slow batch is a
 * failed or slow extension of each of its leases and the watchdog's retry applies.
 * <p>
 * Used for exclusive keys on standalone nodes without sync-replicas only: a Redis Cluster
 * cannot run one script on keys of different hash slots, a sync-replicas write waits
 * ({@code WAIT}) on its own connection, and shared holds have a script of their own;
 * those renew one key per call.
 */
final class RenewalBatch {

	/** Sends one chunk to the node. */
	interface Sender {

		/**
		 * Run {@link Script#EXTEND_MANY}.
		 * @param keys the lock keys
		 * @param args per key, its token then its lease in milliseconds
		 * @return one answer per key: a {@code Long}, or a {@code String} error
		 */
		CompletionStage<List<Object>> send(String[] keys, String[] args);

	}

	/** Keys per call when none is given: short scripts, few round trips. */
	static final int MAX_KEYS = 256;

	private record Pending(String key, String token, String leaseMillis, CompletableFuture<Long> answer) {
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

	private final Executor scheduler;

	private final Sender sender;

	private final int maxKeys;

	/**
	 * @param scheduler where a flush runs: the engine's scheduler, after the tasks
	 * already queued there; if it refuses (closed), the flush runs at once
	 * @param sender sends one chunk
	 * @param maxKeys most keys per call
	 */
	RenewalBatch(Executor scheduler, Sender sender, int maxKeys) {
		if (maxKeys < 1) {
			throw new IllegalArgumentException("a renewal batch needs at least 1 key per call, got " + maxKeys);
		}
		this.scheduler = scheduler;
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
	CompletableFuture<Long> extend(String key, String token, String leaseMillis) {
		Pending pending = new Pending(key, token, leaseMillis, new CompletableFuture<>());
		this.queue.add(pending);
		int queued = this.queued.incrementAndGet();
		if (queued == 1) {
			flushLater();
		}
		else if (queued >= this.maxKeys) {
			sendChunk();
		}
		return pending.answer;
	}

	private void flushLater() {
		try {
			this.scheduler.execute(this::flush);
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
			Throwable cause = Futures.unwrap(error);
			for (Pending p : chunk) {
				p.answer.completeExceptionally(cause);
			}
			return;
		}
		for (int i = 0; i < chunk.length; i++) {
			Object answer = (i < answers.size()) ? answers.get(i) : null;
			if (answer instanceof Long value) {
				chunk[i].answer.complete(value);
			}
			else if (answer instanceof String refused) {
				chunk[i].answer.completeExceptionally(new RedisCommandExecutionException(refused));
			}
			else {
				chunk[i].answer.completeExceptionally(
						new IllegalStateException(Script.EXTEND_MANY.name() + " answered " + answers.size()
								+ " values for " + chunk.length + " keys; key " + chunk[i].key + " got " + answer));
			}
		}
	}

}
