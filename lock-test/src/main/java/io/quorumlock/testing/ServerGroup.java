package io.quorumlock.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext.Store.CloseableResource;

/**
 * The servers of one {@link RedisServers}: started together (and formed into a cluster if
 * asked), stopped together, and owned by the extension context that started them. Start
 * and stop are synchronized on this instance; the started list is published through a
 * volatile field.
 */
final class ServerGroup {

	static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private static final Namespace NAMESPACE = Namespace.create(RedisServers.class);

	private final int size;

	private final List<String> args;

	private final Duration startupTimeout;

	private final boolean cluster;

	private final String password;

	private final RedisServers.Tls tls;

	private volatile List<RedisServer> nodes;

	private volatile Path binary;

	/**
	 * Unique id of the extension context that started the servers and so has to stop
	 * them.
	 */
	private String owner;

	ServerGroup(int size, List<String> args, Duration startupTimeout, boolean cluster, String password,
			RedisServers.Tls tls) {
		this.size = size;
		this.args = List.copyOf(args);
		this.startupTimeout = startupTimeout;
		this.cluster = cluster;
		this.password = password;
		this.tls = tls;
	}

	static int checkNodes(int nodes) {
		if (nodes < 1) {
			throw new IllegalArgumentException("nodes must be >= 1, was " + nodes);
		}
		return nodes;
	}

	static String checkPassword(String password) {
		if (password == null || password.isEmpty()) {
			throw new IllegalArgumentException("password must not be empty");
		}
		return password;
	}

	static Duration checkStartupTimeout(Duration timeout) {
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("startupTimeout must be positive, was " + timeout);
		}
		return timeout;
	}

	int size() {
		return this.size;
	}

	boolean isCluster() {
		return this.cluster;
	}

	/**
	 * Start the servers if no {@code beforeAll} did: owned by the test's context, or by
	 * its class's context for a {@code PER_CLASS} test instance.
	 */
	void startUnlessStarted(ExtensionContext context) {
		if (this.nodes == null) {
			boolean perClass = context.getTestInstanceLifecycle().orElse(Lifecycle.PER_METHOD) == Lifecycle.PER_CLASS;
			startOwnedBy(perClass ? context.getParent().orElse(context) : context);
		}
	}

	/** Start the servers unless running; on a failure, stop those already started. */
	synchronized void start() {
		if (this.nodes != null) {
			return;
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
	}

	/** Stop every server; the first failure is thrown, with the others suppressed. */
	synchronized void close() {
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

	void reset() {
		List<RedisServer> current = started();
		for (RedisServer server : current) {
			server.reset();
		}
		if (this.cluster) {
			ClusterFormation.awaitOk(current);
		}
	}

	/** Start the servers, owned by {@code context}, unless they are running already. */
	void startOwnedBy(ExtensionContext context) {
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
		context.getStore(NAMESPACE).put(this, new Ownership(this, id));
	}

	/**
	 * Stops the servers when the store of the context that started them closes. Both
	 * closing contracts: JUnit before 5.13 closes only a {@link CloseableResource}, JUnit
	 * 5.13 and later close an {@link AutoCloseable} (once, even if it is both), and JUnit
	 * 6 warns about a value that is only the former.
	 */
	@SuppressWarnings("deprecation")
	private record Ownership(ServerGroup group, String id) implements CloseableResource, AutoCloseable {

		@Override
		public void close() {
			this.group.closeIfOwnedBy(this.id);
		}

	}

	/** Stop the servers if the context {@code id} started them. */
	void closeIfOwnedBy(String id) {
		synchronized (this) {
			if (this.nodes == null || !id.equals(this.owner)) {
				return;
			}
			close();
		}
	}

	List<RedisServer> started() {
		List<RedisServer> current = this.nodes;
		if (current == null) {
			throw new IllegalStateException("RedisServers not started: register it with @RegisterExtension "
					+ "(static field, or instance field with @TestInstance(PER_CLASS)) or call start()");
		}
		return current;
	}

	RedisServer nodeForKey(String key) {
		if (!this.cluster) {
			throw new IllegalStateException("nodeForKey needs a cluster: build RedisServers with cluster()");
		}
		List<RedisServer> current = started();
		RedisServer asked = current.stream().filter(RedisServer::isRunning).findFirst().orElseThrow();
		return current.get(ClusterFormation.ownerOf(ClusterFormation.slotOf(asked, key), current.size()));
	}

	Path binary() {
		started();
		return this.binary;
	}

	@Override
	public String toString() {
		List<RedisServer> current = this.nodes;
		return "RedisServers" + ((current != null) ? current : "[" + this.size + " nodes, not started]");
	}

}
