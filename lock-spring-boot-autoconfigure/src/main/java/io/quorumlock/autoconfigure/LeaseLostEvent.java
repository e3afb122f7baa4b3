package io.quorumlock.autoconfigure;

import java.util.List;

import org.springframework.context.ApplicationEvent;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockRequest;

/**
 * Published the moment a lease is found lost (it expired unrenewed, or renewal missed the
 * quorum) while it is still held, so that the application can stop or compensate work
 * that is no longer protected. Published on the engine's own thread: listeners must be
 * quick and must not block, or be {@code @Async}.
 */
public class LeaseLostEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient LockRequest request;

	private final LeaseLostException exception;

	/**
	 * Create a new event.
	 * @param lease the lease that was lost (the event source)
	 * @param request the request it was granted for
	 * @param exception the loss, as the exception a release reports
	 */
	public LeaseLostEvent(Lease lease, LockRequest request, LeaseLostException exception) {
		super(lease);
		this.request = request;
		this.exception = exception;
	}

	/**
	 * Lease that was lost.
	 * @return the lease
	 */
	public Lease getLease() {
		return (Lease) getSource();
	}

	/**
	 * Request the lease was granted for.
	 * @return the request
	 */
	public LockRequest getRequest() {
		return this.request;
	}

	/**
	 * Low-cardinality label of the lock: its name, else {@code SimpleClassName.method}
	 * for an annotated method.
	 * @return the label
	 */
	public String getLabel() {
		return this.request.label();
	}

	/**
	 * Keys the lease held.
	 * @return the keys
	 */
	public List<String> getKeys() {
		return this.request.keys();
	}

	/**
	 * The loss, naming the lock, the key and the figures.
	 * @return the exception
	 */
	public LeaseLostException getException() {
		return this.exception;
	}

}
