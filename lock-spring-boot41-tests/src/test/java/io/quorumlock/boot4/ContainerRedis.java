package io.quorumlock.boot4;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The Redis containers of the Boot 4 service-connection tests: the image is
 * {@code -Dquorumlock.test.redis-image}, else env {@code QUORUMLOCK_TEST_REDIS_IMAGE}
 * (which {@code .ci/docker} sets to an image built from the machine's own redis-server),
 * else the official image a user would pull.
 */
final class ContainerRedis {

	static final int PORT = 6379;

	private ContainerRedis() {
	}

	static GenericContainer<?> container() {
		String name = System.getProperty("quorumlock.test.redis-image");
		if (name == null || name.isBlank()) {
			name = System.getenv("QUORUMLOCK_TEST_REDIS_IMAGE");
		}
		DockerImageName image = DockerImageName
			.parse((name == null || name.isBlank()) ? "redis:7-alpine" : name.trim());
		return new GenericContainer<>(image).withExposedPorts(PORT);
	}

	static String address(GenericContainer<?> container) {
		return container.getHost() + ":" + container.getMappedPort(PORT);
	}

}
