package io.quorumlock.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.quorumlock.redis.node.NodeHeldBackException;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Replies;
import io.quorumlock.redis.node.Script;
import io.quorumlock.redis.node.StaleAnswerException;
import io.quorumlock.redis.node.Timers;
import io.quorumlock.redis.node.Voter;

/**
 * The watchdog's renewal of many single-key leases at once: one
 * {@link Script#EXTEND_MANY} call per voting node for all of them, one deadline, and one
 * {@link Round.Tally} per key, counted as {@link Round} counts a round of
 * {@link Script#EXTEND} on that key alone. The script compares each key's token before it
 * extends it, so a key held by another token is never extended.
 * <p>
 * A node's answer counts as it does in a {@link Round}: only if it came back on the
 * connection the call was sent on and, when it answers, the node may vote (restart
 * guard); otherwise it is a failure for every key. Each element of a node's answer is
 * that key's vote (1 yes, 0 no) or its own error. The round is decided once every node
 * answered or at the deadline, on the thread that got the last answer or on the
 * deadline's timer; nodes without an answer by then failed, and an answer after the
 * decision is not counted. Against one round per key it keeps the per-key work to a loop
 * over the answers: no future, deadline or callback per key. Each key's answer is counted
 * for the node's meters ({@link Voter#answered}); a failed call is reported to
 * {@code onNodeError} once, not once per key.
 */
final class RenewalRound extends CompletableFuture<Round.Tally[]> implements TimerTask {

	private static final VarHandle ANSWERS = MethodHandles.arrayElementVarHandle(Object[].class);

	private final List<RedisNode> nodes;

	private final int quorum;

	private final HeldBack heldBack;

	private final BiConsumer<RedisNode, Throwable> onNodeError;

	private final int keys;

	/** Per node: null, then its answer ({@code List}) or its failure; set once. */
	private final Object[] answers;

	/** Nodes without an answer yet; the one that brings it to 0 decides. */
	private final AtomicInteger pending;

	/** Set once, by whoever decides first: the last answer or the deadline. */
	private final AtomicInteger decided = new AtomicInteger();

	private volatile Timeout deadline;

	private RenewalRound(List<RedisNode> nodes, int quorum, HeldBack heldBack,
			BiConsumer<RedisNode, Throwable> onNodeError, int keys) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.heldBack = heldBack;
		this.onNodeError = onNodeError;
		this.keys = keys;
		this.answers = new Object[nodes.size()];
		this.pending = new AtomicInteger(nodes.size());
	}

	/**
	 * Extend each key to its lease where its token holds it, on every voting node.
	 * @param keys the lock keys
	 * @param args per key, its token then its lease in milliseconds
	 * @return completes, never exceptionally, with each key's tally, in order
	 */
	static RenewalRound run(List<RedisNode> nodes, int quorum, HeldBack heldBack, String[] keys, String[] args,
			long timeoutNanos, Timers timers, BiConsumer<RedisNode, Throwable> onNodeError) {
		RenewalRound round = new RenewalRound(nodes, quorum, heldBack, onNodeError, keys.length);
		for (int i = 0; i < nodes.size(); i++) {
			int index = i;
			RedisNode node = nodes.get(i);
			if (!heldBack.votes(node)) {
				round.answer(index, heldBack.reason(node));
				continue;
			}
			long sent = System.nanoTime();
			// before sending: an answer votes only if no reconnect came in between
			long epoch = node.epoch();
			CompletionStage<List<Object>> reply;
			try {
				reply = node.evalList(Script.EXTEND_MANY, keys, args);
			}
			catch (RuntimeException ex) {
				reply = CompletableFuture.failedFuture(ex);
			}
			reply.whenComplete((value, error) -> round.heard(index, epoch, sent, value, error));
		}
		if (!round.isDone()) {
			round.deadline = timers.after(timeoutNanos, round);
			if (round.isDone()) {
				round.deadline.cancel();
			}
		}
		return round;
	}

	private void heard(int index, long epoch, long sent, List<Object> value, Throwable error) {
		RedisNode node = this.nodes.get(index);
		Object answer;
		if (error != null) {
			answer = Replies.unwrap(error);
		}
		else if (!node.sameConnection(epoch)) {
			// a reconnect under the call: Lettuce may have sent it to another server
			answer = StaleAnswerException.INSTANCE;
		}
		else if (!this.heldBack.votes(node)) {
			answer = new NodeHeldBackException("no longer voting when it answered (restart guard, same server)");
		}
		else if (value == null || value.size() != this.keys) {
			answer = new IllegalStateException(Script.EXTEND_MANY.name() + " answered "
					+ ((value != null) ? value.size() : 0) + " values for " + this.keys + " keys");
		}
		else {
			node.recordLatency(System.nanoTime() - sent);
			answer = value;
		}
		answer(index, answer);
	}

	private void answer(int index, Object answer) {
		if (!ANSWERS.compareAndSet(this.answers, index, null, answer)) {
			return; // after the deadline: not counted
		}
		if (answer instanceof Throwable failure && !(failure instanceof NodeHeldBackException)) {
			this.onNodeError.accept(this.nodes.get(index), failure);
		}
		if (this.pending.decrementAndGet() == 0) {
			decide(false);
		}
	}

	/** The deadline: decide with what has been heard. */
	@Override
	public void run(Timeout timeout) {
		decide(true);
	}

	private void decide(boolean expired) {
		if (!this.decided.compareAndSet(0, 1)) {
			return;
		}
		int nodeCount = this.nodes.size();
		Object[] heard = new Object[nodeCount];
		for (int i = 0; i < nodeCount; i++) {
			Object answer = ANSWERS.getVolatile(this.answers, i);
			if (answer == null) {
				TimeoutException timeout = new TimeoutException("no answer within the node timeout");
				// the slot keeps the timeout, so that an answer after it is not counted
				if (ANSWERS.compareAndSet(this.answers, i, null, timeout)) {
					this.onNodeError.accept(this.nodes.get(i), timeout);
					answer = timeout;
				}
				else {
					answer = ANSWERS.getVolatile(this.answers, i);
				}
			}
			heard[i] = answer;
		}
		Round.Tally[] tallies = new Round.Tally[this.keys];
		for (int k = 0; k < this.keys; k++) {
			tallies[k] = tally(heard, k, expired);
		}
		complete(tallies);
		Timeout d = this.deadline;
		if (d != null) {
			d.cancel();
		}
	}

	/** Key {@code k}'s tally, and its answer counted for each node's meters. */
	private Round.Tally tally(Object[] heard, int k, boolean expired) {
		int yes = 0;
		int no = 0;
		for (int i = 0; i < heard.length; i++) {
			RedisNode node = this.nodes.get(i);
			if (heard[i] instanceof List<?> answers) {
				Object answer = answers.get(k);
				if (answer instanceof Long value && value == 1) {
					yes++;
					node.answered(Voter.Answer.YES, null);
				}
				else if (answer instanceof Long) {
					no++;
					node.answered(Voter.Answer.HELD, null);
				}
				else {
					Throwable refused = Replies.refused(String.valueOf(answer));
					node.answered(Voter.Answer.ERROR, refused);
					this.onNodeError.accept(node, refused);
				}
			}
			else {
				Throwable failure = (Throwable) heard[i];
				node.answered(Voter.Answer.of(failure), failure);
			}
		}
		if (yes >= this.quorum) {
			return new Round.Tally(heard.length, this.quorum, yes, no, List.of());
		}
		// the lines only where a failure is reported
		List<String> failures = new ArrayList<>();
		for (int i = 0; i < heard.length; i++) {
			Object answer = (heard[i] instanceof List<?> answers) ? answers.get(k) : heard[i];
			if (answer instanceof Throwable failure) {
				failures.add(this.nodes.get(i).address() + ": " + Round.describe(failure, expired));
			}
			else if (!(answer instanceof Long)) {
				failures.add(this.nodes.get(i).address() + ": " + answer);
			}
		}
		return new Round.Tally(heard.length, this.quorum, yes, no, failures);
	}

}
