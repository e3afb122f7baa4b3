package io.quorumlock.autoconfigure;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.lettuce.core.RedisURI;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A password given in node URIs and properties appears in no log line (Logback, with
 * Lettuce at DEBUG, and the engine's {@code System.Logger}), no exception message or
 * stack trace, no listener event, no node description of {@code RegistryStatus} and no
 * start-up failure, through the failures that produce the most text: a wrong password on
 * one node, a node killed, a quorum lost, and a lease lost.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PasswordRedactionIntegrationTests {

	private static final String PASSWORD = "Zq7-secret-Kp2";

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder().nodes(3).password(PASSWORD).build();

	/** Every piece of text the test could see. */
	private final List<String> seen = new CopyOnWriteArrayList<>();

	@Test
	void passwordAppearsNowhere() throws Exception {
		Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
		Logger lettuce = (Logger) LoggerFactory.getLogger("io.lettuce");
		Level lettuceLevel = lettuce.getLevel();
		AppenderBase<ILoggingEvent> logback = new AppenderBase<>() {
			@Override
			protected void append(ILoggingEvent event) {
				PasswordRedactionIntegrationTests.this.seen
					.add(event.getFormattedMessage() + ((event.getThrowableProxy() != null)
							? ThrowableProxyUtil.asString(event.getThrowableProxy()) : ""));
			}
		};
		java.util.logging.Logger jul = java.util.logging.Logger.getLogger("");
		Handler julHandler = new Handler() {
			@Override
			public void publish(LogRecord record) {
				PasswordRedactionIntegrationTests.this.seen
					.add(record.getMessage() + ((record.getThrown() != null) ? trace(record.getThrown()) : ""));
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}
		};
		logback.start();
		root.addAppender(logback);
		lettuce.setLevel(Level.DEBUG);
		jul.addHandler(julHandler);
		try {
			failEveryWay();
		}
		finally {
			jul.removeHandler(julHandler);
			lettuce.setLevel(lettuceLevel);
			root.detachAppender(logback);
		}
		String all = String.join("\n", this.seen);
		// the failures did produce the text that is searched
		assertThat(all).contains("WRONGPASS")
			.contains("quorum unavailable")
			.contains("lease lost")
			.contains("127.0.0.1:" + redis.node(1).port());
		assertThat(all).doesNotContain(PASSWORD);
	}

	private void failEveryWay() throws Exception {
		String good = "redis://:" + PASSWORD + "@127.0.0.1:";
		String wrong = "redis://default:wrong-" + PASSWORD + "@127.0.0.1:";
		RedisURI parsed = RedisURI.create(good + redis.node(0).port());
		this.seen.add(parsed.toString());
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(good + redis.node(0).port(), good + redis.node(1).port(), wrong + redis.node(2).port())
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(Duration.ofMillis(500))
			.listener(new LockListener() {
				@Override
				public void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
					PasswordRedactionIntegrationTests.this.seen.add(trace(failure));
				}

				@Override
				public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
					PasswordRedactionIntegrationTests.this.seen.add(lease + " " + trace(cause));
				}

				@Override
				public void onNodeError(String node, Throwable error) {
					PasswordRedactionIntegrationTests.this.seen.add(node + " " + trace(error));
				}
			})
			.build()) {
			this.seen.add(engine.nodes().toString());
			this.seen.add(engine.nodeAddresses().toString());
			Lease lease = engine.acquire(LockRequest.of("held").lease(Duration.ofSeconds(3)).renew(true));
			this.seen.add(lease.toString() + " " + lease.fencingToken());
			this.seen.add(engine.leases().toString());

			redis.node(1).kill();
			QuorumUnavailableException unavailable = org.junit.jupiter.api.Assertions
				.assertThrows(QuorumUnavailableException.class, () -> engine.acquire(LockRequest.of("other")));
			this.seen.add(trace(unavailable));
			await().atMost(Duration.ofSeconds(20)).until(() -> !lease.isValid());
			LeaseLostException lost = org.junit.jupiter.api.Assertions.assertThrows(LeaseLostException.class,
					lease::release);
			this.seen.add(trace(lost));
			this.seen.add(engine.nodes().toString());
		}
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
			.withPropertyValues("quorumlock.nodes[0]=redis://app:" + PASSWORD + "@127.0.0.1:notaport")
			.run((context) -> this.seen.add(trace(context.getStartupFailure())));
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
			.withPropertyValues("quorumlock.nodes[0].uri=redis://127.0.0.1:" + redis.node(0).port(),
					"quorumlock.nodes[0].password=" + PASSWORD, "quorumlock.nodes[1].uri=redis://127.0.0.1:1",
					"quorumlock.nodes[1].password=" + PASSWORD, "quorumlock.nodes[2].uri=redis://127.0.0.1:1")
			.run((context) -> this.seen.add(trace(context.getStartupFailure())));
		NodeProperties node = new NodeProperties("redis://127.0.0.1:1");
		node.setPassword(PASSWORD);
		this.seen.add(node.toString());
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> QuorumLockEngine.builder().nodes("redis://u:" + PASSWORD + "@h:notaport").build())
			.satisfies((ex) -> this.seen.add(trace(ex)));
	}

	private static String trace(Throwable error) {
		if (error == null) {
			return "";
		}
		StringWriter out = new StringWriter();
		error.printStackTrace(new PrintWriter(out));
		return out.toString();
	}

}
