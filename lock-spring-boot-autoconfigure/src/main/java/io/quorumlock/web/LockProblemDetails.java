package io.quorumlock.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

import io.quorumlock.LeaseLostException;
import io.quorumlock.LockException;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.aop.LockKeyExpressionException;

/**
 * Default HTTP answers for lock failures, as problem details (RFC 9457), for Spring MVC
 * and WebFlux alike:
 * <ul>
 * <li>{@link LockNotAcquiredException}: {@code 423 Locked} with {@code Retry-After: 1}:
 * the lock stayed held elsewhere for the whole wait;</li>
 * <li>{@link QuorumUnavailableException}: {@code 503 Service Unavailable} with
 * {@code Retry-After}: the time until enough masters held back by the restart guard vote
 * again when that is what is missing, else 1 second;</li>
 * <li>{@link LeaseLostException}: {@code 500} naming the lock: the work may have
 * overlapped with another holder;</li>
 * <li>{@link LockKeyException}: {@code 400 Bad Request} naming the lock and, for a
 * {@code @DistributedLock} method, the key expression and what it gave (a key that
 * evaluates to null or empty comes from the request: a missing field is the caller's
 * mistake); the method did not run. A key expression that fails whatever the request (a
 * property no argument type has) is a mistake in the code: {@code 500}, naming the lock
 * only.</li>
 * </ul>
 * Callers see no more than they need: by default the {@code detail} names the lock, the
 * key and the outcome with its reason category ({@code held elsewhere}, {@code no quorum:
 * masters not connected}, {@code no quorum: held back by the restart guard}), never a
 * master's host, port, state or error. The operator gets the full story: the library's
 * whole message is logged (423 and 400 at INFO, 503 and 500 at WARN), at most one line
 * per lock and status per minute, with the number of answers like it that were not
 * logged; the {@code locks} actuator endpoint keeps the last one of each lock. With
 * {@code verbose} ({@code quorumlock.problem-details.verbose=true}, for internal APIs)
 * the detail is the whole message.
 * <p>
 * At the lowest precedence, so an {@code @ExceptionHandler} in a controller or in the
 * application's own {@code @ControllerAdvice} wins; defining a bean of this type replaces
 * it.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockProblemDetails {

	/** How long the log keeps quiet about one lock and status after a line. */
	public static final Duration LOG_INTERVAL = Duration.ofMinutes(1);

	/**
	 * Most locks and statuses whose last line is remembered before the log forgets all.
	 */
	private static final int LOG_KEYS = 1000;

	private static final Log logger = LogFactory.getLog(LockProblemDetails.class);

	private final RegistryStatus status;

	private final boolean verbose;

	private final LongSupplier nanoClock;

	/** Per lock and status: when its last line was logged and how many were not. */
	private final Map<String, Window> logged = new ConcurrentHashMap<>();

	/**
	 * Create the handlers with a detail for callers that names no master.
	 * @param status the registry's status view, for {@code Retry-After} and the reason
	 * category; may be null
	 */
	public LockProblemDetails(RegistryStatus status) {
		this(status, false);
	}

	/**
	 * Create the handlers.
	 * @param status the registry's status view, for {@code Retry-After} and the reason
	 * category; may be null
	 * @param verbose whether the detail is the library's whole message, naming each
	 * master's host, port, state and error (for internal APIs); else the lock, the key
	 * and the reason category only
	 */
	public LockProblemDetails(RegistryStatus status, boolean verbose) {
		this(status, verbose, System::nanoTime);
	}

	LockProblemDetails(RegistryStatus status, boolean verbose, LongSupplier nanoClock) {
		this.status = status;
		this.verbose = verbose;
		this.nanoClock = nanoClock;
	}

	/**
	 * {@code 423 Locked}, {@code Retry-After: 1}.
	 * @param ex the failure
	 * @return the answer
	 */
	@ExceptionHandler(LockNotAcquiredException.class)
	public ResponseEntity<ProblemDetail> lockNotAcquired(LockNotAcquiredException ex) {
		return problem(HttpStatus.LOCKED, "Lock not acquired", ex, 1);
	}

	/**
	 * {@code 503 Service Unavailable} with {@code Retry-After}.
	 * @param ex the failure
	 * @return the answer
	 */
	@ExceptionHandler(QuorumUnavailableException.class)
	public ResponseEntity<ProblemDetail> quorumUnavailable(QuorumUnavailableException ex) {
		return problem(HttpStatus.SERVICE_UNAVAILABLE, "Lock quorum unavailable", ex, retryAfterSeconds());
	}

	/**
	 * {@code 500 Internal Server Error} naming the lock.
	 * @param ex the failure
	 * @return the answer
	 */
	@ExceptionHandler(LeaseLostException.class)
	public ResponseEntity<ProblemDetail> leaseLost(LeaseLostException ex) {
		return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Lock lease lost", ex, 0);
	}

	/**
	 * {@code 400 Bad Request} naming the lock and the key expression, or {@code 500} when
	 * the expression itself failed.
	 * @param ex the failure
	 * @return the answer
	 */
	@ExceptionHandler(LockKeyException.class)
	public ResponseEntity<ProblemDetail> lockKey(LockKeyException ex) {
		if (ex instanceof LockKeyExpressionException expression) {
			String lock = "lock '" + expression.getLock() + "'";
			if (!expression.isFromArguments()) {
				return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Lock key not evaluated", lock, ex,
						lock + ": the key expression could not be evaluated", 0);
			}
			return problem(HttpStatus.BAD_REQUEST, "Lock key unusable", lock, ex,
					lock + ": key \"" + expression.getExpression() + "\" " + expression.getProblem()
							+ "; nothing was locked and nothing was done",
					0);
		}
		String message = (ex.getMessage() != null) ? ex.getMessage() : "lock key unusable";
		int hint = message.indexOf(" (quorumlock.");
		return problem(HttpStatus.BAD_REQUEST, "Lock key unusable", CallerDetail.lockName(ex), ex,
				(hint > 0) ? message.substring(0, hint) : message, 0);
	}

	/**
	 * Seconds until a quorum may vote again: when masters held back by the restart guard
	 * are what is missing, until enough of them are released; else 1.
	 */
	long retryAfterSeconds() {
		if (this.status == null) {
			return 1;
		}
		try {
			List<RegistryStatus.Node> nodes = this.status.nodes();
			long voting = nodes.stream().filter(RegistryStatus.Node::countsTowardQuorum).count();
			long missing = this.status.quorum() - voting;
			List<Duration> held = nodes.stream()
				.filter((node) -> node.up() && !node.voting() && node.heldBackFor().compareTo(Duration.ZERO) > 0)
				.map(RegistryStatus.Node::heldBackFor)
				.sorted()
				.toList();
			if (missing <= 0 || held.size() < missing) {
				return 1;
			}
			long millis = held.get((int) missing - 1).toMillis();
			return Math.max(1, (millis + 999) / 1000);
		}
		catch (RuntimeException ex) {
			return 1;
		}
	}

	private ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, LockException ex,
			long retryAfterSeconds) {
		return problem(status, title, CallerDetail.lockName(ex), ex, CallerDetail.of(ex, this.status),
				retryAfterSeconds);
	}

	private ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, String lock, LockException ex,
			String callerDetail, long retryAfterSeconds) {
		log(status, lock, ex);
		String detail = this.verbose ? ex.getMessage() : callerDetail;
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(title);
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
		if (retryAfterSeconds > 0) {
			response.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
		}
		return response.body(problem);
	}

	/**
	 * The whole message for the operator: at most one line per lock and status per
	 * {@link #LOG_INTERVAL}, counting the answers not logged.
	 */
	private void log(HttpStatus status, String lock, LockException ex) {
		boolean warn = status != HttpStatus.LOCKED && status != HttpStatus.BAD_REQUEST;
		if (!(warn ? logger.isWarnEnabled() : logger.isInfoEnabled())) {
			return;
		}
		long now = this.nanoClock.getAsLong();
		if (this.logged.size() > LOG_KEYS) {
			// lock names come from code: only a runaway name gets here
			this.logged.clear();
		}
		long[] quiet = { -1 };
		this.logged.compute(lock + '\u0000' + status.value(), (key, window) -> {
			if (window != null && now - window.since < LOG_INTERVAL.toNanos()) {
				window.unlogged.incrementAndGet();
				return window;
			}
			quiet[0] = (window != null) ? window.unlogged.get() : 0;
			return new Window(now);
		});
		if (quiet[0] < 0) {
			return;
		}
		String line = "quorumlock: answered " + status.value() + " " + status.getReasonPhrase() + ": " + ex.getMessage()
				+ ((quiet[0] > 0) ? " (" + quiet[0] + " more like it since the line before, not logged)" : "");
		if (warn) {
			logger.warn(line);
		}
		else {
			logger.info(line);
		}
	}

	/** One lock and status: when its last line was logged, and answers since. */
	private static final class Window {

		final long since;

		final AtomicLong unlogged = new AtomicLong();

		Window(long since) {
			this.since = since;
		}

	}

}
