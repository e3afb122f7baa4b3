package io.quorumlock.web;

import java.time.Duration;
import java.util.List;

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
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;

/**
 * Default HTTP answers for lock failures, as problem details (RFC 9457) with the
 * library's message as the detail, for Spring MVC and WebFlux alike:
 * <ul>
 * <li>{@link LockNotAcquiredException}: {@code 423 Locked} with {@code Retry-After: 1}:
 * the lock stayed held elsewhere for the whole wait;</li>
 * <li>{@link QuorumUnavailableException}: {@code 503 Service Unavailable} with
 * {@code Retry-After}: the time until enough masters held back by the restart guard vote
 * again when that is what is missing, else 1 second;</li>
 * <li>{@link LeaseLostException}: {@code 500} naming the lock: the work may have
 * overlapped with another holder.</li>
 * </ul>
 * At the lowest precedence, so an {@code @ExceptionHandler} in a controller or in the
 * application's own {@code @ControllerAdvice} wins; defining a bean of this type replaces
 * it.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockProblemDetails {

	private final RegistryStatus status;

	/**
	 * Create the handlers.
	 * @param status the registry's status view, for {@code Retry-After}; may be null
	 */
	public LockProblemDetails(RegistryStatus status) {
		this.status = status;
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

	private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, LockException ex,
			long retryAfterSeconds) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
		problem.setTitle(title);
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
		if (retryAfterSeconds > 0) {
			response.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
		}
		return response.body(problem);
	}

}
