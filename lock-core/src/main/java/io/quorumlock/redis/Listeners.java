package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;

import io.quorumlock.LeaseLostException;
import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;

/**
 * The registry's listeners behind one, each call guarded: a listener that throws is
 * logged and skipped, so observability can never stop a grant or a release.
 */
final class Listeners implements LockListener {

	private static final System.Logger log = System.getLogger(Listeners.class.getName());

	private final List<LockListener> listeners;

	Listeners(List<LockListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	private void each(String event, java.util.function.Consumer<LockListener> call) {
		for (LockListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (Throwable ex) {
				log.log(Level.WARNING, "LockListener " + listener.getClass().getName() + " failed on " + event, ex);
			}
		}
	}

	@Override
	public void onAcquired(LockRequest request, Lease lease, Duration waited) {
		each("onAcquired", (l) -> l.onAcquired(request, lease, waited));
	}

	@Override
	public void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
		each("onNotAcquired", (l) -> l.onNotAcquired(request, waited, failure));
	}

	@Override
	public void onReleased(LockRequest request, Lease lease, Duration held) {
		each("onReleased", (l) -> l.onReleased(request, lease, held));
	}

	@Override
	public void onRenewed(LockRequest request, Lease lease) {
		each("onRenewed", (l) -> l.onRenewed(request, lease));
	}

	@Override
	public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
		each("onLost", (l) -> l.onLost(request, lease, cause));
	}

	@Override
	public void onNodeError(String node, Throwable error) {
		each("onNodeError", (l) -> l.onNodeError(node, error));
	}

}
