package io.quorumlock.autoconfigure;

import org.springframework.context.ApplicationEventPublisher;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;

/**
 * Bridges {@link LockListener#onLost} to a {@link LeaseLostEvent}.
 */
final class LeaseLostEventPublisher implements LockListener {

	private final ApplicationEventPublisher publisher;

	LeaseLostEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
		this.publisher.publishEvent(new LeaseLostEvent(lease, request, cause));
	}

}
