package io.quorumlock.autoconfigure;

import java.util.List;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.lang.Nullable;

/**
 * The application's {@code spring.data.redis} connection as single mode reads it,
 * independent of the Spring Boot line that described it: exactly one of standalone,
 * Sentinel or Cluster; the top-level credentials; TLS and the bundle that holds its
 * trust; the client name. Each Boot line's adapter ({@link SingleModeConfiguration} for
 * Boot 3, {@link Boot4SingleModeConfiguration} for Boot 4) builds one, and
 * {@link SingleModeNodes} turns it into the engine's nodes.
 *
 * @param standalone the one node, or null
 * @param sentinel the Sentinel set, or null
 * @param cluster the seed nodes of a Redis Cluster, or null
 * @param username the top-level username, or null
 * @param password the top-level password, or null
 * @param ssl whether the connection uses TLS
 * @param sslBundle the bundle holding the TLS trust, or null for the JDK's default
 * @param clientName the client name, or null
 */
record RedisConnection(@Nullable Standalone standalone, @Nullable Sentinel sentinel, @Nullable List<Address> cluster,
		@Nullable String username, @Nullable String password, boolean ssl, @Nullable SslBundle sslBundle,
		@Nullable String clientName) {

	/**
	 * One Redis server.
	 *
	 * @param host its host
	 * @param port its port
	 * @param database the database index
	 */
	record Standalone(String host, int port, int database) {
	}

	/**
	 * A Sentinel set.
	 *
	 * @param master the monitored master's name
	 * @param nodes the sentinels
	 * @param username the sentinels' username, or null
	 * @param password the sentinels' password, or null
	 * @param database the database index
	 */
	record Sentinel(String master, List<Address> nodes, @Nullable String username, @Nullable String password,
			int database) {
	}

	/**
	 * A host and port.
	 *
	 * @param host the host
	 * @param port the port
	 */
	record Address(String host, int port) {
	}

}
