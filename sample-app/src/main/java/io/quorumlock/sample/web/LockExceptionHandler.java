package io.quorumlock.sample.web;

import java.util.NoSuchElementException;

import io.quorumlock.LockKeyException;
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
 * Maps domain failures to HTTP answers (RFC 9457 problem details), with the exception's
 * message as the detail. Lock failures need nothing here: the starter answers them by
 * default ({@code io.quorumlock.web.LockProblemDetails}: {@code 423} with
 * {@code Retry-After: 1} when the lock stayed held, {@code 503} with {@code Retry-After}
 * when no quorum of masters votes, {@code 500} naming the lock when a lease was lost); a
 * handler here for those exceptions would win over the starter's.
 * <ul>
 * <li>{@link StaleFencingTokenException}: {@code 409} — the store refused a late
 * write;</li>
 * <li>{@link LockKeyException} and bad arguments: {@code 400}; unknown order or SKU:
 * {@code 404}; short stock: {@code 409}.</li>
 * </ul>
 */
@RestControllerAdvice
public class LockExceptionHandler {

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
