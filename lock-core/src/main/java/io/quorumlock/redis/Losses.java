package io.quorumlock.redis;

import java.lang.System.Logger.Level;

import io.quorumlock.LeaseLostException;

/**
 * Declares a lease lost, once: it turns invalid at once, it leaves its local gates (the
 * next caller of this JVM competes for its keys, see {@link LocalGates}), the loss is
 * logged and the listeners are told.
 */
final class Losses {

	private static final System.Logger log = System.getLogger(Losses.class.getName());

	private final Listeners listener;

	private final LocalGates gates;

	Losses(Listeners listener, LocalGates gates) {
		this.listener = listener;
		this.gates = gates;
	}

	/**
	 * Mark a lease lost (once), as found by its renewal; returns the loss, for the caller
	 * to throw.
	 */
	LeaseLostException lose(RedisLease lease, String why) {
		return lose(lease, why, true);
	}

	/**
	 * Mark a lease lost (once); returns the loss, for the caller to throw.
	 * @param renewal whether the renewal (the watchdog) found it, rather than fencing, an
	 * explicit extension, a release or a re-entry: only then is it a renewal's outcome
	 */
	LeaseLostException lose(RedisLease lease, String why, boolean renewal) {
		LeaseLostException loss = new LeaseLostException(lease.request().describe() + ": lease lost, " + why, renewal);
		if (lease.markLost(loss)) {
			this.gates.of(lease.request()).lost(lease);
			lease.lostNow(loss);
			log.log(Level.WARNING, loss.getMessage());
			this.listener.onLost(lease.request().request(), lease, loss);
			return loss;
		}
		LeaseLostException earlier = lease.lost();
		return (earlier != null) ? earlier : loss;
	}

}
