package io.quorumlock.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension running N real {@code redis-server} processes on free 127.0.0.1
 * ports, without persistence.
 * <p>
 * Register it as
 * {@code @RegisterExtension static final RedisServers redis = RedisServers.start(3);}
 * (also in a {@code @Nested} class, or as an instance field with {@code PER_CLASS}).
 * Servers start in {@code beforeAll} (or, for an instance field without
 * {@code PER_CLASS}, before the first test) and stop after the class that started them.
 * Before each test every server is resumed or restarted if needed and flushed. Outside
 * JUnit use {@link #start()} and {@link #close()}.
 * <p>
 * With {@link Builder#cluster()} the servers form one Redis Cluster of masters without
 * replicas (each the same share of the slots), which is healthy again after every
 * {@link #reset()}; {@link #nodeForKey(String)} names the master of a key.
 * <p>
 * The binary is the one {@link RedisBinary} finds.
 */
public final class RedisServers implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AutoCloseable {

	private final ServerGroup group;

	private RedisServers(Builder builder) {
		this.group = new ServerGroup(builder.nodes, builder.args, builder.startupTimeout, builder.cluster,
				builder.password, builder.tls);
	}

	/**
	 * An extension for {@code nodes} servers with default settings; nothing is started
	 * until {@code beforeAll}.
	 * @param nodes the number of servers, at least 1
	 * @return a new, not yet started extension
	 */
	public static RedisServers start(int nodes) {
		return builder().nodes(nodes).build();
	}

	/**
	 * A builder for an extension with extra {@code redis-server} arguments or a different
	 * startup timeout.
	 * @return a new builder (1 node by default)
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Start the servers now if they are not running yet (idempotent). Use with
	 * {@link #close()} outside JUnit.
	 * @return this, for {@code try (RedisServers redis = RedisServers.start(1).start())}
	 */
	public RedisServers start() {
		this.group.start();
		return this;
	}

	/**
	 * Stop every server (SIGKILL by PID) and delete their temp directories. The extension
	 * may be started again.
	 */
	@Override
	public void close() {
		this.group.close();
	}

	/**
	 * Bring every server back to a clean running state: resume paused ones, restart
	 * killed ones on the same port, then {@code FLUSHALL} each; a cluster is then awaited
	 * until healthy. Called before each test.
	 */
	public void reset() {
		this.group.reset();
	}

	/**
	 * Starts the servers, unless they are already running (e.g. registered in an
	 * enclosing class).
	 */
	@Override
	public void beforeAll(ExtensionContext context) {
		this.group.startOwnedBy(context);
	}

	/**
	 * Stops the servers if {@code context} is the one that started them (not for
	 * {@code @Nested} classes that inherit the extension from their enclosing class).
	 */
	@Override
	public void afterAll(ExtensionContext context) {
		this.group.closeIfOwnedBy(context.getUniqueId());
	}

	/**
	 * Starts the servers if no {@code beforeAll} did, then {@linkplain #reset() resets}
	 * them.
	 */
	@Override
	public void beforeEach(ExtensionContext context) {
		this.group.startUnlessStarted(context);
		reset();
	}

	/**
	 * The number of servers.
	 * @return the configured node count
	 */
	public int size() {
		return this.group.size();
	}

	/**
	 * One server.
	 * @param index 0-based index
	 * @return the server
	 */
	public RedisServer node(int index) {
		return this.group.started().get(index);
	}

	/**
	 * All servers, in index order.
	 * @return an unmodifiable list
	 */
	public List<RedisServer> nodes() {
		return this.group.started();
	}

	/**
	 * The URIs of all servers, in index order.
	 * @return e.g. {@code [redis://127.0.0.1:6390, ...]}
	 */
	public List<String> uris() {
		return this.group.started().stream().map(RedisServer::uri).toList();
	}

	/**
	 * Whether the servers form one Redis Cluster.
	 * @return true if built with {@link Builder#cluster()}
	 */
	public boolean isCluster() {
		return this.group.isCluster();
	}

	/**
	 * The master that owns the hash slot of {@code key} (a cluster only).
	 * @param key a key, for example {@code lock:orders:{42}}
	 * @return the server that serves it
	 * @throws IllegalStateException if the servers are not a cluster
	 */
	public RedisServer nodeForKey(String key) {
		return this.group.nodeForKey(key);
	}

	/**
	 * The {@code redis-server} executable the servers run.
	 * @return its absolute path
	 */
	public Path binary() {
		return this.group.binary();
	}

	@Override
	public String toString() {
		return this.group.toString();
	}

	/**
	 * Whether {@code redis-server} as {@link RedisServers} would resolve it now can serve
	 * TLS (a build-time option of Redis: this looks for OpenSSL in the executable).
	 * @return true if the binary was built with TLS
	 */
	public static boolean binarySupportsTls() {
		return RedisBinary.supportsTls(RedisBinary.resolve());
	}

	/**
	 * PEM files of a TLS server.
	 *
	 * @param certificate the server certificate
	 * @param privateKey its private key
	 * @param caCertificate the CA that signed it
	 */
	public record Tls(Path certificate, Path privateKey, Path caCertificate) {
	}

	/**
	 * Builder for {@link RedisServers}.
	 */
	public static final class Builder {

		private int nodes = 1;

		private final List<String> args = new ArrayList<>();

		private Duration startupTimeout = ServerGroup.DEFAULT_STARTUP_TIMEOUT;

		private boolean cluster;

		private String password;

		private Tls tls;

		private Builder() {
		}

		/**
		 * Make the servers one Redis Cluster of masters without replicas: started with
		 * {@code --cluster-enabled yes}, each given the same share of the 16384 slots and
		 * met; also after each restart on the same port it rejoins with its slots.
		 * @return this builder
		 */
		public Builder cluster() {
			this.cluster = true;
			return this;
		}

		/**
		 * Start every server with {@code --requirepass}; the fixture's own calls
		 * ({@link RedisServer#call}, the start-up PING, the FLUSHALL before each test)
		 * authenticate with it, the servers' {@link RedisServer#uri()} does not carry it.
		 * @param password the password of the default user
		 * @return this builder
		 */
		public Builder password(String password) {
			this.password = ServerGroup.checkPassword(password);
			return this;
		}

		/**
		 * Also listen for TLS on a second free port ({@link RedisServer#tlsPort()},
		 * {@link RedisServer#tlsUri()}), with these PEM files and without client
		 * certificates; the plain-text port stays for the fixture's own calls. Needs a
		 * {@code redis-server} built with TLS (the embedded-redis binary is not).
		 * @param certificate the server certificate
		 * @param privateKey its private key
		 * @param caCertificate the CA that signed it
		 * @return this builder
		 */
		public Builder tls(Path certificate, Path privateKey, Path caCertificate) {
			this.tls = new Tls(certificate, privateKey, caCertificate);
			return this;
		}

		/**
		 * The number of servers.
		 * @param nodes at least 1
		 * @return this builder
		 */
		public Builder nodes(int nodes) {
			this.nodes = ServerGroup.checkNodes(nodes);
			return this;
		}

		/**
		 * Extra {@code redis-server} arguments appended to the defaults, e.g.
		 * {@code "--maxmemory", "1mb"}.
		 * @param args the arguments; repeated calls append
		 * @return this builder
		 */
		public Builder args(String... args) {
			this.args.addAll(Arrays.asList(args));
			return this;
		}

		/**
		 * How long a server may take to answer PING after launch (default 10 s).
		 * @param timeout a positive duration
		 * @return this builder
		 */
		public Builder startupTimeout(Duration timeout) {
			this.startupTimeout = ServerGroup.checkStartupTimeout(timeout);
			return this;
		}

		/**
		 * Create the extension; servers start later, in {@code beforeAll} or
		 * {@link RedisServers#start()}.
		 * @return a new extension
		 */
		public RedisServers build() {
			return new RedisServers(this);
		}

	}

}
