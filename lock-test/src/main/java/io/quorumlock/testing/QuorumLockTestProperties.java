package io.quorumlock.testing;

import java.util.Objects;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Points a Spring test's application at {@link RedisServers} masters or
 * {@link EtcdMembers}, from a {@code @DynamicPropertySource} method: <pre class="code">
 * &#64;DynamicPropertySource
 * static void redis(DynamicPropertyRegistry registry) {
 *     QuorumLockTestProperties.register(registry, masters); // or an &#64;EtcdCluster's members
 * }
 * </pre> Needs {@code spring-test} on the test class path (any Spring Boot test has it).
 */
public final class QuorumLockTestProperties {

	private QuorumLockTestProperties() {
	}

	/**
	 * One master: single mode on the application's own Redis connection
	 * ({@code spring.data.redis.host} and {@code .port}). Several: quorum mode on them
	 * ({@code quorumlock.nodes[i]}), with {@code quorumlock.rejoin-delay=0s}, since the
	 * masters start empty and the restart guard would otherwise hold each back for the
	 * longest lease (a test of the guard itself sets its own value after this call). The
	 * values are read when the context needs them, after the masters have started.
	 * @param registry the registry passed to the {@code @DynamicPropertySource} method
	 * @param masters the masters, started by the time the application context starts
	 */
	public static void register(DynamicPropertyRegistry registry, RedisServers masters) {
		Objects.requireNonNull(registry, "'registry' must not be null");
		Objects.requireNonNull(masters, "'masters' must not be null");
		if (masters.size() == 1) {
			registry.add("spring.data.redis.host", () -> masters.node(0).host());
			registry.add("spring.data.redis.port", () -> masters.node(0).port());
			return;
		}
		for (int i = 0; i < masters.size(); i++) {
			int index = i;
			registry.add("quorumlock.nodes[" + i + "]", () -> masters.node(index).uri());
		}
		registry.add("quorumlock.rejoin-delay", () -> "0s");
	}

	/**
	 * Etcd mode on the members' client endpoints ({@code quorumlock.etcd.endpoints[i]}),
	 * with the application's own {@code lock-etcd} dependency. The values are read when
	 * the context needs them, after the members have started.
	 * @param registry the registry passed to the {@code @DynamicPropertySource} method
	 * @param members the members, started by the time the application context starts
	 */
	public static void register(DynamicPropertyRegistry registry, EtcdMembers members) {
		Objects.requireNonNull(registry, "'registry' must not be null");
		Objects.requireNonNull(members, "'members' must not be null");
		for (int i = 0; i < members.size(); i++) {
			int index = i;
			registry.add("quorumlock.etcd.endpoints[" + i + "]", () -> members.member(index).endpoint());
		}
	}

}
