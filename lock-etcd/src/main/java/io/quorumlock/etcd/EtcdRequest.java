package io.quorumlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.etcd.jetcd.ByteSequence;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;

/**
 * A request with its options resolved and its etcd key layout: the lock key of each key
 * ({@code <prefix><name>:{<key>}}, as the Redis engine names it), the range of its
 * waiters ({@code <lock key>} and a NUL byte) and this hold's own key in it
 * ({@code <range><etcd
 * lease id in hex>}). The NUL separator, which no lock key may contain, keeps one lock's
 * range from holding another's keys.
 */
final class EtcdRequest {

	static final char SEPARATOR = '\0';

	private final LockRequest request;

	private final Duration lease;

	private final Duration waitAtMost;

	private final boolean renew;

	private final Duration holdAtMost;

	private final Duration holdAtLeast;

	private final List<String> lockKeys;

	private final List<ByteSequence> ranges;

	EtcdRequest(LockRequest request, LockOptions resolved, String prefix) {
		this.request = request;
		this.lease = resolved.lease().orElseThrow();
		this.waitAtMost = resolved.waitAtMost().orElse(Duration.ZERO);
		this.renew = resolved.renew().orElse(Boolean.TRUE);
		this.holdAtMost = resolved.holdAtMost().orElse(null);
		this.holdAtLeast = resolved.holdAtLeast().orElse(Duration.ZERO);
		List<String> keys = new ArrayList<>(request.keys().size());
		List<ByteSequence> ranges = new ArrayList<>(request.keys().size());
		for (String key : request.keys()) {
			if (key.indexOf(SEPARATOR) >= 0 || request.name().indexOf(SEPARATOR) >= 0) {
				throw new LockKeyException("lock key '" + key.replace(SEPARATOR, '?')
						+ "': a NUL character cannot be part of a lock key or name on etcd (it separates a lock "
						+ "from its waiters)");
			}
			String lockKey = prefix + (request.name().isEmpty() ? "" : request.name() + ":") + "{" + key + "}";
			keys.add(lockKey);
			ranges.add(EtcdCalls.bytes(lockKey + SEPARATOR));
		}
		this.lockKeys = List.copyOf(keys);
		this.ranges = List.copyOf(ranges);
	}

	LockRequest request() {
		return this.request;
	}

	Duration lease() {
		return this.lease;
	}

	Duration waitAtMost() {
		return this.waitAtMost;
	}

	boolean renew() {
		return this.renew;
	}

	/** The bound on renewal, or null for none. */
	Duration holdAtMost() {
		return this.holdAtMost;
	}

	Duration holdAtLeast() {
		return this.holdAtLeast;
	}

	/** The lock keys, in the request's (sorted) order. */
	List<String> lockKeys() {
		return this.lockKeys;
	}

	/** The waiters' range of each lock key. */
	List<ByteSequence> ranges() {
		return this.ranges;
	}

	/** This hold's own key in the range of lock key {@code index}. */
	ByteSequence ownKey(int index, long leaseId) {
		return EtcdCalls.bytes(this.lockKeys.get(index) + SEPARATOR + String.format("%016x", leaseId));
	}

	/** "lock 'name' key 'lock:name:{k}'", as the Redis engine words it. */
	String describe() {
		String label = this.request.label();
		return "lock " + ("unnamed".equals(label) ? "" : "'" + label + "' ") + "key "
				+ ((this.lockKeys.size() == 1) ? "'" + this.lockKeys.get(0) + "'" : this.lockKeys.toString());
	}

	boolean sameKeys(EtcdRequest other) {
		return this.lockKeys.equals(other.lockKeys);
	}

	boolean sharesKeysWith(EtcdRequest other) {
		return other.lockKeys.stream().anyMatch(this.lockKeys::contains);
	}

	boolean coversKeysOf(EtcdRequest other) {
		return this.lockKeys.containsAll(other.lockKeys);
	}

}
