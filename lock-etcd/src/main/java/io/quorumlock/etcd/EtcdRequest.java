package io.quorumlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.etcd.jetcd.ByteSequence;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockMode;
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

	/** The mark of an exclusive hold's key, after the separator. */
	static final String EXCLUSIVE = "x";

	/** The mark of a shared hold's key, after the separator. */
	static final String SHARED = "s";

	private final LockRequest request;

	private final Duration lease;

	private final Duration waitAtMost;

	private final boolean renew;

	private final Duration holdAtMost;

	private final Duration holdAtLeast;

	private final List<String> lockKeys;

	private final List<ByteSequence> ranges;

	/** Per lock key, the range of the keys that block this request. */
	private final List<ByteSequence> blockers;

	private final boolean shared;

	EtcdRequest(LockRequest request, LockOptions resolved, String prefix) {
		this.request = request;
		this.lease = resolved.lease().orElseThrow();
		this.waitAtMost = resolved.waitAtMost().orElse(Duration.ZERO);
		this.renew = resolved.renew().orElse(Boolean.TRUE);
		this.holdAtMost = resolved.holdAtMost().orElse(null);
		this.holdAtLeast = resolved.holdAtLeast().orElse(Duration.ZERO);
		List<String> keys = new ArrayList<>(request.keys().size());
		List<ByteSequence> ranges = new ArrayList<>(request.keys().size());
		List<ByteSequence> blockers = new ArrayList<>(request.keys().size());
		this.shared = request.mode() == LockMode.SHARED;
		for (String key : request.keys()) {
			if (key.indexOf(SEPARATOR) >= 0 || request.name().indexOf(SEPARATOR) >= 0) {
				throw new LockKeyException("lock key '" + key.replace(SEPARATOR, '?')
						+ "': a NUL character cannot be part of a lock key or name on etcd (it separates a lock "
						+ "from its waiters)");
			}
			String lockKey = prefix + (request.name().isEmpty() ? "" : request.name() + ":") + "{" + key + "}";
			keys.add(lockKey);
			ranges.add(EtcdCalls.bytes(lockKey + SEPARATOR));
			// a shared request waits for older exclusive keys only; an exclusive one for
			// every
			// older key
			blockers.add(EtcdCalls.bytes(lockKey + SEPARATOR + (this.shared ? EXCLUSIVE : "")));
		}
		this.lockKeys = List.copyOf(keys);
		this.ranges = List.copyOf(ranges);
		this.blockers = List.copyOf(blockers);
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

	/**
	 * The range of the keys that block this request on each lock key: every key of the
	 * lock for an exclusive request, its exclusive keys for a shared one.
	 */
	List<ByteSequence> blockers() {
		return this.blockers;
	}

	boolean shared() {
		return this.shared;
	}

	/**
	 * This hold's own key in the range of lock key {@code index}: the mark of its mode
	 * and its etcd lease id in hex.
	 */
	ByteSequence ownKey(int index, long leaseId) {
		return EtcdCalls.bytes(this.lockKeys.get(index) + SEPARATOR + (this.shared ? SHARED : EXCLUSIVE)
				+ String.format("%016x", leaseId));
	}

	/** "lock 'name' key 'lock:name:{k}'", as the Redis engine words it. */
	String describe() {
		String label = this.request.label();
		return "lock " + ("unnamed".equals(label) ? "" : "'" + label + "' ") + "key "
				+ ((this.lockKeys.size() == 1) ? "'" + this.lockKeys.get(0) + "'" : this.lockKeys.toString())
				+ (this.shared ? " (shared)" : "");
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
