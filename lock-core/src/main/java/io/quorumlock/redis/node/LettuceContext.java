package io.quorumlock.redis.node;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;

/**
 * What the Lettuce transports of an engine share: the resources and the options of every
 * connection, and the engine's timers for the steps that must not run on an I/O thread.
 *
 * @param resources shared Lettuce resources
 * @param sslOptions TLS settings for a {@code rediss://} node, or null for Lettuce's
 * defaults
 * @param commandTimeout Lettuce's own bound on a command, a safety net behind the
 * per-round node timeout so that commands to a stalled node do not pile up
 * @param connectTimeout TCP connect timeout
 * @param timers the engine's timers
 */
public record LettuceContext(ClientResources resources, SslOptions sslOptions, Duration commandTimeout,
		Duration connectTimeout, Timers timers) {

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
