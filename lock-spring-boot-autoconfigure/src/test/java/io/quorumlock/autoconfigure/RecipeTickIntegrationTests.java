package io.quorumlock.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisServers;

/**
 * Every tick fired at once on three instances runs once with the documented
 * {@code @Scheduled} + {@code @DistributedLock(onFailure = SKIP)} recipe.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RecipeTickIntegrationTests extends SimultaneousTickIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	RecipeTickIntegrationTests() {
		super("recipe", "lock:jobs:{nightly-report}", RecipeConfiguration.class);
	}

	@Override
	RedisServers redis() {
		return redis;
	}

}
