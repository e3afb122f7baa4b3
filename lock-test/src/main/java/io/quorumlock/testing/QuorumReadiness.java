package io.quorumlock.testing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.quorumlock.RegistryStatus;

/**
 * Waits until a registry sees a quorum of voting masters again, for a test that killed,
 * paused or restarted masters (or whose masters the extension restarted before it) and
 * wants its next call to meet a registry that has reconnected, rather than spend that
 * call's wait on the reconnect:
 *
 * <pre class="code">
 * masters.node(1).restart();
 * QuorumReadiness.await(status, Duration.ofSeconds(10));
 * </pre>
 *
 * Pass the registry's {@link RegistryStatus}: the engine itself, or in a Spring Boot
 * application the {@code RegistryStatus} bean (with Actuator the injected
 * {@code DistributedLockRegistry} is an observed wrapper that reports no status).
 */
public final class QuorumReadiness {

	/** How often the status is read while waiting. */
	private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private QuorumReadiness() {
	}

	/**
	 * Wait until a registry's status shows a quorum of masters voting.
	 * @param status the registry's status (in a Spring Boot application, the
	 * {@link RegistryStatus} bean)
	 * @param atMost how long to wait
	 * @throws AssertionError if no quorum votes within {@code atMost}, naming each
	 * master's state
	 */
	public static void await(RegistryStatus status, Duration atMost) {
		long deadline = System.nanoTime() + atMost.toNanos();
		while (!status.quorumAvailable()) {
			if (System.nanoTime() - deadline >= 0) {
				StringBuilder nodes = new StringBuilder();
				for (RegistryStatus.Node node : status.nodes()) {
					nodes.append((nodes.length() == 0) ? "" : "; ")
						.append(node.address())
						.append(": ")
						.append(node.state().tag())
						.append((node.lastError() != null) ? " (" + node.lastError() + ")" : "");
				}
				throw new AssertionError(
						"no quorum of " + status.quorum() + " voting within " + atMost.toMillis() + " ms: " + nodes);
			}
			LockSupport.parkNanos(POLL_NANOS);
			if (Thread.interrupted()) {
				Thread.currentThread().interrupt();
				throw new AssertionError("interrupted while waiting for a quorum");
			}
		}
	}

}
