package io.quorumlock.sample.testing;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.sample.ProcessingDelay;
import io.quorumlock.sample.orders.OrderStore;
import io.quorumlock.sample.orders.PaymentOutcome;
import io.quorumlock.sample.orders.PaymentService;
import io.quorumlock.testing.QuorumLockTestProperties;
import io.quorumlock.testing.RedisMasters;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The example of docs/testing.md: an application's {@code @DistributedLock} method
 * ({@link PaymentService#pay}, locked on the order id) tested on three real masters, one
 * of them killed while a payment holds the lock. Only lock-test's public API is used.
 */
// the test that kills two masters first: the next one must not depend on the order
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpringBootTest(properties = { "sample.embedded-redis.enabled=false",
		// a loaded build machine can take longer than the 50 ms default to answer
		"quorumlock.node-timeout=500ms" })
@RedisMasters(3)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PaymentServiceOnThreeMastersTests {

	static RedisServers masters; // injected by @RedisMasters

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		// quorumlock.nodes = the three masters
		QuorumLockTestProperties.register(registry, masters);
	}

	@Autowired
	private PaymentService payments;

	@Autowired
	private OrderStore orders;

	@Autowired
	private DistributedLockRegistry locks;

	@Autowired
	private HeldProvider provider;

	private final ExecutorService callers = Executors.newCachedThreadPool();

	@Autowired
	private RegistryStatus status;

	@BeforeEach
	void everyMasterVotesAgain() {
		// the extension restarted the masters a test killed: this test kills one of three
		// and needs the two others, so wait until the application votes with all three
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.status.nodes().stream().allMatch(RegistryStatus.Node::voting));
	}

	@AfterEach
	void stopCallers() {
		this.callers.shutdownNow();
	}

	@Test
	@Order(2)
	void chargesOnceWhenAMasterIsKilledMidPayment() throws Exception {
		this.orders.create("order-1", 4200);
		HeldProvider.Gate gate = this.provider.hold("order-1");
		Future<PaymentOutcome> first = this.callers.submit(() -> this.payments.pay("order-1"));
		assertThat(gate.awaitInside()).as("first payment inside the provider call, holding the lock").isTrue();

		masters.node(0).kill(); // one master of three dies while the lock is held

		// the lock stands on the two others: nobody else can take the order
		assertThat(this.locks.tryAcquire(LockRequest.of("order-1").name("orders").waitAtMost(Duration.ZERO))).isEmpty();
		Future<PaymentOutcome> second = this.callers.submit(() -> this.payments.pay("order-1"));
		gate.release();

		assertThat(first.get(30, TimeUnit.SECONDS)).isInstanceOf(PaymentOutcome.Charged.class);
		assertThat(second.get(30, TimeUnit.SECONDS)).isInstanceOf(PaymentOutcome.AlreadyPaid.class);
		assertThat(this.orders.payments("order-1")).hasSize(1);
	}

	@Test
	@Order(1)
	void refusesToPayWithoutAQuorum() {
		// every test starts with the three masters up: the kill above was undone
		this.orders.create("order-2", 1000);
		masters.node(1).kill();
		masters.node(2).kill();
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> this.payments.pay("order-2"));
		assertThat(this.orders.payments("order-2")).isEmpty();
	}

	/** The payment provider, held inside its call for chosen orders. */
	static class HeldProvider extends ProcessingDelay {

		private final Map<String, Gate> gates = new ConcurrentHashMap<>();

		HeldProvider() {
			super(Duration.ZERO);
		}

		/** Hold the next call for {@code order} inside the provider until released. */
		Gate hold(String order) {
			Gate gate = new Gate(new CountDownLatch(1), new CountDownLatch(1));
			this.gates.put(order, gate);
			return gate;
		}

		@Override
		public void simulate(String order) {
			Gate gate = this.gates.remove(order);
			if (gate == null) {
				return;
			}
			gate.inside().countDown();
			try {
				gate.released().await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		record Gate(CountDownLatch inside, CountDownLatch released) {

			boolean awaitInside() throws InterruptedException {
				return this.inside.await(30, TimeUnit.SECONDS);
			}

			void release() {
				this.released.countDown();
			}

		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Provider {

		@Bean
		@Primary
		HeldProvider heldProvider() {
			return new HeldProvider();
		}

	}

}
