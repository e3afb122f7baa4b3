package io.quorumlock;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What to lock and how: one key or several (locked in sorted order, all or nothing), an
 * optional logical name, and {@link LockOptions}. Immutable and self-validating: a bad
 * key or duration is refused when the request is built, with a message that quotes it.
 * <pre>{@code
 * LockRequest.of("order:42").lease(Duration.ofSeconds(30)).waitAtMost(Duration.ofSeconds(5)).renew(true)
 * LockRequest.of("nightly-report").lease(Duration.ofMinutes(5)).renew(false).holdAtLeast(Duration.ofSeconds(30))
 * LockRequest.of("catalog").mode(LockMode.SHARED)                 // a reader; writers use EXCLUSIVE
 * LockRequest.of("exports").permits(3)                              // at most 3 holders at once
 * }</pre> Without a name, {@code LockRequest.of(k)} is the same lock as an unnamed
 * {@code @DistributedLock} whose key evaluates to {@code k}.
 */
public final class LockRequest {

	private final List<String> keys;

	private final String name;

	private final String label;

	private final LockOptions options;

	private final LockMode mode;

	private final int permits;

	private final boolean skipping;

	private LockRequest(List<String> keys, String name, String label, LockOptions options) {
		this(keys, name, label, options, LockMode.EXCLUSIVE, 1, false);
	}

	private LockRequest(List<String> keys, String name, String label, LockOptions options, LockMode mode, int permits,
			boolean skipping) {
		LockRequestChecks.checkShape(keys, mode, permits);
		this.keys = keys;
		this.name = name;
		this.label = label;
		this.options = options;
		this.mode = mode;
		this.permits = permits;
		this.skipping = skipping;
	}

	/**
	 * A request for one key.
	 * @param key the key, not null or empty
	 * @return a new request
	 * @throws LockKeyException if the key is null or empty
	 */
	public static LockRequest of(String key) {
		return new LockRequest(List.of(LockRequestChecks.checkKey(key, "")), "", "", LockOptions.none());
	}

	/**
	 * A request for several keys, locked all or nothing in sorted order.
	 * @param keys the keys: at least one, none null, empty or repeated
	 * @return a new request
	 * @throws LockKeyException if the collection is empty or has a null, empty or
	 * repeated key
	 */
	public static LockRequest of(Collection<String> keys) {
		return new LockRequest(LockRequestChecks.sortedKeys(keys), "", "", LockOptions.none());
	}

	/**
	 * Return a copy with a logical name, which becomes part of the Redis key and selects
	 * per-name options ({@code quorumlock.instances.<name>}).
	 * @param name the name; empty for none; must not contain '{' or '}'
	 * @return a new request
	 */
	public LockRequest name(String name) {
		LockRequestChecks.checkName(name);
		return new LockRequest(this.keys, name, this.label, this.options, this.mode, this.permits, this.skipping);
	}

	/**
	 * Return a copy with a low-cardinality label for listeners and metrics (the
	 * {@code lock} tag). Defaults to the name. Never put an evaluated key here.
	 * @param label the label
	 * @return a new request
	 */
	public LockRequest label(String label) {
		Objects.requireNonNull(label, "'label' must not be null");
		return new LockRequest(this.keys, this.name, label, this.options, this.mode, this.permits, this.skipping);
	}

	/**
	 * Return a copy with the given options, replacing any set before.
	 * @param options the options
	 * @return a new request
	 */
	public LockRequest options(LockOptions options) {
		Objects.requireNonNull(options, "'options' must not be null");
		return new LockRequest(this.keys, this.name, this.label, options, this.mode, this.permits, this.skipping);
	}

	/**
	 * Return a copy with the given lease.
	 * @param lease a positive duration
	 * @return a new request
	 * @see LockOptions#lease(Duration)
	 */
	public LockRequest lease(Duration lease) {
		return options(this.options.lease(lease));
	}

	/**
	 * Return a copy with the given maximum wait.
	 * @param waitAtMost zero (try once) or more
	 * @return a new request
	 * @see LockOptions#waitAtMost(Duration)
	 */
	public LockRequest waitAtMost(Duration waitAtMost) {
		return options(this.options.waitAtMost(waitAtMost));
	}

	/**
	 * Return a copy that does or does not renew while held.
	 * @param renew whether to renew
	 * @return a new request
	 */
	public LockRequest renew(boolean renew) {
		return options(this.options.renew(renew));
	}

	/**
	 * Return a copy that stops renewing after the given time.
	 * @param holdAtMost a positive duration, not shorter than the lease
	 * @return a new request
	 */
	public LockRequest holdAtMost(Duration holdAtMost) {
		return options(this.options.holdAtMost(holdAtMost));
	}

	/**
	 * Return a copy that keeps the lock until this long after its acquisition began, even
	 * when released earlier (a {@code @Scheduled} job that must run once per tick across
	 * instances).
	 * @param holdAtLeast zero (release at once) or more; not longer than the lease unless
	 * the lock renews
	 * @return a new request
	 * @see LockOptions#holdAtLeast(Duration)
	 */
	public LockRequest holdAtLeast(Duration holdAtLeast) {
		return options(this.options.holdAtLeast(holdAtLeast));
	}

	/**
	 * Return a copy with the given mode: {@link LockMode#SHARED} holders of a key
	 * coexist, an {@link LockMode#EXCLUSIVE} holder (the default) excludes everyone.
	 * @param mode the mode
	 * @return a new request
	 * @throws IllegalArgumentException if the mode is {@code SHARED} and
	 * {@link #permits(int) permits} are above 1
	 */
	public LockRequest mode(LockMode mode) {
		return new LockRequest(this.keys, this.name, this.label, this.options, mode, this.permits, this.skipping);
	}

	/**
	 * Return a copy that lets at most {@code permits} holders in at once (a semaphore):
	 * {@code permits} exclusive slot locks of the key, of which each holder owns one. 1
	 * (the default) is a plain lock.
	 * @param permits 1 or more
	 * @return a new request
	 * @throws IllegalArgumentException if {@code permits} is below 1, or above 1 with
	 * mode {@code SHARED} or with several keys
	 */
	public LockRequest permits(int permits) {
		return new LockRequest(this.keys, this.name, this.label, this.options, this.mode, permits, this.skipping);
	}

	/**
	 * Return a copy that says whether the caller skips its work when the lock is held
	 * elsewhere, as a scheduled job does when another instance runs the tick
	 * ({@code @DistributedLock(onFailure = SKIP)}, ShedLock). Listeners then hear of such
	 * a refusal as a skip ({@link #skipping()}), which metrics count apart from failures;
	 * the lock itself behaves the same.
	 * @param skipping whether a refusal by contention is a skip
	 * @return a new request
	 */
	public LockRequest skipping(boolean skipping) {
		return new LockRequest(this.keys, this.name, this.label, this.options, this.mode, this.permits, skipping);
	}

	/**
	 * Whether the caller skips its work when the lock is held elsewhere: a
	 * {@link LockNotAcquiredException} for this request is then an expected skip, not a
	 * failure (a missing quorum or an error still is a failure).
	 * @return false unless set
	 */
	public boolean skipping() {
		return this.skipping;
	}

	/**
	 * The lock mode.
	 * @return {@link LockMode#EXCLUSIVE} unless set
	 */
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * The number of holders let in at once.
	 * @return 1 for a plain lock, else the permits
	 */
	public int permits() {
		return this.permits;
	}

	/**
	 * Keys to lock, sorted.
	 * @return an unmodifiable list with at least one key
	 */
	public List<String> keys() {
		return this.keys;
	}

	/**
	 * Logical name.
	 * @return the name, empty for none
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Label reported to listeners: the explicit label, else the name, else
	 * {@code "unnamed"}.
	 * @return a low-cardinality label
	 */
	public String label() {
		if (!this.label.isEmpty()) {
			return this.label;
		}
		return this.name.isEmpty() ? "unnamed" : this.name;
	}

	/**
	 * Options set on this request.
	 * @return the options
	 */
	public LockOptions options() {
		return this.options;
	}

	/**
	 * Lease set on this request.
	 * @return the lease, if set
	 */
	public Optional<Duration> lease() {
		return this.options.lease();
	}

	/**
	 * Maximum wait set on this request.
	 * @return the wait, if set
	 */
	public Optional<Duration> waitAtMost() {
		return this.options.waitAtMost();
	}

	@Override
	public boolean equals(Object other) {
		return (other instanceof LockRequest that) && this.keys.equals(that.keys) && this.name.equals(that.name)
				&& this.label.equals(that.label) && this.options.equals(that.options) && this.mode == that.mode
				&& this.permits == that.permits && this.skipping == that.skipping;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.keys, this.name, this.label, this.options, this.mode, this.permits, this.skipping);
	}

	@Override
	public String toString() {
		String mode = (this.mode == LockMode.SHARED) ? ", mode=SHARED"
				: (this.permits > 1) ? ", permits=" + this.permits : "";
		return "LockRequest[keys=" + this.keys + ", name=" + this.name + mode + ", " + this.options + "]";
	}

}
