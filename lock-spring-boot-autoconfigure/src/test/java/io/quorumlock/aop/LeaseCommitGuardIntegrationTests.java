package io.quorumlock.aop;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockRequest;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A transaction begun under a lock does not commit once the lock's lease is lost: the
 * commit fails with {@link LeaseLostException} and the row is not in the database (H2),
 * whether the transaction is declared ({@code @Transactional} inside the lock, the
 * default order), begun by a {@link TransactionTemplate} in the method, or begun in a
 * programmatic {@code execute} action. The lease is lost mid-method by running out
 * unrenewed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseCommitGuardIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + redis.uris().get(0), "quorumlock.node-timeout=100ms")
		.withUserConfiguration(LedgerConfiguration.class);

	private static long rows(JdbcTemplate jdbc, String id) {
		return jdbc.queryForObject("select count(*) from payment where id = ?", Long.class, id);
	}

	/** Blocks until the current lease has run out (it is not renewed). */
	static void outliveTheLease() {
		Lease lease = CurrentLease.require();
		await("the lease runs out").atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
	}

	@Test
	void aTransactionTemplateInTheMethodCommitsWhileTheLeaseIsValid() {
		this.runner.run((context) -> {
			context.getBean(Ledger.class).withTemplate("kept", false);
			assertThat(rows(context.getBean(JdbcTemplate.class), "kept")).isOne();
		});
	}

	@Test
	void aTransactionTemplateInTheMethodDoesNotCommitOnceTheLeaseIsLost() {
		this.runner.run((context) -> {
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> context.getBean(Ledger.class).withTemplate("template", true))
				.withMessageContaining("lease lost");
			assertThat(rows(context.getBean(JdbcTemplate.class), "template")).isZero();
		});
	}

	@Test
	void aDeclaredTransactionInsideTheLockDoesNotCommitOnceTheLeaseIsLost() {
		this.runner.withUserConfiguration(Transactions.class).run((context) -> {
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> context.getBean(Ledger.class).declared("declared"));
			assertThat(rows(context.getBean(JdbcTemplate.class), "declared")).isZero();
		});
	}

	@Test
	void aTransactionInAnExecuteActionDoesNotCommitOnceTheLeaseIsLost() {
		this.runner.run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			LockRequest request = LockRequest.of("execute").name("ledger").lease(Duration.ofMillis(500)).renew(false);
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> registry.execute(request, () -> transactions.execute((status) -> {
					jdbc.update("insert into payment(id) values (?)", "execute");
					outliveTheLease();
					return null;
				})));
			assertThat(rows(jdbc, "execute")).isZero();
		});
	}

	@Test
	void aCommitThatCouldOutliveTheLeaseIsRolledBackBelowTheMargin() {
		// a margin of 900 ms on a 1 s lease: refused with most of the lease still valid
		this.runner.withPropertyValues("quorumlock.commit-guard.margin=900ms").run((context) -> {
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> context.getBean(Ledger.class).nearTheEnd("late", Duration.ofMillis(900)))
				.withMessageContaining("below the commit margin of 900 ms (quorumlock.commit-guard.margin)");
			assertThat(rows(context.getBean(JdbcTemplate.class), "late")).isZero();
		});
	}

	@Test
	void aCommitWithMoreValidityLeftThanTheMarginGoesThrough() {
		this.runner.withPropertyValues("quorumlock.commit-guard.margin=100ms").run((context) -> {
			context.getBean(Ledger.class).nearTheEnd("in-time", Duration.ofMillis(900));
			assertThat(rows(context.getBean(JdbcTemplate.class), "in-time")).isOne();
		});
	}

	@Test
	void theGuardSwitchedOffLetsACommitThroughAfterTheLoss() {
		this.runner.withPropertyValues("quorumlock.commit-guard.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean("quorumLockLeaseCommitGuardRegistrar");
			// the loss is still reported, by the release, once the commit is done
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> context.getBean(Ledger.class).withTemplate("unguarded", true));
			assertThat(rows(context.getBean(JdbcTemplate.class), "unguarded")).isOne();
		});
	}

	@Test
	void aNegativeMarginStopsTheStartNamingTheProperty() {
		this.runner.withPropertyValues("quorumlock.commit-guard.margin=-1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("quorumlock.commit-guard.margin")
				.hasMessageContaining("must not be negative"));
	}

	static class Ledger {

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		Ledger(JdbcTemplate jdbc, TransactionTemplate transactions) {
			this.jdbc = jdbc;
			this.transactions = transactions;
		}

		@DistributedLock(key = "#id", name = "ledger", lease = "500ms", renew = false)
		public void withTemplate(String id, boolean outliveTheLease) {
			this.transactions.executeWithoutResult((status) -> {
				this.jdbc.update("insert into payment(id) values (?)", id);
				if (outliveTheLease) {
					outliveTheLease();
				}
			});
		}

		/**
		 * Inserts, then waits until the lease has at most {@code left} of validity left
		 * (but is still valid), then commits.
		 */
		@DistributedLock(key = "#id", name = "ledger", lease = "1s", renew = false)
		public void nearTheEnd(String id, Duration left) {
			Lease lease = CurrentLease.require();
			this.transactions.executeWithoutResult((status) -> {
				this.jdbc.update("insert into payment(id) values (?)", id);
				await("the lease nears its end").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(5))
					.until(() -> lease.remaining().compareTo(left) <= 0);
			});
		}

		@DistributedLock(key = "#id", name = "ledger", lease = "500ms", renew = false)
		@Transactional
		public void declared(String id) {
			this.jdbc.update("insert into payment(id) values (?)", id);
			outliveTheLease();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LedgerConfiguration {

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
		TransactionTemplate transactionTemplate(PlatformTransactionManager transactionManager) {
			return new TransactionTemplate(transactionManager);
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		Ledger ledger(JdbcTemplate jdbc, TransactionTemplate transactions) {
			return new Ledger(jdbc, transactions);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class Transactions {

	}

}
