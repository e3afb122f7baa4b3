package io.quorumlock.actuate;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quorumlock.LeaseLostException;
import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;

/**
 * Micrometer meters for distributed locks, fed as a {@link LockListener}. The
 * {@code lock} tag is the request's label (the lock name, else
 * {@code SimpleClassName.method}), never an evaluated key, so cardinality stays bounded
 * by the code.
 * <ul>
 * <li>{@code distributed.lock.wait} — timer with a percentile histogram and service-level
 * buckets from 1 ms to 5 s; tags {@code lock}, {@code outcome} = acquired, timeout,
 * quorum_unavailable or error, {@code mode} = exclusive, shared or permit (Prometheus:
 * {@code distributed_lock_wait_seconds_bucket}).</li>
 * <li>{@code distributed.lock.failures} — counter; tags {@code lock}, {@code reason} =
 * timeout, quorum_unavailable or error.</li>
 * <li>{@code distributed.lock.held} — timer of hold durations; tag {@code lock}.</li>
 * <li>{@code distributed.lock.active} — gauge of leases this instance holds.</li>
 * <li>{@code distributed.lock.renewals} — counter; tag {@code outcome} = renewed or
 * lost.</li>
 * <li>{@code distributed.lock.lost} — counter of leases lost before release; tag
 * {@code lock}.</li>
 * <li>{@code distributed.lock.node.errors} — counter; tag {@code node} = host:port.</li>
 * </ul>
 * The per-master state and answers ({@code distributed.lock.node.state},
 * {@code distributed.lock.node.answers}) are {@link NodeMetrics}'.
 */
public class LockMetrics implements LockListener {

	/** Timer of the time from a request to its grant or failure. */
	public static final String WAIT = "distributed.lock.wait";

	/** Counter of failed acquisitions, by reason. */
	public static final String FAILURES = "distributed.lock.failures";

	/** Timer of hold durations. */
	public static final String HELD = "distributed.lock.held";

	/** Gauge of the leases this instance holds. */
	public static final String ACTIVE = "distributed.lock.active";

	/** Counter of renewals, by outcome. */
	public static final String RENEWALS = "distributed.lock.renewals";

	/** Counter of calls skipped because the lock was held elsewhere. */
	public static final String SKIPPED = "distributed.lock.skipped";

	/** Counter of leases lost before their release. */
	public static final String LOST = "distributed.lock.lost";

	/** Counter of failed or timed-out commands per node. */
	public static final String NODE_ERRORS = "distributed.lock.node.errors";

	/** Outcome of a granted acquisition (tag {@code outcome}). */
	public static final String ACQUIRED = "acquired";

	/**
	 * Outcome of an acquisition refused by contention or whose wait ran out (tags
	 * {@code outcome} and {@code reason}); the acquisition observation uses the same
	 * word.
	 */
	public static final String TIMEOUT = "timeout";

	/**
	 * Outcome of an acquisition refused by contention whose caller skips its work (tag
	 * {@code outcome}; {@link LockRequest#skipping()}); the acquisition observation uses
	 * the same word.
	 */
	public static final String SKIP = "skipped";

	/**
	 * Outcome of an acquisition that lacked a quorum (tags {@code outcome} and
	 * {@code reason}).
	 */
	public static final String QUORUM_UNAVAILABLE = "quorum_unavailable";

	/**
	 * Outcome of an acquisition that failed otherwise (tags {@code outcome} and
	 * {@code reason}).
	 */
	public static final String ERROR = "error";

	/**
	 * Service-level buckets of the wait histogram, as the operations page describes them.
	 */
	static final Duration[] WAIT_BUCKETS = { Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10),
			Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
			Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5) };

	private final MeterRegistry registry;

	private final AtomicInteger active = new AtomicInteger();

	/** Meters per label; labels are few (one per annotated method or name). */
	private final ConcurrentHashMap<String, Meters> byLock = new ConcurrentHashMap<>();

	private final Counter renewed;

	private final Counter renewalsLost;

	/**
	 * Create the meters in {@code registry}.
	 * @param registry the meter registry
	 */
	public LockMetrics(MeterRegistry registry) {
		this.registry = registry;
		Gauge.builder(ACTIVE, this.active, AtomicInteger::get)
			.description("Leases held by this instance")
			.register(registry);
		this.renewed = renewals("renewed");
		this.renewalsLost = renewals("lost");
	}

	private Counter renewals(String outcome) {
		return Counter.builder(RENEWALS)
			.description("Lease renewals by outcome")
			.tag("outcome", outcome)
			.register(this.registry);
	}

	private Meters meters(LockRequest request) {
		String mode = mode(request);
		return this.byLock.computeIfAbsent(request.label() + '\u0000' + mode,
				(labelAndMode) -> new Meters(this.registry, request.label(), mode));
	}

	/**
	 * The {@code mode} tag: {@code exclusive}, {@code shared} or {@code permit}
	 * (bounded).
	 */
	static String mode(LockRequest request) {
		if (request.permits() > 1) {
			return "permit";
		}
		return (request.mode() == LockMode.SHARED) ? "shared" : "exclusive";
	}

	@Override
	public void onAcquired(LockRequest request, Lease lease, Duration waited) {
		this.active.incrementAndGet();
		meters(request).acquired.record(waited);
	}

	@Override
	public void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
		Meters meters = meters(request);
		if (failure instanceof LockNotAcquiredException && request.skipping()) {
			meters.skip.record(waited);
			meters.skips.increment();
		}
		else if (failure instanceof LockNotAcquiredException) {
			meters.timeout.record(waited);
			meters.timeouts.increment();
		}
		else if (failure instanceof QuorumUnavailableException) {
			meters.quorumUnavailable.record(waited);
			meters.quorumUnavailables.increment();
		}
		else {
			meters.error.record(waited);
			meters.errors.increment();
		}
	}

	@Override
	public void onReleased(LockRequest request, Lease lease, Duration held) {
		this.active.decrementAndGet();
		meters(request).held.record(held);
	}

	@Override
	public void onRenewed(LockRequest request, Lease lease) {
		this.renewed.increment();
	}

	@Override
	public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
		if (cause.foundByRenewal()) {
			this.renewalsLost.increment();
		}
		meters(request).lost.increment();
	}

	@Override
	public void onNodeError(String node, Throwable error) {
		Counter.builder(NODE_ERRORS)
			.description("Failed or timed-out commands per Redis node")
			.tag("node", node)
			.register(this.registry)
			.increment();
	}

	/** The meters of one lock label. */
	private static final class Meters {

		final Timer acquired;

		final Timer timeout;

		final Timer quorumUnavailable;

		final Timer error;

		final Timer skip;

		final Counter skips;

		final Counter timeouts;

		final Counter quorumUnavailables;

		final Counter errors;

		final Timer held;

		final Counter lost;

		Meters(MeterRegistry registry, String lock, String mode) {
			this.acquired = wait(registry, lock, ACQUIRED, mode);
			this.timeout = wait(registry, lock, TIMEOUT, mode);
			this.quorumUnavailable = wait(registry, lock, QUORUM_UNAVAILABLE, mode);
			this.error = wait(registry, lock, ERROR, mode);
			this.skip = wait(registry, lock, SKIP, mode);
			this.skips = Counter.builder(SKIPPED)
				.description("Calls skipped because the lock was held elsewhere")
				.tag("lock", lock)
				.register(registry);
			this.timeouts = failures(registry, lock, TIMEOUT);
			this.quorumUnavailables = failures(registry, lock, QUORUM_UNAVAILABLE);
			this.errors = failures(registry, lock, ERROR);
			this.held = Timer.builder(HELD)
				.description("How long leases were held")
				.tag("lock", lock)
				.register(registry);
			this.lost = Counter.builder(LOST)
				.description("Leases lost before release")
				.tag("lock", lock)
				.register(registry);
		}

		private static Timer wait(MeterRegistry registry, String lock, String outcome, String mode) {
			return Timer.builder(WAIT)
				.description("Time from the request to the grant or the failure")
				.tag("lock", lock)
				.tag("outcome", outcome)
				.tag("mode", mode)
				.publishPercentileHistogram()
				.serviceLevelObjectives(WAIT_BUCKETS)
				.minimumExpectedValue(Duration.ofMillis(1))
				.maximumExpectedValue(Duration.ofSeconds(5))
				.register(registry);
		}

		private static Counter failures(MeterRegistry registry, String lock, String reason) {
			return Counter.builder(FAILURES)
				.description("Acquisitions that failed, by reason")
				.tag("lock", lock)
				.tag("reason", reason)
				.register(registry);
		}

	}

}
