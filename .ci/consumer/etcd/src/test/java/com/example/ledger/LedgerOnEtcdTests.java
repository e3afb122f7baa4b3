package com.example.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.etcd.EtcdLockRegistry;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;
import io.quorumlock.testing.QuorumLockTestProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The published artifacts as a user gets them, on etcd: the starter, lock-etcd and
 * lock-test from the staging repository, three real etcd members, etcd mode.
 */
@SpringBootTest
@EtcdCluster(members = 3)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LedgerOnEtcdTests {

	static EtcdMembers etcd;

	@DynamicPropertySource
	static void etcd(DynamicPropertyRegistry registry) {
		QuorumLockTestProperties.register(registry, etcd);
	}

	@Autowired
	Ledger ledger;

	@Autowired
	DistributedLockRegistry locks;

	@Test
	void depositsToOneAccountNeverOverlap() throws Exception {
		System.out.println("consumer: Spring Boot " + SpringBootVersion.getVersion() + ", quorumlock "
				+ EtcdLockRegistry.class.getPackage().getImplementationVersion() + " from "
				+ EtcdLockRegistry.class.getProtectionDomain().getCodeSource().getLocation());
		assertThat(this.locks).isInstanceOf(EtcdLockRegistry.class);
		int threads = 4;
		int deposits = 25;
		ExecutorService callers = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				done.add(callers.submit(() -> {
					for (int i = 0; i < deposits; i++) {
						this.ledger.deposit("acct-1", 1);
					}
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			callers.shutdownNow();
		}
		assertThat(this.ledger.balance("acct-1")).isEqualTo(threads * deposits);
		assertThat(this.ledger.fencingTokens()).hasSize(threads * deposits).isSorted().doesNotHaveDuplicates();
		System.out.println("consumer: " + threads * deposits + " deposits under @DistributedLock on " + etcd.size()
				+ " etcd members, balance " + this.ledger.balance("acct-1"));
	}

	@Test
	void aLeaseIsHeldOnEtcdUntilReleased() throws Exception {
		LockRequest request = LockRequest.of("42").name("ledger");
		try (Lease lease = this.locks.acquire(request)) {
			assertThat(lease.fencingToken()).isPositive();
			// another thread (the same thread would re-enter) finds it taken
			assertThat(CompletableFuture.supplyAsync(() -> this.locks.tryAcquire(request)).get(30, TimeUnit.SECONDS))
				.isEmpty();
		}
		this.locks.tryAcquire(request).orElseThrow().release();
	}

}
