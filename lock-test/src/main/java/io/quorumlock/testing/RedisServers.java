package io.quorumlock.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext.Store.CloseableResource;

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
 * The binary is {@code -Dquorumlock.test.redis-server} or env {@code REDIS_SERVER} (a
 * path, or {@code embedded}), else {@code redis-server} on the {@code PATH}, else the one
 * shipped in the embedded-redis jar.
 */
public final class RedisServers implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AutoCloseable {

	private static final Namespace NAMESPACE = Namespace.create(RedisServers.class);

	private static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private final int size;

	private final List<String> args;

	private final Duration startupTimeout;

	private final boolean cluster;

	private final String password;

	private final Tls tls;

	private volatile List<RedisServer> nodes;

	private volatile Path binary;

	/**
	 * Unique id of the extension context that started the servers and so has to stop
	 * them.
	 */
	private String owner;

	private RedisServers(Builder builder) {
		this.size = builder.nodes;
		this.args = List.copyOf(builder.args);
		this.startupTimeout = builder.startupTimeout;
		this.cluster = builder.cluster;
		this.password = builder.password;
		this.tls = builder.tls;
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
	public synchronized RedisServers start() {
		if (this.nodes != null) {
			return this;
		}
		Path resolved = RedisBinary.resolve();
		List<RedisServer> started = new ArrayList<>(this.size);
		List<String> serverArgs = new ArrayList<>();
		if (this.cluster) {
			serverArgs.addAll(ClusterFormation.serverArgs());
		}
		serverArgs.addAll(this.args);
		try {
			for (int i = 0; i < this.size; i++) {
				RedisServer server = new RedisServer((this.cluster ? "cluster-" : "redis-") + i, resolved, serverArgs,
						this.startupTimeout, this.password, this.tls);
				started.add(server);
				server.startOnFreePort(this.cluster ? ClusterFormation.BUS_PORT_OFFSET : 0);
			}
			if (this.cluster) {
				ClusterFormation.form(started);
			}
		}
		catch (RuntimeException | Error ex) {
			for (RedisServer server : started) {
				try {
					server.stop();
				}
				catch (RuntimeException suppressed) {
					ex.addSuppressed(suppressed);
				}
			}
			throw ex;
		}
		this.binary = resolved;
		this.nodes = List.copyOf(started);
		return this;
	}

	/**
	 * Stop every server (SIGKILL by PID) and delete their temp directories. The extension
	 * may be started again.
	 */
	@Override
	public synchronized void close() {
		List<RedisServer> current = this.nodes;
		this.nodes = null;
		this.owner = null;
		if (current == null) {
			return;
		}
		RuntimeException failure = null;
		for (RedisServer server : current) {
			try {
				server.stop();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Bring every server back to a clean running state: resume paused ones, restart
	 * killed ones on the same port, then {@code FLUSHALL} each; a cluster is then awaited
	 * until healthy. Called before each test.
	 */
	public void reset() {
		List<RedisServer> current = started();
		for (RedisServer server : current) {
			server.reset();
		}
		if (this.cluster) {
			ClusterFormation.awaitOk(current);
		}
	}

	/**
	 * Starts the servers, unless they are already running (e.g. registered in an
	 * enclosing class).
	 */
	@Override
	public void beforeAll(ExtensionContext context) {
		startOwnedBy(context);
	}

	/**
	 * Stops the servers if {@code context} is the one that started them (not for
	 * {@code @Nested} classes that inherit the extension from their enclosing class).
	 */
	@Override
	public void afterAll(ExtensionContext context) {
		closeIfOwnedBy(context.getUniqueId());
	}

	/**
	 * Starts the servers if no {@code beforeAll} did, then {@linkplain #reset() resets}
	 * them.
	 */
	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.nodes == null) {
			boolean perClass = context.getTestInstanceLifecycle().orElse(Lifecycle.PER_METHOD) == Lifecycle.PER_CLASS;
			startOwnedBy(perClass ? context.getParent().orElse(context) : context);
		}
		reset();
	}

	private void startOwnedBy(ExtensionContext context) {
		String id = context.getUniqueId();
		synchronized (this) {
			if (this.nodes != null) {
				return;
			}
			start();
			this.owner = id;
		}
		// also stop when the context closes, in case afterAll is not called for this
		// registration
		context.getStore(NAMESPACE).put(this, (CloseableResource) () -> closeIfOwnedBy(id));
	}

	private void closeIfOwnedBy(String id) {
		synchronized (this) {
			if (this.nodes == null || !id.equals(this.owner)) {
				return;
			}
			close();
		}
	}

	/**
	 * The number of servers.
	 * @return the configured node count
	 */
	public int size() {
		return this.size;
	}

	/**
	 * One server.
	 * @param index 0-based index
	 * @return the server
	 */
	public RedisServer node(int index) {
		return started().get(index);
	}

	/**
	 * All servers, in index order.
	 * @return an unmodifiable list
	 */
	public List<RedisServer> nodes() {
		return started();
	}

	/**
	 * The URIs of all servers, in index order.
	 * @return e.g. {@code [redis://127.0.0.1:6390, ...]}
	 */
	public List<String> uris() {
		return started().stream().map(RedisServer::uri).toList();
	}

	/**
	 * Whether the servers form one Redis Cluster.
	 * @return true if built with {@link Builder#cluster()}
	 */
	public boolean isCluster() {
		return this.cluster;
	}

	/**
	 * The master that owns the hash slot of {@code key} (a cluster only).
	 * @param key a key, for example {@code lock:orders:{42}}
	 * @return the server that serves it
	 * @throws IllegalStateException if the servers are not a cluster
	 */
	public RedisServer nodeForKey(String key) {
		if (!this.cluster) {
			throw new IllegalStateException("nodeForKey needs a cluster: build RedisServers with cluster()");
		}
		List<RedisServer> current = started();
		RedisServer asked = current.stream().filter(RedisServer::isRunning).findFirst().orElseThrow();
		return current.get(ClusterFormation.ownerOf(ClusterFormation.slotOf(asked, key), current.size()));
	}

	/**
	 * The {@code redis-server} executable the servers run.
	 * @return its absolute path
	 */
	public Path binary() {
		started();
		return this.binary;
	}

	private List<RedisServer> started() {
		List<RedisServer> current = this.nodes;
		if (current == null) {
			throw new IllegalStateException("RedisServers not started: register it with @RegisterExtension "
					+ "(static field, or instance field with @TestInstance(PER_CLASS)) or call start()");
		}
		return current;
	}

	@Override
	public String toString() {
		List<RedisServer> current = this.nodes;
		return "RedisServers" + ((current != null) ? current : "[" + this.size + " nodes, not started]");
	}

	/**
	 * Whether {@code redis-server} as {@link RedisServers} would resolve it now can serve
	 * TLS. TLS is a build-time option, and a binary built without it accepts the
	 * {@code tls-*} settings all the same, so this looks for OpenSSL in the executable
	 * itself (its {@code SSL_CTX_new} symbol, linked or dynamic).
	 * @return true if the binary was built with TLS
	 */
	public static boolean binarySupportsTls() {
		Path resolved = RedisBinary.resolve();
		try {
			byte[] bytes = java.nio.file.Files.readAllBytes(resolved.toRealPath());
			byte[] needle = "SSL_CTX_new".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
			outer: for (int i = 0; i + needle.length <= bytes.length; i++) {
				for (int j = 0; j < needle.length; j++) {
					if (bytes[i + j] != needle[j]) {
						continue outer;
					}
				}
				return true;
			}
			return false;
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException("Cannot read " + resolved, ex);
		}
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

		private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;

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
			if (password == null || password.isEmpty()) {
				throw new IllegalArgumentException("password must not be empty");
			}
			this.password = password;
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
			if (nodes < 1) {
				throw new IllegalArgumentException("nodes must be >= 1, was " + nodes);
			}
			this.nodes = nodes;
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
			if (timeout.isNegative() || timeout.isZero()) {
				throw new IllegalArgumentException("startupTimeout must be positive");
			}
			this.startupTimeout = timeout;
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
