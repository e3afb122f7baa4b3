package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;

/**
 * What every {@link RedisNode} of an engine shares: the Lettuce resources and options,
 * the engine's scheduler and clock, the key of the script probe, and where messages and
 * connection failures go.
 *
 * @param resources shared Lettuce resources
 * @param sslOptions TLS settings for a {@code rediss://} node, or null for Lettuce's
 * defaults
 * @param commandTimeout Lettuce's own bound on a command, a safety net behind the
 * per-round node timeout so that commands to a stalled node do not pile up
 * @param connectTimeout TCP connect timeout
 * @param scheduler the engine's scheduler
 * @param nanoClock the engine's clock
 * @param probeKey a key under the lock prefix that the script permission probe reads
 * @param onMessage called with the channel of every release message
 * @param onError called with a node's address and every connection failure of it
 */
record NodeContext(ClientResources resources, SslOptions sslOptions, Duration commandTimeout, Duration connectTimeout,
		ScheduledExecutorService scheduler, LongSupplier nanoClock, String probeKey, Consumer<String> onMessage,
		BiConsumer<String, Throwable> onError) {

	/**
	 * The options of every connection: reconnect by itself, fail commands at once while
	 * disconnected instead of buffering them, bound each command, keep the socket alive.
	 */
	ClientOptions clientOptions() {
		ClientOptions.Builder builder = ClientOptions.builder();
		if (this.sslOptions != null) {
			builder.sslOptions(this.sslOptions);
		}
		return builder.autoReconnect(true)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.timeoutOptions(TimeoutOptions.enabled(this.commandTimeout))
			.socketOptions(SocketOptions.builder().connectTimeout(this.connectTimeout).keepAlive(true).build())
			.build();
	}

}
