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

	/** The mark of a permit hold's key, after the separator. */
	static final String PERMIT = "p";

	private final int permits;

	private final LockRequest request;

	private final Duration lease;

	private final Duration waitAtMost;

	private final boolean renew;

	private final Duration holdAtMost;

	private final Duration holdAtLeast;

	private final List<String> lockKeys;

	private final List<ByteSequence> ranges;

	/** Per lock key, the range of the keys that block this request. */
	private final List<Blockers> blockers;

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
		List<Blockers> blockers = new ArrayList<>(request.keys().size());
		this.shared = request.mode() == LockMode.SHARED;
		this.permits = request.permits();
		for (String key : request.keys()) {
			if (key.indexOf(SEPARATOR) >= 0 || request.name().indexOf(SEPARATOR) >= 0) {
				throw new LockKeyException("lock key '" + key.replace(SEPARATOR, '?')
						+ "': a NUL character cannot be part of a lock key or name on etcd (it separates a lock "
						+ "from its waiters)");
			}
			String lockKey = prefix + (request.name().isEmpty() ? "" : request.name() + ":") + "{" + key + "}";
			keys.add(lockKey);
			ranges.add(EtcdCalls.bytes(lockKey + SEPARATOR));
			blockers.add(blockersOf(lockKey));
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
	 * The keys that block this request on each lock key, and how many of them may be
	 * older than its own: for an exclusive request, no older exclusive or shared key; for
	 * a shared one, no older exclusive key; for one of k permits, fewer than k older
	 * permit keys (permit holds keep to their own keys, as the Redis engine's permit
	 * slots do).
	 */
	List<Blockers> blockers() {
		return this.blockers;
	}

	/**
	 * The keys of every shared or exclusive hold of lock key {@code index}, waiters'
	 * included: where there is any, the oldest of them holds (or does the moment it
	 * re-checks).
	 */
	Blockers holds(int index) {
		String range = this.lockKeys.get(index) + SEPARATOR;
		return new Blockers(EtcdCalls.bytes(range + SHARED), EtcdCalls.bytes(range + next(EXCLUSIVE)), 1);
	}

	private Blockers blockersOf(String lockKey) {
		String range = lockKey + SEPARATOR;
		if (this.permits > 1) {
			return new Blockers(EtcdCalls.bytes(range + PERMIT), EtcdCalls.bytes(range + next(PERMIT)), this.permits);
		}
		if (this.shared) {
			return new Blockers(EtcdCalls.bytes(range + EXCLUSIVE), EtcdCalls.bytes(range + next(EXCLUSIVE)), 1);
		}
		// shared and exclusive keys: from "s" up to and including every key marked "x"
		return new Blockers(EtcdCalls.bytes(range + SHARED), EtcdCalls.bytes(range + next(EXCLUSIVE)), 1);
	}

	private static String next(String mark) {
		return String.valueOf((char) (mark.charAt(0) + 1));
	}

	int permits() {
		return this.permits;
	}

	boolean shared() {
		return this.shared;
	}

	/**
	 * This hold's own key in the range of lock key {@code index}: the mark of its mode
	 * and its etcd lease id in hex.
	 */
	ByteSequence ownKey(int index, long leaseId) {
		String mark = (this.permits > 1) ? PERMIT : this.shared ? SHARED : EXCLUSIVE;
		return EtcdCalls.bytes(this.lockKeys.get(index) + SEPARATOR + mark + String.format("%016x", leaseId));
	}

	/** "lock 'name' key 'lock:name:{k}'", as the Redis engine words it. */
	String describe() {
		String label = this.request.label();
		return "lock " + ("unnamed".equals(label) ? "" : "'" + label + "' ") + "key "
				+ ((this.lockKeys.size() == 1) ? "'" + this.lockKeys.get(0) + "'" : this.lockKeys.toString())
				+ (this.shared ? " (shared)" : "") + ((this.permits > 1) ? " (" + this.permits + " permits)" : "");
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

	/**
	 * A range of keys {@code [start, end)} of which fewer than {@code limit} may be older
	 * than a request's own key for it to hold.
	 */
	record Blockers(ByteSequence start, ByteSequence end, int limit) {
	}

}
