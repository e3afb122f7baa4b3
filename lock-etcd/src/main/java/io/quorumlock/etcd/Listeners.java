package io.quorumlock.etcd;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;

/**
 * The registry's listeners, each called safely: a listener that throws is logged and
 * ignored, so it can never stop a release.
 */
final class Listeners {

	private static final System.Logger logger = System.getLogger(Listeners.class.getName());

	private final List<LockListener> listeners;

	Listeners(List<LockListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	void acquired(LockRequest request, Lease lease, Duration waited) {
		emit((listener) -> listener.onAcquired(request, lease, waited));
	}

	void notAcquired(LockRequest request, Duration waited, Throwable failure) {
		emit((listener) -> listener.onNotAcquired(request, waited, failure));
	}

	void released(LockRequest request, Lease lease, Duration held) {
		emit((listener) -> listener.onReleased(request, lease, held));
	}

	void renewed(LockRequest request, Lease lease) {
		emit((listener) -> listener.onRenewed(request, lease));
	}

	void lost(LockRequest request, Lease lease, LeaseLostException cause) {
		logger.log(System.Logger.Level.WARNING, cause.getMessage());
		emit((listener) -> listener.onLost(request, lease, cause));
	}

	void nodeError(String node, Throwable error) {
		emit((listener) -> listener.onNodeError(node, error));
	}

	private void emit(Consumer<LockListener> event) {
		for (LockListener listener : this.listeners) {
			try {
				event.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.log(System.Logger.Level.WARNING, "lock listener " + listener + " failed", ex);
			}
		}
	}

}
