package io.quorumlock.etcd;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.etcd.jetcd.KeyValue;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMember;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The etcd registry under faults of a real three-member cluster: the leader killed while
 * a lock is held and others wait, a member paused, a member restarted with its data
 * wiped, a release that arrives late (after the connection that carried it failed) once a
 * later holder has the key, a waiter whose own lease expires while it waits, and a client
 * cut from its member for longer than its lease. Each registry stands for one process.
 */
@EtcdCluster(members = 3)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdFaultIntegrationTests {

	/** Renewed every lease/3; longer than three request timeouts (1 s). */
	private static final Duration LEASE = Duration.ofSeconds(4);

	static EtcdMembers etcd;

	private static EtcdKeys keys;

	private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

	private final Events events = new Events();

	private String name;

	@BeforeAll
	static void connect() {
		keys = new EtcdKeys(etcd.endpoints());
	}

	@AfterAll
	static void disconnect() {
		keys.close();
	}

	@BeforeEach
	void name() {
		this.name = "f" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closing) {
			closeable.close();
		}
	}

	private EtcdLockRegistry registry(List<String> endpoints) {
		EtcdLockRegistry registry = EtcdLockRegistry.builder().endpoints(endpoints).listener(this.events).build();
		this.closing.add(0, registry);
		return registry;
	}

	private EtcdLockRegistry registry() {
		return registry(etcd.endpoints());
	}

	private EtcdProxy proxy(EtcdMember member) throws Exception {
		EtcdProxy proxy = new EtcdProxy(member);
		this.closing.add(proxy);
		return proxy;
	}

	private LockRequest request(String key) {
		return LockRequest.of(key).name(this.name).lease(LEASE);
	}

	private String lockKey(String key) {
		return "lock:" + this.name + ":{" + key + "}";
	}

	@Test
	void theLeaderKilledWhileALockIsHeldAndAnotherWaits() throws Exception {
		EtcdLockRegistry holder = registry();
		EtcdLockRegistry waiter = registry();
		Lease held = holder.acquire(request("k"));
		long heldToken = held.fencingToken();
		CompletableFuture<Lease> next = waiter.acquireAsync(request("k").waitAtMost(Duration.ofSeconds(60)));
		await().atMost(Duration.ofSeconds(10)).until(() -> keys.waiters(lockKey("k")).size() == 2);
		EtcdMember leader = etcd.leader();
		leader.kill();
		int renewals = this.events.renewed.get();
		// renewed through the new leader: the lease outlives the election
		await().atMost(Duration.ofSeconds(20)).until(() -> this.events.renewed.get() >= renewals + 2);
		assertThat(held.isValid()).isTrue();
		assertThat(next).isNotDone();
		held.release();
		Lease second = next.get(30, TimeUnit.SECONDS);
		assertThat(second.fencingToken()).isGreaterThan(heldToken);
		second.release();
		assertThat(this.events.lost).isEmpty();
	}

	@Test
	void aPausedMemberStopsNeitherRenewalNorHandOver() throws Exception {
		EtcdLockRegistry holder = registry();
		EtcdLockRegistry other = registry();
		Lease held = holder.acquire(request("k"));
		EtcdMember paused = etcd.leader();
		paused.pause();
		int renewals = this.events.renewed.get();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.events.renewed.get() >= renewals + 3);
		assertThat(held.isValid()).isTrue();
		assertThat(other.tryAcquire(request("k"))).isEmpty();
		long heldToken = held.fencingToken();
		held.release();
		try (Lease next = other.acquire(request("k").waitAtMost(Duration.ofSeconds(30)))) {
			assertThat(next.fencingToken()).isGreaterThan(heldToken);
		}
		paused.resume();
		assertThat(this.events.lost).isEmpty();
	}

	@Test
	void aMemberRestartedWithItsDataWipedKeepsTheLockAndTheTokensOrder() throws Exception {
		EtcdLockRegistry holder = registry();
		EtcdLockRegistry other = registry();
		Lease held = holder.acquire(request("k"));
		long heldToken = held.fencingToken();
		etcd.leader().restartWiped();
		assertThat(held.isValid()).isTrue();
		assertThat(other.tryAcquire(request("k"))).isEmpty();
		held.release();
		try (Lease next = other.acquire(request("k").waitAtMost(Duration.ofSeconds(30)))) {
			assertThat(next.fencingToken()).isGreaterThan(heldToken);
		}
		assertThat(this.events.lost).isEmpty();
	}

	@Test
	void aReleaseDeliveredLateNeverDeletesTheNextHoldersKey() throws Exception {
		EtcdProxy proxy = proxy(etcd.member(0));
		EtcdLockRegistry stale = registry(List.of(proxy.endpoint()));
		EtcdLockRegistry next = registry();
		Lease first = stale.acquire(request("k").lease(Duration.ofSeconds(1)).renew(false));
		proxy.cut();
		// the release goes out on a failing connection: held in the network, unanswered
		CompletableFuture<Void> release = first.releaseAsync().toCompletableFuture();
		// the first hold's etcd lease runs out; the next holder takes the key
		Lease second = next.acquire(request("k").waitAtMost(Duration.ofSeconds(30)));
		List<KeyValue> before = keys.waiters(lockKey("k"));
		assertThat(before).hasSize(1);
		// the release gave up waiting for an answer; what it sent (compare-and-delete on
		// the first hold's create revision, revoke of its own etcd lease) arrives now,
		// before the stale registry's next request on the same connection
		release.get(30, TimeUnit.SECONDS);
		proxy.restore();
		assertThat(stale.tryAcquire(request("k"))).isEmpty();
		assertThat(keys.waiters(lockKey("k"))).extracting(KeyValue::getCreateRevision)
			.containsExactly(before.get(0).getCreateRevision());
		assertThat(second.isValid()).isTrue();
		second.release();
	}

	@Test
	void aWaiterWhoseOwnLeaseExpiresWhileItWaitsIsNotGrantedOnIt() throws Exception {
		EtcdProxy proxy = proxy(etcd.member(0));
		EtcdLockRegistry holder = registry();
		EtcdLockRegistry cutOff = registry(List.of(proxy.endpoint()));
		EtcdLockRegistry third = registry();
		Lease held = holder.acquire(request("k"));
		CompletableFuture<Lease> waiting = cutOff
			.acquireAsync(request("k").lease(Duration.ofSeconds(1)).renew(false).waitAtMost(Duration.ofSeconds(60)));
		await().atMost(Duration.ofSeconds(10)).until(() -> keys.waiters(lockKey("k")).size() == 2);
		long waiterKey = keys.waiters(lockKey("k")).get(1).getCreateRevision();
		proxy.cut();
		// its keep-alives do not get through: etcd expires its lease, and its key with it
		await().atMost(Duration.ofSeconds(20)).until(() -> keys.waiters(lockKey("k")).size() == 1);
		CompletableFuture<Lease> later = third.acquireAsync(request("k").waitAtMost(Duration.ofSeconds(60)));
		await().atMost(Duration.ofSeconds(10)).until(() -> keys.waiters(lockKey("k")).size() == 2);
		held.release();
		Lease thirds = later.get(30, TimeUnit.SECONDS);
		proxy.restore();
		// the cut-off waiter hears of the delete it watched, re-checks, finds its lease
		// gone, and queues again under a fresh lease, behind the holder
		await().atMost(Duration.ofSeconds(20))
			.until(() -> keys.waiters(lockKey("k"))
				.stream()
				.anyMatch((kv) -> kv.getCreateRevision() > waiterKey && kv.getCreateRevision() != thirds.fencingToken()
						&& !sameHolder(kv, thirds)));
		assertThat(waiting).isNotDone();
		long thirdsToken = thirds.fencingToken();
		thirds.release();
		Lease granted = waiting.get(30, TimeUnit.SECONDS);
		assertThat(granted.fencingToken()).isGreaterThan(thirdsToken);
		granted.release();
	}

	private static boolean sameHolder(KeyValue key, Lease lease) {
		return key.getLease() == ((EtcdLease) lease).leaseId();
	}

	@Test
	void aClientCutOffLongerThanItsLeaseHearsOfTheLossAndItsTokenIsFencedOff() throws Exception {
		EtcdProxy proxy = proxy(etcd.member(0));
		EtcdLockRegistry cutOff = registry(List.of(proxy.endpoint()));
		EtcdLockRegistry other = registry();
		FencedStore store = new FencedStore();
		Lease stale = cutOff.acquire(request("k"));
		long staleToken = stale.fencingToken();
		assertThat(store.write(staleToken)).isTrue();
		proxy.cut();
		await().atMost(Duration.ofSeconds(30)).until(() -> !this.events.lost.isEmpty());
		assertThat(stale.isValid()).isFalse();
		assertThat(this.events.lost.get(0).getMessage()).contains("lock '" + this.name + "' key '" + lockKey("k"))
			.contains("lease lost, no keep-alive was answered within its validity (lease 4000 ms");
		try (Lease next = other.acquire(request("k").waitAtMost(Duration.ofSeconds(30)))) {
			assertThat(store.write(next.fencingToken())).isTrue();
			// the stale holder's writes, with its token, are refused
			assertThat(store.write(staleToken)).isFalse();
		}
		proxy.restore();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(stale::release);
	}

	@Test
	void aMajorityDownEndsAcquisitionsAsUnavailableAndHeldLeasesByTheirValidity() {
		EtcdLockRegistry holder = registry();
		EtcdLockRegistry other = registry();
		Lease held = holder.acquire(request("k"));
		etcd.member(1).kill();
		etcd.member(2).kill();
		// nothing is answered: no grant and no "held elsewhere", once asking runs out
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> other.acquire(request("j")))
			.withMessageContaining("etcd did not answer");
		await().atMost(Duration.ofSeconds(30)).until(() -> !this.events.lost.isEmpty());
		assertThat(held.isValid()).isFalse();
		assertThat(this.events.lost.get(0).getMessage())
			.contains("lease lost, no keep-alive was answered within its validity");
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(held::release);
	}

	@Test
	void aMemberDownLeavesTheQueryToTheOthers() {
		EtcdLockRegistry holder = registry();
		EtcdLockRegistry other = registry();
		Lease held = holder.acquire(request("k"));
		etcd.leader().kill();
		assertThat(other.isLocked(request("k"))).isTrue();
		held.release();
		assertThat(other.isLocked(request("k"))).isFalse();
	}

	@Test
	void aMajorityDownLeavesTheQueryUnknownNeverFree() {
		EtcdLockRegistry holder = registry();
		EtcdLockRegistry other = registry();
		holder.acquire(request("k"));
		assertThat(other.isLocked(request("k"))).isTrue();
		etcd.member(1).kill();
		etcd.member(2).kill();
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> other.isLocked(request("k")))
			.withMessageContaining("key '" + lockKey("k") + "'")
			.withMessageContaining("cannot tell whether it is held, etcd did not answer");
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> other.isLocked(request("free")));
	}

	/** A store that accepts a write only with a token not below the highest it saw. */
	private static final class FencedStore {

		private long highest;

		synchronized boolean write(long token) {
			if (token < this.highest) {
				return false;
			}
			this.highest = token;
			return true;
		}

	}

	/** What the listeners heard. */
	private static final class Events implements LockListener {

		final AtomicInteger renewed = new AtomicInteger();

		final List<LeaseLostException> lost = new CopyOnWriteArrayList<>();

		@Override
		public void onRenewed(LockRequest request, Lease lease) {
			this.renewed.incrementAndGet();
		}

		@Override
		public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
			this.lost.add(cause);
		}

	}

}
