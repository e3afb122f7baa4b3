package io.quorumlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import io.quorumlock.redis.node.ManualTimers;

/**
 * Why permits are slots, on the example, without Redis: 3 nodes A, B, C (quorum
 * 2) and k = 2, three holders each reaching only two nodes: {A,B}, {B,C}, {A,C}. A
 * semaphore that counts permits per node lets all three in (every node sees 2, which is
 * k), so the k-permit check fails; the slot design (k exclusive slot locks, the engine's
 * {@link PermitAcquisition}) lets two in. Each holder is its own process (its own engine
 * parts: no local gate helps), and every grant goes through the engine's real
 * {@link Acquisition} on a model of the nodes.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PermitQuorumModelTests {

	private static final int K = 2;

	private static final List<Set<Integer>> REACHES = List.of(Set.of(0, 1), Set.of(1, 2), Set.of(0, 2));

	@Test
	void aPerNodeCounterSemaphoreLetsMoreThanKHoldOnAQuorum() {
		ModelNodes nodes = new ModelNodes(3, true);
		int holders = holdersAfterEachReachesTwoNodes(nodes, LockRequest.of("exports"));
		assertThat(nodes.maxPerNode()).isEqualTo(K); // no node ever sees more than k
		assertThat(holders).as("holders of %d permits", K).isGreaterThan(K); // yet 3 hold
	}

	@Test
	void slotsLetAtMostKHoldOnTheSameSchedule() {
		ModelNodes nodes = new ModelNodes(3, false);
		int holders = holdersAfterEachReachesTwoNodes(nodes, LockRequest.of("exports").permits(K));
		assertThat(holders).as("holders of %d permits", K).isLessThanOrEqualTo(K).isEqualTo(K);
	}

	/** Every process tries once, reaching the nodes its schedule says; count grants. */
	private int holdersAfterEachReachesTwoNodes(ModelNodes nodes, LockRequest request) {
		int holders = 0;
		for (Set<Integer> reach : REACHES) {
			nodes.reachable = reach;
			Process process = new Process(nodes);
			ResolvedRequest resolved = new ResolvedRequest(request, List.of("lock:{exports}"), Duration.ofSeconds(30),
					Duration.ZERO, false, java.util.Optional.empty());
			CompletableFuture<RedisLease> grant = process.acquirer.start(resolved);
			process.timers.runDue();
			if (grant.isDone() && !grant.isCompletedExceptionally()) {
				holders++;
			}
		}
		return holders;
	}

	/** One process's engine parts over the shared model nodes. */
	private static final class Process {

		final ManualTimers timers = new ManualTimers();

		final Acquirer acquirer;

		Process(ModelNodes nodes) {
			CallerThreads threads = new CallerThreads(Runnable::run);
			Listeners listener = new Listeners(List.of(), threads);
			LocalGates gates = new LocalGates();
			Losses losses = new Losses(listener, gates);
			Validity validity = new Validity(0.01);
			Releaser releaser = new Releaser(nodes, gates, listener, this.timers, threads, losses, OnLeaseLost.THROW);
			Fencing fencing = new Fencing(nodes, this.timers, losses, threads, 60_000);
			LeaseWatchdog watchdog = new LeaseWatchdog(nodes, this.timers, validity, losses, listener);
			this.acquirer = new Acquirer(nodes, gates, new ReleaseSignals(List.of(new FakeChannels())), this.timers,
					validity, watchdog, listener, releaser,
					new Leases(releaser, fencing, this.timers,
							new Extender(watchdog, losses, threads, this.timers, java.time.Duration.ofMillis(50),
									RestartGuard.of(1, null, java.util.Map.of()))),
					TimeUnit.MILLISECONDS.toNanos(50), 0, new Tokens(new SecureRandom()), new Pending());
		}

	}

	/**
	 * The nodes as {@link Voters}: only the {@code reachable} ones answer. As a counter
	 * semaphore, a node grants while fewer than k tokens hold the key there; as slots,
	 * each key is an exclusive lock per node ({@code SET NX}).
	 */
	private static final class ModelNodes implements Voters {

		final List<Map<String, List<String>>> nodes = new ArrayList<>();

		final boolean counter;

		Set<Integer> reachable;

		private int maxPerNode;

		ModelNodes(int n, boolean counter) {
			for (int i = 0; i < n; i++) {
				this.nodes.add(new HashMap<>());
			}
			this.counter = counter;
		}

		int maxPerNode() {
			return this.maxPerNode;
		}

		private CompletableFuture<Round.Tally> each(
				java.util.function.BiPredicate<Map<String, List<String>>, Integer> op) {
			int yes = 0;
			int no = 0;
			List<String> failures = new ArrayList<>();
			for (int i = 0; i < this.nodes.size(); i++) {
				if (!this.reachable.contains(i)) {
					failures.add("node" + i + ": no answer in time");
				}
				else if (op.test(this.nodes.get(i), i)) {
					yes++;
				}
				else {
					no++;
				}
			}
			return CompletableFuture.completedFuture(new Round.Tally(size(), quorum(), yes, no, failures));
		}

		@Override
		public int size() {
			return this.nodes.size();
		}

		@Override
		public int quorum() {
			return this.nodes.size() / 2 + 1;
		}

		@Override
		public int votingNow() {
			return size();
		}

		@Override
		public long writeRoundNanos() {
			return TimeUnit.MILLISECONDS.toNanos(50);
		}

		@Override
		public CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis) {
			return each((node, i) -> {
				List<String> holders = node.computeIfAbsent(key, (k) -> new ArrayList<>());
				int limit = this.counter ? K : 1;
				if (holders.size() >= limit) {
					return false;
				}
				holders.add(token);
				this.maxPerNode = Math.max(this.maxPerNode, holders.size());
				return true;
			});
		}

		@Override
		public CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis) {
			return each((node, i) -> node.getOrDefault(key, List.of()).contains(token));
		}

		@Override
		public CompletableFuture<Round.Tally> release(String key, String token, long leaseNanos) {
			return each((node, i) -> node.getOrDefault(key, new ArrayList<>()).remove(token));
		}

		@Override
		public CompletableFuture<Round.Tally> keep(String key, String token, long keepMillis, long leaseNanos) {
			return extend(key, token, "");
		}

		@Override
		public CompletableFuture<Round.Tally> fenceIncrement(String key, String token, String ttlMillis,
				AtomicLong max) {
			return extend(key, token, "");
		}

		@Override
		public CompletableFuture<Round.Tally> fenceRaise(String key, String token, String value, String ttlMillis) {
			return extend(key, token, "");
		}

		@Override
		public CompletableFuture<Round.Tally> forceRelease(String key) {
			return each((node, i) -> node.remove(key) != null);
		}

	}

}
