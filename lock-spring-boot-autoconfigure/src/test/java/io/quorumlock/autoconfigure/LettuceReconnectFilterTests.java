package io.quorumlock.autoconfigure;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.spi.FilterReply;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LettuceReconnectFilter} without a server: which of Lettuce's reconnect lines it
 * keeps out of the log.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LettuceReconnectFilterTests {

	private final LoggerContext context = new LoggerContext();

	private final Logger watchdog = this.context.getLogger(LettuceReconnectFilter.WATCHDOG);

	private final LettuceReconnectFilter filter = new LettuceReconnectFilter(
			List.of("redis-1:6379", "10.0.0.2:6380", "[::1]:6381"));

	@BeforeEach
	void watchdogLogsAtInfoAsInAnApplication() {
		this.watchdog.setLevel(Level.INFO);
	}

	@Test
	void linesAboutAMasterAreKeptOut() {
		assertThat(decide(Level.WARN, "Cannot reconnect to [redis-1/<unresolved>:6379]: Connection refused"))
			.isEqualTo(FilterReply.DENY);
		assertThat(decide(Level.WARN, "Cannot reconnect to [/10.0.0.2:6380]: Connection refused"))
			.isEqualTo(FilterReply.DENY);
		assertThat(decide(Level.INFO, "Reconnecting, last destination was {}",
				InetSocketAddress.createUnresolved("redis-1", 6379)))
			.isEqualTo(FilterReply.DENY);
		assertThat(this.filter.kept()).isEqualTo(3);
	}

	@Test
	void linesNettyFormattedBeforeLogbackAndTheReconnectedLineAreKeptOutToo() {
		// Netty hands a location-aware logger (Logback's) the message already formatted,
		// as Lettuce 7 on Netty 4.2 logs it
		assertThat(decide(Level.INFO, "Reconnecting, last destination was redis-1/<unresolved>:6379"))
			.isEqualTo(FilterReply.DENY);
		assertThat(decide(Level.INFO, "Reconnecting, last destination was /10.0.0.2:6380")).isEqualTo(FilterReply.DENY);
		Logger handler = this.context.getLogger(LettuceReconnectFilter.RECONNECTION_HANDLER);
		handler.setLevel(Level.INFO);
		assertThat(
				this.filter.decide(null, handler, Level.INFO, "Reconnected to redis-1/<unresolved>:6379", null, null))
			.isEqualTo(FilterReply.DENY);
		assertThat(this.filter.decide(null, handler, Level.INFO, "Reconnected to cache/<unresolved>:6379", null, null))
			.isEqualTo(FilterReply.NEUTRAL);
		assertThat(decide(Level.INFO, "Reconnecting, last destination was redis-1/<unresolved>:6390"))
			.isEqualTo(FilterReply.NEUTRAL);
	}

	@Test
	void linesAboutAnotherServerPass() {
		assertThat(decide(Level.WARN, "Cannot reconnect to [redis-1/<unresolved>:6390]: Connection refused"))
			.isEqualTo(FilterReply.NEUTRAL);
		assertThat(decide(Level.WARN, "Cannot reconnect to [cache/<unresolved>:6379]: Connection refused"))
			.isEqualTo(FilterReply.NEUTRAL);
		assertThat(decide(Level.INFO, "Reconnecting, last destination was {}",
				InetSocketAddress.createUnresolved("cache", 6379)))
			.isEqualTo(FilterReply.NEUTRAL);
	}

	@Test
	void errorsOtherLoggersAndADebugLoggerPass() {
		assertThat(decide(Level.ERROR, "Cannot reconnect to [redis-1/<unresolved>:6379]: boom"))
			.isEqualTo(FilterReply.NEUTRAL);
		assertThat(this.filter.decide(null, this.context.getLogger("io.lettuce.core.Other"), Level.WARN,
				"Cannot reconnect to [redis-1/<unresolved>:6379]", null, null))
			.isEqualTo(FilterReply.NEUTRAL);
		this.watchdog.setLevel(Level.DEBUG);
		assertThat(decide(Level.WARN, "Cannot reconnect to [redis-1/<unresolved>:6379]: Connection refused"))
			.as("every line when the logger is set to DEBUG")
			.isEqualTo(FilterReply.NEUTRAL);
	}

	@Test
	void everyAddressOfADescriptionCounts() {
		assertThat(LettuceReconnectFilter.HostAndPort.in("cluster [127.0.0.1:7000, 127.0.0.1:7001)")).containsExactly(
				new LettuceReconnectFilter.HostAndPort("127.0.0.1", 7000),
				new LettuceReconnectFilter.HostAndPort("127.0.0.1", 7001));
		assertThat(LettuceReconnectFilter.HostAndPort.in("[::1]:6381"))
			.containsExactly(new LettuceReconnectFilter.HostAndPort("::1", 6381));
	}

	private FilterReply decide(Level level, String format, Object... params) {
		return this.filter.decide(null, this.watchdog, level, format, (params.length > 0) ? params : null, null);
	}

}
