package com.example.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.QuorumLockTestProperties;
import io.quorumlock.testing.RedisMasters;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The published artifacts as a user gets them: the starter and lock-test from the
 * staging repository, three real redis-server masters, quorum mode.
 */
@SpringBootTest(properties = "quorumlock.node-timeout=500ms")
@RedisMasters(3)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LedgerApplicationTests {

	static RedisServers masters;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		QuorumLockTestProperties.register(registry, masters);
	}

	@Autowired
	Ledger ledger;

	@Autowired
	DistributedLockRegistry locks;

	@Test
	void depositsToOneAccountNeverOverlap() throws Exception {
		System.out.println("consumer: Spring Boot " + SpringBootVersion.getVersion() + ", quorumlock "
				+ DistributedLockRegistry.class.getPackage().getImplementationVersion() + " from "
				+ DistributedLockRegistry.class.getProtectionDomain().getCodeSource().getLocation());
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
		System.out.println("consumer: " + threads * deposits + " deposits under @DistributedLock on " + masters.size()
				+ " masters, balance " + this.ledger.balance("acct-1"));
	}

	@Test
	void aLeaseIsAKeyOnAQuorumOfMasters() throws Exception {
		LockRequest request = LockRequest.of("42").name("ledger");
		try (Lease lease = this.locks.acquire(request)) {
			assertThat(lease.keys()).containsExactly("42");
			// held once a quorum said OK: at least 2 of the 3 masters hold the key
			assertThat(mastersHolding("lock:ledger:{42}")).isGreaterThanOrEqualTo(2);
			// another thread (the same thread would re-enter) finds it taken
			assertThat(CompletableFuture.supplyAsync(() -> this.locks.tryAcquire(request)).get(30, TimeUnit.SECONDS))
				.isEmpty();
		}
		this.locks.tryAcquire(request).orElseThrow().release();
	}

	private static int mastersHolding(String key) {
		int holding = 0;
		for (RedisServer master : masters.nodes()) {
			RedisClient client = RedisClient.create(master.uri());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				holding += connection.sync().exists(key).intValue();
			}
			finally {
				client.shutdown();
			}
		}
		return holding;
	}

}
