package io.quorumlock.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A scripted fake of {@link Voters}: every call is recorded ({@code "acquire k"},
 * {@code "release k"}, ...); an acquire or extend round answers with the next scripted
 * outcome (a future the test may complete later), else every node says yes. Releases,
 * holds and fencing answer yes at once.
 */
final class ScriptedVoters implements Voters {

	private final int nodes;

	private final int quorum;

	private final Deque<CompletableFuture<Round.Tally>> acquires = new ArrayDeque<>();

	private final Deque<CompletableFuture<Round.Tally>> extensions = new ArrayDeque<>();

	final List<String> calls = new ArrayList<>();

	/** Each acquire, extend and release with the token it names, in order. */
	final List<String> tokens = new ArrayList<>();

	/** The key of each intent mark, in order (kept apart from {@link #calls}). */
	final List<String> intents = new ArrayList<>();

	/** The lease of each extend call, in milliseconds as sent. */
	final List<String> extendedTo = new ArrayList<>();

	/** The redo window of the last release, in nanoseconds. */
	long releaseRedoNanos;

	int voting;

	/** What an unscripted acquire round answers; null for every node saying yes. */
	Round.Tally otherwise;

	private final java.util.Queue<CompletableFuture<Round.Tally>> fenceIncrements = new java.util.ArrayDeque<>();

	long fencingCounter = 100;

	ScriptedVoters(int nodes) {
		this.nodes = nodes;
		this.quorum = nodes / 2 + 1;
		this.voting = nodes;
	}

	Round.Tally tally(int yes, int no) {
		List<String> failures = new ArrayList<>();
		for (int i = yes + no; i < this.nodes; i++) {
			failures.add("node" + i + ": no answer in time");
		}
		return new Round.Tally(this.nodes, this.quorum, yes, no, failures);
	}

	@Override
	public void markIntent(String key, long ttlMillis) {
		this.intents.add(key);
	}

	/** How soon a quorum may vote, as {@link #quorumPossibleInNanos(long)} answers. */
	long quorumPossibleIn;

	@Override
	public long quorumPossibleInNanos(long reconnectingNanos) {
		return this.quorumPossibleIn;
	}

	/** A split vote: every node answered, no contender holds a quorum. */
	Round.Tally split(int yes, int no) {
		return new Round.Tally(this.nodes, this.quorum, yes, no, List.of(), true);
	}

	/** The next acquire round answers a split vote, at once. */
	ScriptedVoters thenSplit(int yes, int no) {
		this.acquires.add(CompletableFuture.completedFuture(split(yes, no)));
		return this;
	}

	/** The next acquire round answers this, at once. */
	ScriptedVoters thenAcquire(int yes, int no) {
		this.acquires.add(CompletableFuture.completedFuture(tally(yes, no)));
		return this;
	}

	/** The next acquire round answers when the test completes the returned future. */
	CompletableFuture<Round.Tally> thenAcquireLater() {
		CompletableFuture<Round.Tally> later = new CompletableFuture<>();
		this.acquires.add(later);
		return later;
	}

	/** The next extend round answers this, at once. */
	ScriptedVoters thenExtend(int yes, int no) {
		this.extensions.add(CompletableFuture.completedFuture(tally(yes, no)));
		return this;
	}

	/** The next extend round answers when the test completes the returned future. */
	CompletableFuture<Round.Tally> thenExtendLater() {
		CompletableFuture<Round.Tally> later = new CompletableFuture<>();
		this.extensions.add(later);
		return later;
	}

	long count(String call) {
		return this.calls.stream().filter(call::equals).count();
	}

	private CompletableFuture<Round.Tally> yes() {
		return CompletableFuture.completedFuture(tally(this.nodes, 0));
	}

	@Override
	public int size() {
		return this.nodes;
	}

	@Override
	public int quorum() {
		return this.quorum;
	}

	@Override
	public int votingNow() {
		return this.voting;
	}

	@Override
	public long writeRoundNanos() {
		return 50_000_000L;
	}

	@Override
	public CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis) {
		this.calls.add("acquire " + key);
		this.tokens.add("acquire " + key + " " + token);
		CompletableFuture<Round.Tally> next = this.acquires.poll();
		if (next != null) {
			return next;
		}
		return (this.otherwise != null) ? CompletableFuture.completedFuture(this.otherwise) : yes();
	}

	/** Each node deadline an acquire round was given, in order. */
	final List<Long> acquireTimeouts = new ArrayList<>();

	@Override
	public CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis, long timeoutNanos) {
		this.acquireTimeouts.add(timeoutNanos);
		return acquire(key, token, leaseMillis);
	}

	@Override
	public CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis) {
		this.calls.add("extend " + key);
		this.tokens.add("extend " + key + " " + token);
		this.extendedTo.add(leaseMillis);
		CompletableFuture<Round.Tally> next = this.extensions.poll();
		return (next != null) ? next : yes();
	}

	/** Whether {@link #renewMany} is offered; off, renewals go one key to a round. */
	boolean renewsMany;

	@Override
	public boolean renewsMany() {
		return this.renewsMany;
	}

	/** Recorded as one call naming every key; each key answers as an extend round. */
	@Override
	public CompletableFuture<Round.Tally[]> renewMany(String[] keys, String[] args) {
		this.calls.add("renewMany " + String.join(" ", keys));
		List<CompletableFuture<Round.Tally>> each = new ArrayList<>();
		for (int i = 0; i < keys.length; i++) {
			this.tokens.add("renew " + keys[i] + " " + args[2 * i]);
			this.extendedTo.add(args[2 * i + 1]);
			CompletableFuture<Round.Tally> next = this.extensions.poll();
			each.add((next != null) ? next : yes());
		}
		return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0]))
			.thenApply((ok) -> each.stream().map(CompletableFuture::join).toArray(Round.Tally[]::new));
	}

	@Override
	public CompletableFuture<Round.Tally> release(String key, String token, long leaseNanos) {
		this.calls.add("release " + key);
		this.tokens.add("release " + key + " " + token);
		this.releaseRedoNanos = leaseNanos;
		return yes();
	}

	@Override
	public CompletableFuture<Round.Tally> keep(String key, String token, long keepMillis, long leaseNanos) {
		this.calls.add("keep " + key + " " + keepMillis);
		return yes();
	}

	@Override
	public CompletableFuture<Round.Tally> fenceIncrement(String key, String token, String ttlMillis, AtomicLong max) {
		this.calls.add("fenceIncrement " + key);
		max.accumulateAndGet(++this.fencingCounter, Math::max);
		CompletableFuture<Round.Tally> scripted = this.fenceIncrements.poll();
		return (scripted != null) ? scripted : yes();
	}

	/** The next fencing increment round answers this, at once. */
	ScriptedVoters thenFenceIncrement(int yes, int no) {
		this.fenceIncrements.add(CompletableFuture.completedFuture(tally(yes, no)));
		return this;
	}

	@Override
	public CompletableFuture<Round.Tally> fenceRaise(String key, String token, String value, String ttlMillis) {
		this.calls.add("fenceRaise " + key + " " + value);
		return yes();
	}

	@Override
	public CompletableFuture<Round.Tally> forceRelease(String key) {
		this.calls.add("forceRelease " + key);
		return yes();
	}

}
