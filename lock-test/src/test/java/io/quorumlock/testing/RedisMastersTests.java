package io.quorumlock.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisMasters}: masters started once for the class, injected into fields and
 * parameters, shared with nested classes, reset before each test.
 */
@RedisMasters(3)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisMastersTests {

	static RedisServers staticMasters;

	RedisServers instanceMasters;

	@Test
	@Order(1)
	void fieldsAndParametersGetTheSameRunningMasters(RedisServers masters) {
		assertThat(staticMasters).isSameAs(this.instanceMasters).isSameAs(masters);
		assertThat(masters.size()).isEqualTo(3);
		assertThat(masters.uris()).hasSize(3).allMatch((uri) -> uri.startsWith("redis://127.0.0.1:"));
		assertThat(masters.nodes()).allSatisfy((node) -> assertThat(node.call("PING")).isEqualTo("PONG"));
		masters.node(0).call("SET", "left", "behind");
		masters.node(1).kill();
		masters.node(2).pause();
	}

	@Test
	@Order(2)
	void eachTestStartsWithEveryMasterUpAndEmpty(RedisServers masters) {
		assertThat(masters.nodes()).allSatisfy((node) -> {
			assertThat(node.isRunning()).isTrue();
			assertThat(node.isPaused()).isFalse();
		});
		assertThat(masters.node(0).exists("left")).isFalse();
	}

	@Test
	void propertiesForOneMasterAreSingleModeAndForSeveralAQuorum(RedisServers masters) {
		Map<String, Supplier<Object>> quorum = new LinkedHashMap<>();
		QuorumLockTestProperties.register(quorum::put, masters);
		assertThat(quorum.keySet()).containsExactly("quorumlock.nodes[0]", "quorumlock.nodes[1]", "quorumlock.nodes[2]",
				"quorumlock.rejoin-delay");
		assertThat(quorum.get("quorumlock.nodes[2]").get()).isEqualTo(masters.node(2).uri());
		try (RedisServers one = RedisServers.start(1).start()) {
			Map<String, Supplier<Object>> single = new LinkedHashMap<>();
			QuorumLockTestProperties.register(single::put, one);
			assertThat(single.keySet()).containsExactly("spring.data.redis.host", "spring.data.redis.port");
			assertThat(single.get("spring.data.redis.port").get()).isEqualTo(one.node(0).port());
		}
	}

	@Nested
	class Inner {

		@Test
		void nestedClassSharesTheEnclosingMasters(RedisServers masters) {
			assertThat(masters).isSameAs(staticMasters);
		}

	}

	@Nested
	@RedisMasters(1)
	class OwnMasters {

		@Test
		void nestedClassWithItsOwnAnnotationGetsItsOwnMasters(RedisServers masters) {
			assertThat(masters).isNotSameAs(staticMasters);
			assertThat(masters.size()).isEqualTo(1);
		}

	}

}
