package io.quorumlock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.QuorumReadiness;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own published contract of an extensible {@code LockProvider}
 * ({@code shedlock-test-support}), every test and assertion as ShedLock wrote it, run
 * against {@link QuorumLockProvider} on real masters (a subclass says how many) or on
 * another backend (a subclass starts its registry and says how to see a lock held). The
 * only tests overridden are the two whose locks are shorter than any lease quorumlock
 * grants, which must be longer than three node timeouts (here 3 × 100 ms):
 * {@code shouldTimeout} (a 50 ms {@code lockAtMostFor}) and
 * {@code shouldNotBeAbleToExtendExpiredLock} (2 ms) take the same steps with the shortest
 * lock allowed, 400 ms. A lock that short would not outlive a single round to the
 * masters; the provider refuses it with an {@code IllegalArgumentException} naming the
 * figures, at start-up for {@code @SchedulerLock} values.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class ShedLockProviderContract extends AbstractExtensibleLockProviderIntegrationTest {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(100);

	/** The shortest lease the engine grants with this node timeout, and a margin. */
	static final Duration SHORTEST_LOCK = Duration.ofMillis(400);

	private static final String KEY = "lock:shedlock:{%s}";

	private DistributedLockRegistry registry;

	private QuorumLockProvider provider;

	/** The masters of this topology; null for a backend that is not Redis. */
	abstract RedisServers redis();

	/**
	 * The shortest lock the registry under test grants: more than three of its request
	 * bounds.
	 */
	Duration shortestLock() {
		return SHORTEST_LOCK;
	}

	/**
	 * The registry under test, started and ready: the engine on {@link #redis()} unless a
	 * subclass starts another backend's, with requests bounded by 100 ms.
	 */
	DistributedLockRegistry startRegistry() {
		QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis().uris())
			.nodeTimeout(NODE_TIMEOUT)
			// the fixture starts its servers fresh: no restart guard here
			.rejoinDelay(Duration.ZERO)
			.build();
		QuorumReadiness.await(engine, Duration.ofSeconds(10));
		return engine;
	}

	@BeforeEach
	void startEngine() {
		this.registry = startRegistry();
		this.provider = new QuorumLockProvider(this.registry);
	}

	@AfterEach
	void closeEngine() throws Exception {
		((AutoCloseable) this.registry).close();
	}

	@Override
	protected ExtensibleLockProvider getLockProvider() {
		return this.provider;
	}

	@Override
	protected void assertLocked(String lockName) {
		// granted once a quorum said OK
		String key = String.format(KEY, lockName);
		assertThat(redis().nodes().stream().filter((node) -> node.exists(key)).count()).as("masters holding " + key)
			.isGreaterThanOrEqualTo(redis().size() / 2 + 1);
	}

	@Override
	protected void assertUnlocked(String lockName) {
		// an unlock returns once a quorum deleted the key; the others follow within the
		// node timeout
		String key = String.format(KEY, lockName);
		for (RedisServer node : redis().nodes()) {
			await("no " + key + " on " + node).atMost(Duration.ofSeconds(5)).until(() -> !node.exists(key));
		}
	}

	/**
	 * ShedLock's steps ({@code doTestTimeout}) with the shortest lock allowed instead of
	 * 50 ms (see the class comment): a lock never unlocked frees when its
	 * {@code lockAtMostFor} runs out, for this process too.
	 */
	@Test
	@Override
	public void shouldTimeout() {
		Optional<SimpleLock> lock1 = getLockProvider().lock(lockConfig(this.LOCK_NAME1, shortestLock(), Duration.ZERO));
		assertThat(lock1).isNotEmpty();
		// waits for the keys to expire instead of sleeping twice the lock
		assertUnlocked(this.LOCK_NAME1);
		// the lease's validity ended before its keys expired (it is net of clock drift);
		// the engine's watchdog declares it lost at that moment, on its own thread
		SimpleLock lock2 = await("the same process locks again").atMost(Duration.ofSeconds(5))
			.until(() -> getLockProvider().lock(lockConfig(this.LOCK_NAME1, shortestLock(), Duration.ZERO)),
					Optional::isPresent)
			.get();
		lock2.unlock();
	}

	/**
	 * ShedLock's steps with a 2 ms {@code lockAtMostFor}, run with the shortest lock
	 * allowed (see the class comment): a lock that expired is not extended, and its key
	 * is gone.
	 */
	@Test
	@Override
	public void shouldNotBeAbleToExtendExpiredLock() {
		Optional<SimpleLock> lock = getLockProvider().lock(lockConfig(this.LOCK_NAME1, shortestLock(), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		// waits for the keys to expire instead of sleeping twice the lock
		assertUnlocked(this.LOCK_NAME1);
		Optional<SimpleLock> newLock = lock.get().extend(Duration.ofSeconds(10), Duration.ZERO);
		assertThat(newLock).isEmpty();
		assertUnlocked(this.LOCK_NAME1);
	}

	/**
	 * Not in ShedLock's suite, but its rule for every lock ({@code AbstractSimpleLock}):
	 * a lock is unlocked once.
	 */
	@Test
	void aSecondUnlockThrows() {
		SimpleLock lock = getLockProvider().lock(lockConfig(this.LOCK_NAME1)).orElseThrow();
		lock.unlock();
		assertUnlocked(this.LOCK_NAME1);
		assertThatIllegalStateException().isThrownBy(lock::unlock);
	}

}
