package io.quorumlock.sample.testing;

import org.testcontainers.utility.DockerImageName;

/**
 * The Redis image of the Testcontainers tests: {@code -Dquorumlock.test.redis-image},
 * else env {@code QUORUMLOCK_TEST_REDIS_IMAGE} (set by {@code .ci/docker} to an image it
 * built from the machine's own redis-server, where no registry can be reached), else the
 * official image a user would pull.
 */
final class RedisImage {

	static final String DEFAULT = "redis:7-alpine";

	private RedisImage() {
	}

	static DockerImageName name() {
		String name = System.getProperty("quorumlock.test.redis-image");
		if (name == null || name.isBlank()) {
			name = System.getenv("QUORUMLOCK_TEST_REDIS_IMAGE");
		}
		return DockerImageName.parse((name == null || name.isBlank()) ? DEFAULT : name.trim());
	}

}
