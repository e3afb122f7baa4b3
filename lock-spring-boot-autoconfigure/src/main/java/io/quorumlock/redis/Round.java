package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;

import io.netty.util.Timeout;

/**
 * One command fanned out to every node in parallel, with one deadline, counted against
 * the quorum. The round is decided as soon as a quorum said yes, as soon as a quorum
 * answered and a yes quorum is out of reach, when every node answered, or at the
 * deadline, whichever comes first; the nodes that had not answered by then count as
 * failed. Lettuce completes node futures on its I/O threads, so nothing here blocks.
 */
final class Round {

	/** What one node said. */
	enum Vote {

		/** The command took effect (SET NX set the key; a script returned 1). */
		YES,
		/** The node answered but refused (the key is held by another token). */
		NO,
		/** Error, timeout, not connected, or not allowed to vote. */
		FAILED

	}

	private final List<RedisNode> nodes;

	private final int quorum;

	/**
	 * Told of every node that failed or timed out; a node held back by the guard is no
	 * error.
	 */
	private final BiConsumer<RedisNode, Throwable> onNodeError;

	/**
	 * Per-node answer: null until answered, then a {@link Vote} or the {@link Throwable}.
	 */
	private final AtomicReferenceArray<Object> answers;

	private final CompletableFuture<Tally> decided = new CompletableFuture<>();

	private volatile Timeout deadline;

	private Round(List<RedisNode> nodes, int quorum, BiConsumer<RedisNode, Throwable> onNodeError) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.onNodeError = onNodeError;
		this.answers = new AtomicReferenceArray<>(nodes.size());
	}

	/**
	 * Send {@code command} to every node at once and decide against {@code quorum}.
	 * @param command the command for one node, answering YES or NO
	 * @param timeoutNanos the deadline, from now
	 */
	static CompletableFuture<Tally> run(List<RedisNode> nodes, int quorum,
			Function<RedisNode, CompletableFuture<Vote>> command, long timeoutNanos, Deadlines deadlines,
			BiConsumer<RedisNode, Throwable> onNodeError) {
		Round round = new Round(nodes, quorum, onNodeError);
		for (int i = 0; i < nodes.size(); i++) {
			int index = i;
			RedisNode node = nodes.get(i);
			long sent = System.nanoTime();
			CompletableFuture<Vote> vote;
			try {
				vote = command.apply(node);
			}
			catch (RuntimeException ex) {
				vote = CompletableFuture.failedFuture(ex);
			}
			vote.whenComplete((v, error) -> {
				Throwable failure = (error != null) ? RedisNode.unwrap(error) : null;
				if (failure == null) {
					node.recordLatency(System.nanoTime() - sent);
				}
				else if (!(failure instanceof NodeHeldBackException)) {
					round.onNodeError.accept(node, failure);
				}
				round.answer(index, (failure != null) ? failure : v);
			});
		}
		if (!round.decided.isDone()) {
			round.deadline = deadlines.after(timeoutNanos, round::expire);
			if (round.decided.isDone()) {
				round.deadline.cancel();
			}
		}
		return round.decided;
	}

	private void answer(int index, Object answer) {
		this.answers.compareAndSet(index, null, answer);
		if (this.decided.isDone()) {
			return;
		}
		int[] counts = counts();
		int yes = counts[0];
		int no = counts[1];
		int pending = this.answers.length() - yes - no - counts[2];
		// Decide early only when granted, or when a quorum answered and can no longer say
		// yes
		// (contended). A round short of answers waits for the rest, at most until the
		// deadline, so that its figures are exact.
		if (yes >= this.quorum || (yes + no >= this.quorum && yes + pending < this.quorum) || pending == 0) {
			decide(false);
		}
	}

	/** Answers so far: yes, no, failed. */
	private int[] counts() {
		int[] counts = new int[3];
		for (int i = 0; i < this.answers.length(); i++) {
			Object a = this.answers.get(i);
			if (a == Vote.YES) {
				counts[0]++;
			}
			else if (a == Vote.NO) {
				counts[1]++;
			}
			else if (a != null) {
				counts[2]++;
			}
		}
		return counts;
	}

	private void expire() {
		decide(true);
	}

	private void decide(boolean expired) {
		if (this.decided.isDone()) {
			return;
		}
		int[] counts = counts();
		List<String> failures = List.of();
		if (counts[0] + counts[1] < this.answers.length()) {
			failures = new ArrayList<>();
			for (int i = 0; i < this.answers.length(); i++) {
				Object a = this.answers.get(i);
				if (a != Vote.YES && a != Vote.NO) {
					failures.add(this.nodes.get(i).address() + ": " + describe(a, expired));
					if (a == null && expired) {
						this.onNodeError.accept(this.nodes.get(i),
								new TimeoutException("no answer within the node timeout"));
					}
				}
			}
		}
		if (this.decided.complete(new Tally(this.answers.length(), this.quorum, counts[0], counts[1], failures))) {
			Timeout d = this.deadline;
			if (d != null) {
				d.cancel();
			}
		}
	}

	private static String describe(Object answer, boolean expired) {
		if (answer == null) {
			return expired ? "no answer in time" : "no answer yet";
		}
		if (answer == Vote.FAILED) {
			return "not voting";
		}
		// Redis's own error text (NOAUTH, WRONGTYPE, OOM, READONLY...), not a wrapper's
		return RedisNode.reason((Throwable) answer);
	}

	/**
	 * The count of a decided round.
	 *
	 * @param nodes N
	 * @param quorum votes needed
	 * @param yes nodes where the command took effect
	 * @param no nodes that answered but refused
	 * @param failures one line per node that failed, timed out or did not vote
	 */
	record Tally(int nodes, int quorum, int yes, int no, List<String> failures) {

		boolean reached() {
			return this.yes >= this.quorum;
		}

		/** Nodes that answered at all; below the quorum no decision is possible. */
		int answered() {
			return this.yes + this.no;
		}

		String figures() {
			return this.yes + " of " + this.nodes + " nodes, quorum " + this.quorum;
		}

	}

}
