package io.quorumlock.sample.web;

import java.util.NoSuchElementException;

import io.quorumlock.LeaseLostException;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.sample.orders.OrderNotFoundException;
import io.quorumlock.sample.orders.StaleFencingTokenException;
import io.quorumlock.sample.stock.InsufficientStockException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Maps lock and domain failures to HTTP answers (RFC 9457 problem details), with the
 * library's own message as the detail:
 * <ul>
 * <li>{@link LockNotAcquiredException}: {@code 423 Locked}, {@code Retry-After: 1} — the
 * key stayed held elsewhere for the whole wait;</li>
 * <li>{@link QuorumUnavailableException}: {@code 503}, {@code Retry-After: 5} — fewer
 * than a quorum of masters answered; thrown at once, without waiting;</li>
 * <li>{@link LeaseLostException}: {@code 500} — the lease ran out while the work
 * ran;</li>
 * <li>{@link StaleFencingTokenException}: {@code 409} — the store refused a late
 * write;</li>
 * <li>{@link LockKeyException} and bad arguments: {@code 400}; unknown order or SKU:
 * {@code 404}; short stock: {@code 409}.</li>
 * </ul>
 */
@RestControllerAdvice
public class LockExceptionHandler {

	@ExceptionHandler(LockNotAcquiredException.class)
	ResponseEntity<ProblemDetail> locked(LockNotAcquiredException ex) {
		return problem(HttpStatus.LOCKED, "locked by another request", ex, "1");
	}

	@ExceptionHandler(QuorumUnavailableException.class)
	ResponseEntity<ProblemDetail> quorumUnavailable(QuorumUnavailableException ex) {
		return problem(HttpStatus.SERVICE_UNAVAILABLE, "lock quorum unavailable", ex, "5");
	}

	@ExceptionHandler(LeaseLostException.class)
	ResponseEntity<ProblemDetail> leaseLost(LeaseLostException ex) {
		return problem(HttpStatus.INTERNAL_SERVER_ERROR, "lock lease lost", ex, null);
	}

	@ExceptionHandler(StaleFencingTokenException.class)
	ResponseEntity<ProblemDetail> staleToken(StaleFencingTokenException ex) {
		return problem(HttpStatus.CONFLICT, "stale fencing token", ex, null);
	}

	@ExceptionHandler(InsufficientStockException.class)
	ResponseEntity<ProblemDetail> insufficientStock(InsufficientStockException ex) {
		return problem(HttpStatus.CONFLICT, "insufficient stock", ex, null);
	}

	@ExceptionHandler({ OrderNotFoundException.class, NoSuchElementException.class })
	ResponseEntity<ProblemDetail> notFound(RuntimeException ex) {
		return problem(HttpStatus.NOT_FOUND, "not found", ex, null);
	}

	@ExceptionHandler({ LockKeyException.class, IllegalArgumentException.class })
	ResponseEntity<ProblemDetail> badRequest(RuntimeException ex) {
		return problem(HttpStatus.BAD_REQUEST, "bad request", ex, null);
	}

	private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, Exception ex,
			String retryAfter) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
		problem.setTitle(title);
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
		if (retryAfter != null) {
			response.header(HttpHeaders.RETRY_AFTER, retryAfter);
		}
		return response.body(problem);
	}

}
