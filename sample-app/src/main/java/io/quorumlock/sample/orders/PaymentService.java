package io.quorumlock.sample.orders;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.Lease;
import io.quorumlock.sample.ProcessingDelay;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * Pays orders, at most once each, across every instance of the service.
 * <p>
 * The business logic reads the order, calls the (slow) payment provider and then writes
 * the payment. Without a lock two concurrent requests would both read {@code NEW} and
 * both charge. Under {@code @DistributedLock(key = "#id", name = "orders")} the second
 * request waits (up to {@code quorumlock.instances.orders.wait-at-most}, 5 s in
 * {@code application.yml}) and then reads {@code PAID}: it answers with the earlier
 * payment and charges nothing. The write carries the lease's fencing token, so a holder
 * whose lease expired mid-call cannot overwrite a later holder's write.
 */
@Service
public class PaymentService {

	private final OrderStore orders;

	private final ProcessingDelay provider;

	private final Executor executor;

	/**
	 * Create the service.
	 * @param orders the order store
	 * @param provider the simulated payment provider call
	 * @param executor Spring Boot's task executor, for the {@code CompletableFuture}
	 * variant
	 */
	public PaymentService(OrderStore orders, ProcessingDelay provider,
			@Qualifier("applicationTaskExecutor") Executor executor) {
		this.orders = orders;
		this.provider = provider;
		this.executor = executor;
	}

	/**
	 * Pay an order, blocking.
	 * @param id the order id
	 * @return what happened
	 */
	@DistributedLock(key = "#id", name = "orders", lease = "30s")
	public PaymentOutcome pay(String id) {
		return charge(id, () -> CurrentLease.get().orElseThrow().fencingToken());
	}

	/**
	 * Pay an order asynchronously: the lock is held until the returned future completes.
	 * @param id the order id
	 * @return what happened, when it happened
	 */
	@DistributedLock(key = "#id", name = "orders", lease = "30s")
	public CompletableFuture<PaymentOutcome> payAsync(String id) {
		// CurrentLease is bound only while this method runs: take the lease now
		Lease lease = CurrentLease.get().orElseThrow();
		return CompletableFuture.supplyAsync(() -> charge(id, lease::fencingToken), this.executor);
	}

	/**
	 * Pay an order reactively: the lock is taken on subscription and held until the
	 * {@code Mono} completes.
	 * @param id the order id
	 * @return what happened, on subscription
	 */
	@DistributedLock(key = "#id", name = "orders", lease = "30s")
	public Mono<PaymentOutcome> payReactive(String id) {
		// This runs on the thread that granted the lease, possibly
		// a Redis I/O thread: only assemble here. The JDBC work and
		// the blocking fencing-token call run on boundedElastic.
		Lease lease = CurrentLease.get().orElseThrow();
		return Mono.fromCallable(() -> charge(id, lease::fencingToken)).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Read, call the provider, write: correct only while the caller holds the order's
	 * lock.
	 */
	private PaymentOutcome charge(String id, LongSupplier fencingToken) {
		Order order = this.orders.find(id).orElseThrow(() -> new OrderNotFoundException(id));
		if (order.paid()) {
			List<Payment> earlier = this.orders.payments(id);
			return new PaymentOutcome.AlreadyPaid(earlier.get(0));
		}
		this.provider.simulate(id);
		// taken just before the write, as late as possible
		long token = fencingToken.getAsLong();
		return new PaymentOutcome.Charged(this.orders.recordPayment(id, order.amountCents(), token));
	}

}
