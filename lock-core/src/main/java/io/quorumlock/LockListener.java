package io.quorumlock;

import java.time.Duration;

/**
 * Observes what a registry does, for metrics, tracing and logs. Every method has a no-op
 * default. Listeners are called on the thread that caused the event, which may be a Redis
 * I/O thread: they must be quick and must not block. A listener that throws is logged and
 * ignored, so it can never stop a release.
 */
public interface LockListener {

	/**
	 * A lease was granted.
	 * @param request the request
	 * @param lease the lease
	 * @param waited time from the call to the grant
	 */
	default void onAcquired(LockRequest request, Lease lease, Duration waited) {
	}

	/**
	 * A request failed: contention, timeout, quorum unavailable or an error.
	 * @param request the request
	 * @param waited time from the call to the failure
	 * @param failure why it failed
	 */
	default void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
	}

	/**
	 * A lease was released.
	 * @param request the request it was granted for
	 * @param lease the lease
	 * @param held time from the grant to the release
	 */
	default void onReleased(LockRequest request, Lease lease, Duration held) {
	}

	/**
	 * A lease was extended on a quorum.
	 * @param request the request it was granted for
	 * @param lease the lease
	 */
	default void onRenewed(LockRequest request, Lease lease) {
	}

	/**
	 * A lease was lost: it expired or its renewal missed the quorum before release.
	 * @param request the request it was granted for
	 * @param lease the lease
	 * @param cause the loss, as the exception a release would report
	 */
	default void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
	}

	/**
	 * A command to one node failed or timed out.
	 * @param node the node's address as {@code host:port}, never with credentials
	 * @param error the failure
	 */
	default void onNodeError(String node, Throwable error) {
	}

}
