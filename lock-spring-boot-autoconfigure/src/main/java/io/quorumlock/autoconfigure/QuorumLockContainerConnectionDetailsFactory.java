package io.quorumlock.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;

/**
 * {@link QuorumLockConnectionDetails} for the Redis containers of a test declared with
 * {@code @ServiceConnection(name = "quorumlock")}: each is one master, on its mapped port
 * 6379. Registered in {@code META-INF/spring.factories}; Boot skips this factory (it logs
 * the failure at trace level) when Testcontainers or spring-boot-testcontainers is
 * missing, so an application without them is unaffected. The one class serves Boot 3.5
 * (Testcontainers 1.21) and Boot 4 (Testcontainers 2): the service-connection API it
 * extends, and Testcontainers' {@code Container}, kept their packages and signatures.
 * <p>
 * Boot registers one connection-details bean per connection-details type and skips the
 * sources that come after the first, so the one bean must stand for every container: the
 * factory keeps all the sources it has accepted (Boot creates a fresh factory for each
 * test context), and every bean it returns lists all of them. The auto-configuration
 * drops repeated URIs, so the result is the same if a later Boot registers one bean per
 * container.
 */
class QuorumLockContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, QuorumLockConnectionDetails> {

	/** The connection name that marks a container as a quorum master. */
	static final String CONNECTION_NAME = "quorumlock";

	private static final int REDIS_PORT = 6379;

	/** Every accepted source, in the order Boot offered them; guarded by itself. */
	private final Map<ContainerConnectionSource<Container<?>>, Master> masters = new LinkedHashMap<>();

	QuorumLockContainerConnectionDetailsFactory() {
		super(CONNECTION_NAME);
	}

	@Override
	protected QuorumLockConnectionDetails getContainerConnectionDetails(
			ContainerConnectionSource<Container<?>> source) {
		synchronized (this.masters) {
			this.masters.computeIfAbsent(source, Master::new);
			return new Masters(source, this);
		}
	}

	private List<Master> masters() {
		synchronized (this.masters) {
			return new ArrayList<>(this.masters.values());
		}
	}

	/** One container: its host and mapped port, read once the container has started. */
	private static final class Master extends ContainerConnectionDetails<Container<?>> {

		Master(ContainerConnectionSource<Container<?>> source) {
			super(source);
		}

		String uri() {
			Container<?> container = getContainer();
			return "redis://" + container.getHost() + ":" + container.getMappedPort(REDIS_PORT);
		}

	}

	/** The bean: every container the factory has accepted. */
	private static final class Masters extends ContainerConnectionDetails<Container<?>>
			implements QuorumLockConnectionDetails {

		private final QuorumLockContainerConnectionDetailsFactory factory;

		Masters(ContainerConnectionSource<Container<?>> source, QuorumLockContainerConnectionDetailsFactory factory) {
			super(source);
			this.factory = factory;
		}

		@Override
		public void afterPropertiesSet() throws Exception {
			super.afterPropertiesSet();
			// the other sources' details never become beans: obtain their containers here
			for (Master master : this.factory.masters()) {
				master.afterPropertiesSet();
			}
		}

		@Override
		public List<String> nodeUris() {
			return this.factory.masters().stream().map(Master::uri).toList();
		}

	}

}
