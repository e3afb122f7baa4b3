package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import io.quorumlock.redis.node.Script;

/**
 * Releases sent to a master that stopped answering (SIGSTOP) but whose connection stays
 * open: each times out on the client, yet waits on the connection, and the server runs it
 * once it reads again. Sending a copy on every timeout would pile copies on the stalled
 * master's connection (each timing out and being copied again), costing the healthy
 * quorum CPU and the stalled master a burst of stale work when it resumes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StalledMasterRedoIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@Test
	void releasesTimedOutOnAStalledMasterAreNotCopied() throws Exception {
		RedisServer stalled = redis.node(2);
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(50)) // Lettuce's own timeout: 1 s
			.rejoinDelay(Duration.ZERO)
			.defaults(LockOptions.none().lease(Duration.ofSeconds(30)))
			.build()) {
			String prefix = "k" + UUID.randomUUID();
			engine.acquire(LockRequest.of(prefix + "-warm")).release(); // scripts loaded
																		// everywhere
			long before = scriptCalls(stalled);
			stalled.pause();
			int releases = 0;
			int attempts = 0;
			try {
				// for several of Lettuce's 1 s timeouts, so that the first releases time
				// out while later ones are still being sent
				long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3500);
				for (int i = 0; System.nanoTime() - until < 0; i++) {
					attempts++;
					try {
						engine.acquire(LockRequest.of(prefix + "-" + i)).release();
						releases++;
					}
					catch (QuorumUnavailableException slow) {
						// a loaded machine: a healthy master answered late; its release
						// (the undo) is not counted, so the bound below only loosens
					}
				}
			}
			finally {
				stalled.resume();
			}
			int sent = releases;
			int tried = attempts;
			// each attempt sent the stalled master one grant script, and a release or an
			// undo: 2 scripts an attempt, none copied
			int scripts = 2 * attempts;
			// once resumed, the stalled master runs what waited on its connection
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(scriptCalls(stalled) - before)
					.as("scripts run on the resumed master for %d releases (%s)", sent, engine.nodes().get(2))
					.isGreaterThanOrEqualTo(tried + sent));
			// a little slack for a release whose connection the stall made Lettuce drop
			assertThat(scriptCalls(stalled) - before)
				.as("scripts run on the stalled master for %d attempts, %d releases", attempts, sent)
				.isLessThanOrEqualTo(scripts + scripts / 10 + 5);
			assertThat(engine.nodes().get(2).up()).isTrue();
		}
	}

	/** Script calls (EVALSHA and EVAL) the server has run. */
	private static long scriptCalls(RedisServer server) {
		String stats = (String) server.call("INFO", "commandstats");
		long calls = 0;
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				int from = line.indexOf(":calls=") + ":calls=".length();
				calls += Long.parseLong(line.substring(from, line.indexOf(',', from)));
			}
		}
		return calls;
	}

}
