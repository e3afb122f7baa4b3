package io.quorumlock.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.quorumlock.redis.node.NodeHeldBackException;
import io.quorumlock.redis.node.QueuedReply;
import io.quorumlock.redis.node.Replies;
import io.quorumlock.redis.node.StaleAnswerException;
import io.quorumlock.redis.node.Timers;
import io.quorumlock.redis.node.Voter;

/**
 * One command fanned out to every node in parallel, with one deadline (armed once every
 * command was sent, {@link QueuedReply}), counted against the quorum. Decided as soon as
 * a quorum said yes, a quorum answered and a yes quorum is out of reach, every node
 * answered, or the deadline passed; nodes that had not answered by then count as failed.
 * <p>
 * An answer is a vote, yes or no, only if it came back on the connection the command was
 * sent on ({@link Voter#sameConnection(long)}) and, in a round of voters, from a node the
 * restart guard lets vote when it answers. Lettuce sends the commands in flight at a
 * disconnect again after it reconnects, perhaps to a restarted, empty server: such an
 * answer counts as a failure, never as a vote. The round is itself the future of its
 * decision. Lettuce completes node futures on its I/O threads, so nothing here blocks.
 */
final class Round<N extends Voter> extends CompletableFuture<Round.Tally> implements TimerTask {

	/** What one node that answered said; a failure is kept as its {@link Throwable}. */
	enum Vote {

		/** The command took effect (SET NX set the key; a script returned 1). */
		YES,
		/** The node answered but refused (the key is held by another token). */
		NO

	}

	/**
	 * What a grant's refusals said about their holders ({@link GrantVotes}): whether
	 * every refusal named an exclusive holder and none of them holds a quorum.
	 */
	interface Refusals {

		/** Whether no single holder among the refusals holds {@code quorum} nodes. */
		boolean noHolderReached(int quorum);

	}

	/** Bits per count in {@link #counts}: yes, no and failed answers, 10 bits each. */
	private static final int BITS = 10;

	private static final int MASK = (1 << BITS) - 1;

	private static final int YES = 1;

	private static final int NO = 1 << BITS;

	private static final int FAILED = 1 << (2 * BITS);

	/** Most nodes a round can count with {@link #BITS}-bit counts. */
	static final int MAX_NODES = MASK;

	/** Atomic access to {@link #answers}' elements (no wrapper object per round). */
	static final VarHandle ANSWERS = MethodHandles.arrayElementVarHandle(Object[].class);

	/** Atomic access to {@link #counts} (no wrapper object per round). */
	private static final VarHandle COUNTS;

	static {
		try {
			COUNTS = MethodHandles.lookup().findVarHandle(Round.class, "counts", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final List<? extends N> nodes;

	private final int quorum;

	/** Whether an answer means the command took effect (see {@link #run}). */
	private final Predicate<Object> took;

	/** Whether a node may vote when it answers; null when every answer counts. */
	private final Predicate<? super N> votesNow;

	/** Told of each node that failed or timed out; one held back by the guard is not. */
	private final BiConsumer<? super N, Throwable> onNodeError;

	/**
	 * Per-node answer: null, then a {@link Vote} or a {@link Throwable} (at the deadline,
	 * its timeout); set once.
	 */
	private final Object[] answers;

	/**
	 * The yes, no and failed counts packed in one int: each answer, once set, updates all
	 * three in one atomic step ({@link #COUNTS}), and every decision sees a consistent
	 * set.
	 */
	private volatile int counts;

	private volatile Timeout deadline;

	@SuppressWarnings("unchecked")
	private Round(List<? extends N> nodes, int quorum, Predicate<?> took, Predicate<? super N> votesNow,
			BiConsumer<? super N, Throwable> onNodeError) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.took = (Predicate<Object>) took; // the command's own answer type
		this.votesNow = votesNow;
		this.onNodeError = onNodeError;
		this.answers = new Object[nodes.size()];
	}

	/**
	 * Send {@code command} to every node at once and decide against {@code quorum}.
	 * @param command the command for one node
	 * @param took whether a node's answer means the command took effect (a yes vote);
	 * called on the thread that completes the answer, so it must not block
	 * @param timeoutNanos the deadline, from now
	 * @param votesNow whether a node may vote when it answers (the restart guard, a
	 * duplicate entry); null when every answer counts
	 */
	static <N extends Voter, T> CompletableFuture<Tally> run(List<? extends N> nodes, int quorum,
			Function<? super N, ? extends CompletionStage<T>> command, Predicate<? super T> took, long timeoutNanos,
			Predicate<? super N> votesNow, Timers timers, BiConsumer<? super N, Throwable> onNodeError) {
		if (nodes.size() > MAX_NODES) {
			throw new IllegalArgumentException("a round counts at most " + MAX_NODES + " nodes, got " + nodes.size());
		}
		Round<N> round = new Round<>(nodes, quorum, took, votesNow, onNodeError);
		List<CompletableFuture<?>> queued = null;
		for (int i = 0; i < nodes.size(); i++) {
			int index = i;
			N node = nodes.get(i);
			long sent = System.nanoTime();
			// before sending: an answer votes only if no reconnect came in between
			long epoch = node.epoch();
			CompletionStage<T> reply;
			try {
				reply = command.apply(node);
			}
			catch (RuntimeException ex) {
				reply = CompletableFuture.failedFuture(ex);
			}
			// One small callback straight on the node's future: no intermediate stages.
			reply.whenComplete((value, error) -> round.heard(index, epoch, sent, value, error));
			queued = QueuedReply.collect(queued, reply, nodes.size());
		}
		QueuedReply.whenSent(queued, () -> round.arm(timers, timeoutNanos));
		return round;
	}

	/** Arm the deadline, unless the round is already decided. */
	private void arm(Timers timers, long timeoutNanos) {
		if (!isDone()) {
			this.deadline = timers.after(timeoutNanos, this);
			if (isDone()) {
				this.deadline.cancel();
			}
		}
	}

	/**
	 * Voter {@code index}'s reply to the command sent at {@code sent} in {@code epoch}.
	 */
	private void heard(int index, long epoch, long sent, Object value, Throwable error) {
		N node = this.nodes.get(index);
		Object answer;
		if (error == null && !node.sameConnection(epoch)) {
			// a reconnect under the command: Lettuce may have sent it to another server
			answer = StaleAnswerException.INSTANCE;
		}
		else if (error == null && this.votesNow != null && !this.votesNow.test(node)) {
			answer = new NodeHeldBackException("no longer voting when it answered (restart guard, same server)");
		}
		else if (error == null) {
			try {
				answer = this.took.test(value) ? Vote.YES : Vote.NO;
			}
			catch (RuntimeException ex) {
				answer = ex;
			}
		}
		else {
			answer = Replies.unwrap(error);
		}
		if (answer instanceof Vote) {
			node.recordLatency(System.nanoTime() - sent);
		}
		else if (!(answer instanceof NodeHeldBackException)) {
			this.onNodeError.accept(node, (Throwable) answer);
		}
		answer(index, answer);
	}

	private void answer(int index, Object answer) {
		if (!ANSWERS.compareAndSet(this.answers, index, null, answer)) {
			return;
		}
		// counted once per node and round: a late answer after the deadline's timeout is
		// not counted again
		if (answer instanceof Throwable failure) {
			this.nodes.get(index).answered(Voter.Answer.of(failure), failure);
		}
		else {
			this.nodes.get(index).answered((answer == Vote.YES) ? Voter.Answer.YES : Voter.Answer.HELD, null);
		}
		int delta = (answer == Vote.YES) ? YES : (answer == Vote.NO) ? NO : FAILED;
		int counts = (int) COUNTS.getAndAdd(this, delta) + delta;
		if (isDone()) {
			return;
		}
		int yes = counts & MASK;
		int no = (counts >>> BITS) & MASK;
		int pending = this.answers.length - yes - no - (counts >>> (2 * BITS));
		// Decide early only when granted, or when a quorum answered and can no longer say
		// yes (contended) and the refusals do not leave a split vote possible (a split
		// can only be told once every node answered). A round short of answers waits for
		// the rest, at most until the deadline, so that its figures are exact.
		if (yes >= this.quorum || pending == 0 || (yes + no >= this.quorum && yes + pending < this.quorum
				&& !(this.took instanceof Refusals refusals && refusals.noHolderReached(this.quorum)))) {
			decide(counts, false);
		}
	}

	/** The deadline: decide with what has been heard. */
	@Override
	public void run(Timeout timeout) {
		decide(this.counts, true);
	}

	private void decide(int counts, boolean expired) {
		if (isDone()) {
			return;
		}
		int yes = counts & MASK;
		int no = (counts >>> BITS) & MASK;
		List<String> failures = List.of();
		if (yes + no < this.answers.length) {
			failures = (expired || this.answers.length > Long.SIZE) ? failures(expired)
					: new RoundFailures(this.nodes, this.answers, pendingNow());
		}
		// a split vote: a quorum of nodes answered (the others failed: down, refused, out
		// of time) and nobody among them (this round included) holds a quorum. A node
		// that did not answer may have voted for another contender: the retry then finds
		// the key held and stops, so treating it as a split costs a round, never safety
		boolean split = yes + no >= this.quorum && yes < this.quorum && this.took instanceof Refusals refusals
				&& refusals.noHolderReached(this.quorum);
		int silent = (yes >= this.quorum) ? 0 : silent();
		if (complete(new Tally(this.answers.length, this.quorum, yes, no, failures, split, silent))) {
			Timeout d = this.deadline;
			if (d != null) {
				d.cancel();
			}
		}
	}

	/**
	 * The failure lines now; at the deadline, each node without an answer is reported.
	 */
	private List<String> failures(boolean expired) {
		List<String> failures = new ArrayList<>();
		for (int i = 0; i < this.answers.length; i++) {
			Object a = ANSWERS.getVolatile(this.answers, i);
			if (a != Vote.YES && a != Vote.NO) {
				failures.add(this.nodes.get(i).address() + ": " + describe(a, expired));
				if (a == null && expired) {
					TimeoutException timeout = new TimeoutException("no answer within the node timeout");
					// the slot keeps the timeout, so that an answer after it is not
					// counted
					if (ANSWERS.compareAndSet(this.answers, i, null, timeout)) {
						this.nodes.get(i).answered(Voter.Answer.TIMEOUT, timeout);
						this.onNodeError.accept(this.nodes.get(i), timeout);
					}
				}
			}
		}
		return failures;
	}

	/**
	 * Nodes whose answer is unknown: none yet, none in time, lost with a reconnect, or a
	 * transient refusal ({@link #undecided}). Each might have said yes: only an answer
	 * decides.
	 */
	private int silent() {
		int silent = 0;
		for (int i = 0; i < this.answers.length; i++) {
			Object a = ANSWERS.getVolatile(this.answers, i);
			silent += (a == null || (a instanceof Throwable failure && undecided(failure))) ? 1 : 0;
		}
		return silent;
	}

	/**
	 * Whether a failure leaves the node's vote unknown rather than refused: no answer in
	 * time, not connected or reconnecting (the answer was lost, or would not count), or a
	 * transient refusal that a later round does not meet ({@code NOSCRIPT} after a flush,
	 * {@code LOADING}, {@code BUSY}, {@code TRYAGAIN}, {@code MASTERDOWN}). A node held
	 * back, one that lost its data, or a lasting error reply (a wrong password, an ACL)
	 * is not unknown.
	 */
	static boolean undecided(Throwable failure) {
		Voter.Answer kind = Voter.Answer.of(failure);
		if (kind == Voter.Answer.TIMEOUT || kind == Voter.Answer.NOT_CONNECTED) {
			return true;
		}
		if (kind != Voter.Answer.ERROR) {
			return false;
		}
		if (Replies.isNoScript(failure)) {
			return true;
		}
		String reason = Replies.reason(failure);
		return reason != null && (reason.startsWith("LOADING") || reason.startsWith("BUSY")
				|| reason.startsWith("TRYAGAIN") || reason.startsWith("MASTERDOWN"));
	}

	/** Bit i set: node i had not answered yet (at most {@link Long#SIZE} nodes). */
	private long pendingNow() {
		long pending = 0;
		for (int i = 0; i < this.answers.length; i++) {
			if (ANSWERS.getVolatile(this.answers, i) == null) {
				pending |= 1L << i;
			}
		}
		return pending;
	}

	static String describe(Object answer, boolean expired) {
		if (answer == null) {
			return expired ? "no answer in time" : "no answer yet";
		}
		// Redis's own error text (NOAUTH, WRONGTYPE, OOM, READONLY...), not a wrapper's
		return Replies.reason((Throwable) answer);
	}

	/**
	 * The count of a decided round.
	 *
	 * @param nodes N
	 * @param quorum votes needed
	 * @param yes nodes where the command took effect
	 * @param no nodes that answered but refused
	 * @param failures one line per node that failed, timed out or did not vote
	 * @param split whether a quorum of nodes answered and no contender, this round
	 * included, holds a quorum (several contenders each took some nodes at once)
	 * @param silent nodes whose vote is unknown: no answer in time, not connected, or a
	 * transient refusal ({@link Round#undecided}); zero when the round reached its quorum
	 */
	record Tally(int nodes, int quorum, int yes, int no, List<String> failures, boolean split, int silent) {

		/** A tally where every failure is unknown. */
		Tally(int nodes, int quorum, int yes, int no, List<String> failures) {
			this(nodes, quorum, yes, no, failures, false);
		}

		/** A tally where every failure is unknown. */
		Tally(int nodes, int quorum, int yes, int no, List<String> failures, boolean split) {
			this(nodes, quorum, yes, no, failures, split, (yes >= quorum) ? 0 : nodes - yes - no);
		}

		boolean reached() {
			return this.yes >= this.quorum;
		}

		/**
		 * Whether the answers left the outcome open: not granted, yet the nodes whose
		 * vote is unknown could have made up the quorum. Only an answer decides, so such
		 * a round is neither "held elsewhere" nor "unavailable" yet: it is retried.
		 */
		boolean undecided() {
			return !reached() && this.yes + this.silent >= this.quorum;
		}

		/**
		 * Whether a majority of the nodes answered no: the command cannot take effect on
		 * a quorum (for a lease, it is gone there). Silence never makes this true.
		 */
		boolean refused() {
			return this.nodes - this.no < this.quorum;
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
