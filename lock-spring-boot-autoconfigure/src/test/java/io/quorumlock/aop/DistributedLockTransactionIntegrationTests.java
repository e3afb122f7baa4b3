package io.quorumlock.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.autoconfigure.BoundedWait;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock wraps {@code @Transactional} by default, so it is still held while the
 * transaction completes; {@code quorumlock.aspect-order} can put it inside instead.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DistributedLockTransactionIntegrationTests {

	/** A transaction advisor order that the default aspect order still wraps. */
	private static final int TX_ORDER = Ordered.LOWEST_PRECEDENCE - 500;

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + redis.uris().get(0), BoundedWait.NODE_TIMEOUT)
		.withUserConfiguration(DataSourceConfiguration.class);

	@Test
	void byDefaultTheLockIsStillHeldAfterTheDefaultTransactionAdvisorCompletes() {
		this.runner.withUserConfiguration(DefaultTransactions.class).run((context) -> {
			Payments payments = context.getBean(Payments.class);
			Observation observation = payments.pay("default");
			assertThat(observation.inTransaction()).isTrue();
			assertThat(observation.heldElsewhereInside()).isTrue();
			assertThat(observation.heldElsewhereAfterCompletion()).isTrue();
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("select count(*) from payment", Long.class))
				.isOne();
		});
	}

	@Test
	void byDefaultTheLockWrapsATransactionAdvisorOfHigherOrder() {
		this.runner.withUserConfiguration(OrderedTransactions.class).run((context) -> {
			Observation observation = context.getBean(Payments.class).pay("ordered");
			assertThat(observation.inTransaction()).isTrue();
			assertThat(observation.heldElsewhereInside()).isTrue();
			assertThat(observation.heldElsewhereAfterCompletion()).isTrue();
		});
	}

	@Test
	void aspectOrderBelowTheTransactionAdvisorReleasesBeforeTheTransactionCompletes() {
		this.runner.withUserConfiguration(OrderedTransactions.class)
			.withPropertyValues("quorumlock.aspect-order=" + (TX_ORDER + 100))
			.run((context) -> {
				Observation observation = context.getBean(Payments.class).pay("flipped");
				assertThat(observation.inTransaction()).isTrue();
				assertThat(observation.heldElsewhereInside()).isTrue();
				assertThat(observation.heldElsewhereInside()).isTrue();
				assertThat(observation.heldElsewhereAfterCompletion()).isFalse();
			});
	}

	/**
	 * What the method saw: a transaction, and the lock from another thread in
	 * afterCompletion.
	 */
	static final class Observation {

		private volatile boolean inTransaction;

		private volatile boolean heldElsewhereInside;

		private volatile Boolean heldElsewhereAfterCompletion;

		boolean inTransaction() {
			return this.inTransaction;
		}

		boolean heldElsewhereInside() {
			return this.heldElsewhereInside;
		}

		Boolean heldElsewhereAfterCompletion() {
			return this.heldElsewhereAfterCompletion;
		}

	}

	static class Payments {

		private final JdbcTemplate jdbc;

		private final DistributedLockRegistry registry;

		Payments(JdbcTemplate jdbc, DistributedLockRegistry registry) {
			this.jdbc = jdbc;
			this.registry = registry;
		}

		@DistributedLock(key = "#id", name = "payments")
		@Transactional
		public Observation pay(String id) {
			Observation observation = new Observation();
			observation.inTransaction = TransactionSynchronizationManager.isActualTransactionActive();
			this.jdbc.update("insert into payment(id) values (?)", id);
			observation.heldElsewhereInside = heldElsewhere(id);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCompletion(int status) {
					observation.heldElsewhereAfterCompletion = heldElsewhere(id);
				}

			});
			return observation;
		}

		/** Whether another thread's no-wait attempt fails. */
		private boolean heldElsewhere(String id) {
			LockRequest request = LockRequest.of(id).name("payments").waitAtMost(Duration.ZERO);
			Optional<Lease> lease = CompletableFuture.supplyAsync(() -> this.registry.tryAcquire(request))
				.orTimeout(10, TimeUnit.SECONDS)
				.join();
			lease.ifPresent(Lease::release);
			return lease.isEmpty();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DataSourceConfiguration {

		@Bean(destroyMethod = "shutdown")
		EmbeddedDatabase dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.addScript("classpath:io/quorumlock/aop/payment.sql")
				.build();
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		Payments payments(JdbcTemplate jdbc, DistributedLockRegistry registry) {
			return new Payments(jdbc, registry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class DefaultTransactions {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = TX_ORDER)
	static class OrderedTransactions {

	}

}
