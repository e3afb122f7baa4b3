package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.LockUpgradeException;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract of shared locks ({@link LockMode#SHARED}) and permits
 * ({@link LockRequest#permits(int)}), run against every topology by
 * {@link SharedAndPermitsIntegrationTests}, in the style of
 * {@link DistributedLockRegistryContract}: each test uses a fresh lock name, and a second
 * engine stands for another process.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class SharedAndPermitsContract {

	static final Duration LEASE = Duration.ofSeconds(10);

	protected QuorumLockEngine locks;

	protected QuorumLockEngine otherProcess;

	protected String name;

	/** The servers of this topology. */
	abstract RedisServers redis();

	/** Hook run before the engines start, for topologies with a node down. */
	void prepareServers() {
	}

	/** Nodes that are up. */
	List<RedisServer> liveNodes() {
		return redis().nodes();
	}

	int quorum() {
		return redis().size() / 2 + 1;
	}

	@BeforeEach
	void startEngines() {
		prepareServers();
		this.locks = engine();
		this.otherProcess = engine();
		this.name = "s" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void closeEngines() {
		this.locks.close();
		this.otherProcess.close();
	}

	QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(redis().uris())
			// not a test of timeouts: room for a loaded machine's answers, below a third
			// of
			// the shortest lease here
			.nodeTimeout(Duration.ofMillis(500))
			.rejoinDelay(Duration.ZERO) // fresh servers: no restart guard here
			.build();
	}

	LockRequest shared(String key) {
		return LockRequest.of(key).name(this.name).lease(LEASE).mode(LockMode.SHARED);
	}

	LockRequest exclusive(String key) {
		return LockRequest.of(key).name(this.name).lease(LEASE);
	}

	String redisKey(String key) {
		return "lock:" + this.name + ":{" + key + "}";
	}

	// -- shared and exclusive -----------------------------------------------------

	@Test
	void sharedHoldersCoexistAcrossProcessesAndThreads() throws Exception {
		try (Lease one = this.locks.acquire(shared("a")); Lease two = this.otherProcess.acquire(shared("a"))) {
			Lease three = CompletableFuture.supplyAsync(() -> this.locks.acquire(shared("a")))
				.get(10, TimeUnit.SECONDS);
			assertThat(one.isValid()).isTrue();
			assertThat(two.isValid()).isTrue();
			assertThat(three.isValid()).isTrue();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> liveNodes().stream().allMatch((node) -> hlenOf(node, "a") == 3));
			for (RedisServer node : liveNodes()) {
				assertThat(node.pttl(redisKey("a"))).isPositive().isLessThanOrEqualTo(LEASE.toMillis());
			}
			three.release();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> liveNodes().stream().allMatch((node) -> hlenOf(node, "a") == 2));
		}
		// the last shared release deletes the key everywhere
		await().atMost(Duration.ofSeconds(5))
			.until(() -> liveNodes().stream().noneMatch((node) -> node.exists(redisKey("a"))));
	}

	@Test
	void exclusiveKeepsTodaysPlainStringKey() {
		try (Lease lease = this.locks.acquire(exclusive("a"))) {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> liveNodes().stream().allMatch((node) -> "string".equals(type(node, "a"))));
		}
	}

	@Test
	void anExclusiveHolderExcludesSharedOnes() {
		try (Lease lease = this.locks.acquire(exclusive("a"))) {
			assertThat(this.otherProcess.tryAcquire(shared("a"))).isEmpty();
			assertThat(this.locks.tryAcquire(shared("a"))).isEmpty(); // another thread's
																		// scope
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.otherProcess.acquire(shared("a")))
				.withMessageContaining("key '" + redisKey("a") + "' (shared)")
				.withMessageContaining("held elsewhere");
		}
		try (Lease lease = this.otherProcess.acquire(shared("a"))) {
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void sharedHoldersExcludeAnExclusiveOne() {
		Lease one = this.locks.acquire(shared("a"));
		Lease two = this.otherProcess.acquire(shared("a"));
		assertThat(this.otherProcess.tryAcquire(exclusive("a"))).isEmpty();
		one.release();
		assertThat(this.locks.tryAcquire(exclusive("a"))).isEmpty();
		two.release();
		try (Lease lease = this.locks.acquire(exclusive("a"))) {
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void aWaitingExclusiveRequestWakesWhenTheLastSharedHolderLeaves() throws Exception {
		Lease one = this.locks.acquire(shared("a"));
		Lease two = this.otherProcess.acquire(shared("a"));
		CompletableFuture<Lease> writer = this.otherProcess
			.acquireAsync(exclusive("a").waitAtMost(Duration.ofSeconds(20)));
		// its intent shows on a quorum of nodes while it waits
		await().atMost(Duration.ofSeconds(10))
			.until(() -> liveNodes().stream().filter((node) -> hasIntent(node, "a")).count() >= quorum());
		one.release();
		assertThat(writer).isNotDone();
		two.release();
		Lease lease = writer.get(10, TimeUnit.SECONDS);
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

	@Test
	void aWaitingExclusiveRequestIsNotStarvedByNewSharedOnes() throws Exception {
		Lease reader = this.locks.acquire(shared("a"));
		CompletableFuture<Lease> writer = this.otherProcess
			.acquireAsync(exclusive("a").waitAtMost(Duration.ofSeconds(20)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> liveNodes().stream().filter((node) -> hasIntent(node, "a")).count() >= quorum());
		// a new reader is refused while the writer waits, though only readers hold the
		// key
		assertThat(this.otherProcess.tryAcquire(shared("a"))).isEmpty();
		assertThat(this.locks.tryAcquire(shared("b"))).isPresent().get().satisfies(Lease::release);
		reader.release();
		Lease lease = writer.get(10, TimeUnit.SECONDS);
		lease.release();
		// once the writer is gone, readers come back
		try (Lease again = this.locks.acquire(shared("a").waitAtMost(Duration.ofSeconds(10)))) {
			assertThat(again.isValid()).isTrue();
		}
	}

	@Test
	void sharedLeasesRenewAndRunOutAsExclusiveOnesDo() {
		Duration lease = DistributedLockRegistryContract.SHORT_LEASE;
		try (Lease renewed = this.locks.acquire(shared("a").lease(lease))) {
			Lease unrenewed = this.otherProcess.acquire(shared("a").lease(lease).renew(false));
			await().atMost(Duration.ofSeconds(10)).until(() -> !unrenewed.isValid());
			assertThat(renewed.isValid()).isTrue();
			// the renewed lease stays valid well past its lease
			await().pollDelay(Duration.ofMillis(2 * lease.toMillis()))
				.atMost(Duration.ofSeconds(10))
				.until(renewed::isValid);
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(unrenewed::release);
			assertThat(this.otherProcess.tryAcquire(exclusive("a"))).isEmpty();
		}
		assertThat(this.otherProcess.tryAcquire(exclusive("a").waitAtMost(Duration.ofSeconds(5)))).isPresent()
			.get()
			.satisfies(Lease::release);
	}

	@Test
	void aSharedLeaseWhoseKeyVanishedIsLost() {
		Lease lease = this.locks.acquire(shared("a").lease(DistributedLockRegistryContract.SHORT_LEASE));
		liveNodes().forEach((node) -> node.call("DEL", redisKey("a")));
		await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release)
			.withMessageContaining(redisKey("a"));
	}

	@Test
	void holdAtLeastKeepsASharedHoldAfterItsRelease() {
		Lease lease = this.locks.acquire(shared("a").holdAtLeast(Duration.ofSeconds(2)));
		lease.release();
		assertThat(this.otherProcess.tryAcquire(exclusive("a"))).isEmpty();
		assertThat(this.otherProcess.tryAcquire(exclusive("a").waitAtMost(Duration.ofSeconds(10)))).isPresent()
			.get()
			.satisfies(Lease::release);
	}

	@Test
	void anExclusiveHolderReentersAsShared() throws Exception {
		Lease outer = this.locks.acquire(exclusive("a"));
		try (CurrentLease.Scope scope = CurrentLease.bind(outer)) {
			try (Lease inner = this.locks.acquire(shared("a"))) {
				assertThat(inner).isInstanceOf(ReentrantHold.class);
				assertThat(((ReentrantHold) inner).lease()).isSameAs(outer);
			}
			assertThat(outer.isValid()).isTrue();
		}
		assertThat(this.otherProcess.tryAcquire(shared("a"))).isEmpty();
		outer.release();
	}

	@Test
	void aSharedHolderReentersAsSharedButCannotUpgrade() {
		Lease outer = this.locks.acquire(shared("a"));
		try (CurrentLease.Scope scope = CurrentLease.bind(outer)) {
			try (Lease inner = this.locks.acquire(shared("a"))) {
				assertThat(inner).isInstanceOf(ReentrantHold.class);
			}
			assertThatExceptionOfType(LockUpgradeException.class).isThrownBy(() -> this.locks.acquire(exclusive("a")))
				.withMessageContaining("key '" + redisKey("a") + "'")
				.withMessageContaining("cannot be upgraded to exclusive");
			assertThat(this.locks.acquireAsync(exclusive("a"))).failsWithin(Duration.ofSeconds(5))
				.withThrowableThat()
				.withCauseInstanceOf(LockUpgradeException.class);
		}
		outer.release();
	}

	@Test
	void sharedLeasesHaveNoFencingToken() {
		try (Lease lease = this.locks.acquire(shared("a"))) {
			assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lease::fencingToken)
				.withMessageContaining("key '" + redisKey("a") + "' (shared)")
				.withMessageContaining("fencing tokens are issued to exclusive holders only");
			assertThat(lease.fencingTokenAsync()).failsWithin(Duration.ofSeconds(5))
				.withThrowableThat()
				.withCauseInstanceOf(UnsupportedOperationException.class);
		}
	}

	@Test
	void statusShowsSharedLeases() {
		try (Lease one = this.locks.acquire(shared("a")); Lease two = this.locks.acquire(shared("a"))) {
			assertThat(this.locks.leases()).filteredOn((held) -> held.keys().contains(redisKey("a")))
				.hasSize(2)
				.allMatch((held) -> "shared".equals(held.mode()) && held.slot().isEmpty());
		}
		assertThat(this.locks.leases()).noneMatch((held) -> held.keys().contains(redisKey("a")));
	}

	// -- permits ------------------------------------------------------------------

	LockRequest permits(String key, int k) {
		return LockRequest.of(key).name(this.name).lease(LEASE).permits(k);
	}

	@Test
	void atMostKHoldPermitsAcrossProcessesEachOnItsOwnSlot() {
		Lease one = this.locks.acquire(permits("a", 3));
		Lease two = this.otherProcess.acquire(permits("a", 3));
		Lease three = this.locks.acquire(permits("a", 3));
		assertThat(this.otherProcess.tryAcquire(permits("a", 3))).isEmpty();
		assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> this.locks.acquire(permits("a", 3)))
			.withMessageContaining("key '" + redisKey("a") + "'")
			.withMessageContaining("all 3 permits held");
		// each holder owns one slot key, in the lock key's hash slot, on a quorum (a
		// rival's SET may reach the last node first: Redlock's usual race)
		List<String> slots = List.of(one, two, three)
			.stream()
			.map((lease) -> ((RedisLease) lease).request().redisKeys().get(0))
			.sorted()
			.toList();
		assertThat(slots).containsExactly(redisKey("a") + ":permit:0", redisKey("a") + ":permit:1",
				redisKey("a") + ":permit:2");
		for (String slot : slots) {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> liveNodes().stream()
					.filter((node) -> "string".equals(String.valueOf(node.call("TYPE", slot))))
					.count() >= quorum());
		}
		assertThat(one.keys()).containsExactly("a");
		two.release();
		try (Lease four = this.otherProcess.acquire(permits("a", 3))) {
			assertThat(((RedisLease) four).request().redisKeys())
				.containsExactly(((RedisLease) two).request().redisKeys().get(0));
		}
		one.release();
		three.release();
	}

	@Test
	void aWaitingPermitWakesWhenAnySlotIsReleased() throws Exception {
		Lease one = this.locks.acquire(permits("a", 2));
		Lease two = this.locks.acquire(permits("a", 2));
		CompletableFuture<Lease> waiting = this.otherProcess
			.acquireAsync(permits("a", 2).waitAtMost(Duration.ofSeconds(20)));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.otherProcess.signals().subscribed() > 0);
		assertThat(waiting).isNotDone();
		two.release();
		Lease lease = waiting.get(10, TimeUnit.SECONDS);
		assertThat(((RedisLease) lease).request().redisKeys()).isEqualTo(((RedisLease) two).request().redisKeys());
		lease.release();
		one.release();
	}

	@Test
	void permitsStartAtARandomSlot() {
		java.util.Set<String> first = new java.util.HashSet<>();
		for (int i = 0; i < 40 && first.size() < 2; i++) {
			try (Lease lease = this.locks.acquire(permits("a", 4))) {
				first.add(((RedisLease) lease).request().redisKeys().get(0));
			}
		}
		assertThat(first).hasSizeGreaterThan(1);
	}

	@Test
	void aPermitHolderReentersItsPermit() {
		Lease outer = this.locks.acquire(permits("a", 2));
		try (CurrentLease.Scope scope = CurrentLease.bind(outer)) {
			try (Lease inner = this.locks.acquire(permits("a", 2))) {
				assertThat(inner).isInstanceOf(ReentrantHold.class);
			}
		}
		// the other slot is still free
		assertThat(this.otherProcess.tryAcquire(permits("a", 2))).isPresent().get().satisfies(Lease::release);
		outer.release();
	}

	@Test
	void permitLeasesRenewHoldAtLeastAndHaveNoFencingToken() {
		Duration lease = DistributedLockRegistryContract.SHORT_LEASE;
		try (Lease renewed = this.locks.acquire(permits("a", 2).lease(lease))) {
			await().pollDelay(Duration.ofMillis(2 * lease.toMillis()))
				.atMost(Duration.ofSeconds(10))
				.until(renewed::isValid);
			assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(renewed::fencingToken)
				.withMessageContaining("one of 2 permits");
		}
		Lease kept = this.locks.acquire(permits("b", 2).holdAtLeast(Duration.ofSeconds(2)));
		Lease other = this.locks.acquire(permits("b", 2));
		kept.release();
		assertThat(this.otherProcess.tryAcquire(permits("b", 2))).isEmpty();
		other.release();
		assertThat(this.otherProcess.tryAcquire(permits("b", 2))).isPresent().get().satisfies(Lease::release);
	}

	@Test
	void statusShowsPermitLeases() {
		try (Lease lease = this.locks.acquire(permits("a", 2))) {
			String slotKey = ((RedisLease) lease).request().redisKeys().get(0);
			assertThat(this.locks.leases()).filteredOn((held) -> held.keys().contains(slotKey))
				.singleElement()
				.satisfies((held) -> {
					assertThat(held.mode()).isEqualTo("permit");
					assertThat(held.slot()).hasValue(Integer.parseInt(slotKey.substring(slotKey.lastIndexOf(':') + 1)));
				});
		}
	}

	static long hlen(RedisServer node, String redisKey) {
		return ((Number) node.call("HLEN", redisKey)).longValue();
	}

	long hlenOf(RedisServer node, String key) {
		return hlen(node, redisKey(key));
	}

	String type(RedisServer node, String key) {
		return String.valueOf(node.call("TYPE", redisKey(key)));
	}

	/**
	 * Whether the key holds an exclusive request's intent mark on the node. For a moment
	 * a node may hold a rival's exclusive SET (a plain string key, Redlock's usual race
	 * for the last node) until that rival's undo: no mark there.
	 */
	boolean hasIntent(RedisServer node, String key) {
		try {
			return ((Number) node.call("HEXISTS", redisKey(key), "w")).longValue() == 1;
		}
		catch (RuntimeException wrongType) {
			return false;
		}
	}

}
