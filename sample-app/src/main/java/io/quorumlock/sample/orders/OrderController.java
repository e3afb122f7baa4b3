package io.quorumlock.sample.orders;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Orders over HTTP.
 * <ul>
 * <li>{@code PUT /orders/{id}?amountCents=1250} creates an order (idempotent).</li>
 * <li>{@code POST /orders/{id}/pay} (also {@code /pay-async}, a
 * {@code CompletableFuture}, and {@code /pay-reactive}, a {@code Mono}) answers
 * {@code 200} with the payment when this request charged the order, and {@code 409}
 * "already paid" with the earlier payment in the {@code payment} property when it had
 * been paid before. So a client that retries a payment never charges twice and can still
 * tell which call did it.</li>
 * <li>{@code 423} when the order stayed locked by another request for the whole wait,
 * {@code 503} when no quorum of Redis masters answers (see
 * {@link io.quorumlock.sample.web.LockExceptionHandler}).</li>
 * </ul>
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

	private final OrderStore orders;

	private final PaymentService payments;

	/**
	 * Create the controller.
	 * @param orders the order store
	 * @param payments the payment service
	 */
	public OrderController(OrderStore orders, PaymentService payments) {
		this.orders = orders;
		this.payments = payments;
	}

	/**
	 * Create an order, or return the existing one.
	 * @param id the order id
	 * @param amountCents the amount, in cents
	 * @return the order
	 */
	@PutMapping("/{id}")
	public Order create(@PathVariable String id, @RequestParam(defaultValue = "1000") long amountCents) {
		if (id.length() > 64 || amountCents <= 0) {
			throw new IllegalArgumentException("order id must be at most 64 characters and amountCents positive, got '"
					+ id + "' and " + amountCents);
		}
		return this.orders.create(id, amountCents);
	}

	/**
	 * Read an order.
	 * @param id the order id
	 * @return the order
	 */
	@GetMapping("/{id}")
	public Order get(@PathVariable String id) {
		return this.orders.find(id).orElseThrow(() -> new OrderNotFoundException(id));
	}

	/**
	 * The payments of an order; more than one would be a double charge.
	 * @param id the order id
	 * @return the payments, oldest first
	 */
	@GetMapping("/{id}/payments")
	public List<Payment> payments(@PathVariable String id) {
		return this.orders.payments(id);
	}

	/**
	 * Pay an order.
	 * @param id the order id
	 * @return 200 and the new payment, or 409 and the earlier one
	 */
	@PostMapping("/{id}/pay")
	public ResponseEntity<Object> pay(@PathVariable String id) {
		return response(this.payments.pay(id));
	}

	/**
	 * Pay an order through the {@code CompletableFuture} variant.
	 * @param id the order id
	 * @return 200 and the new payment, or 409 and the earlier one
	 */
	@PostMapping("/{id}/pay-async")
	public CompletableFuture<ResponseEntity<Object>> payAsync(@PathVariable String id) {
		return this.payments.payAsync(id).thenApply(OrderController::response);
	}

	/**
	 * Pay an order through the {@code Mono} variant.
	 * @param id the order id
	 * @return 200 and the new payment, or 409 and the earlier one
	 */
	@PostMapping("/{id}/pay-reactive")
	public Mono<ResponseEntity<Object>> payReactive(@PathVariable String id) {
		return this.payments.payReactive(id).map(OrderController::response);
	}

	private static ResponseEntity<Object> response(PaymentOutcome outcome) {
		if (outcome instanceof PaymentOutcome.AlreadyPaid already) {
			ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "order '"
					+ already.payment().orderId() + "' was already paid by payment " + already.payment().id());
			problem.setTitle("already paid");
			problem.setProperty("payment", already.payment());
			return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
		}
		return ResponseEntity.ok(outcome.payment());
	}

}
