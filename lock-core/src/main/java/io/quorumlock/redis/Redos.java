package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The compare-and-delete commands (releases, undos) a node failed without a reply from
 * Redis (rejected while disconnected, or lost with the connection), sent again once the
 * node is back: the SET they undo may have landed before the drop. Each is dropped once
 * the lease it undoes is over, so the queue only ever holds what could still be alive.
 */
final class Redos {

	/** A command to send again until {@code until} (nanoTime). */
	record Redo(Script script, String key, String[] args, long until) {
	}

	private final ConcurrentLinkedQueue<Redo> queue = new ConcurrentLinkedQueue<>();

	private final Function<Redo, CompletableFuture<Long>> send;

	private final LongSupplier nanoClock;

	private final Executor executor;

	private final BooleanSupplier connected;

	private final BooleanSupplier closed;

	/**
	 * @param send sends a command once
	 * @param nanoClock the engine's clock
	 * @param executor where a redo is started when no reconnect will come to start it
	 * @param connected whether the node is connected now
	 * @param closed whether the node is closed
	 */
	Redos(Function<Redo, CompletableFuture<Long>> send, LongSupplier nanoClock, Executor executor,
			BooleanSupplier connected, BooleanSupplier closed) {
		this.send = send;
		this.nanoClock = nanoClock;
		this.executor = executor;
		this.connected = connected;
		this.closed = closed;
	}

	/**
	 * Send an idempotent, token-checked script (a compare-and-delete); if it fails
	 * without a reply from Redis, send it again once the node is connected, for as long
	 * as {@code aliveNanos} from now (the lease the command undoes).
	 */
	CompletableFuture<Long> send(Script script, long aliveNanos, String key, String... args) {
		return send(new Redo(script, key, args, this.nanoClock.getAsLong() + aliveNanos));
	}

	private CompletableFuture<Long> send(Redo command) {
		CompletableFuture<Long> reply = this.send.apply(command);
		reply.whenComplete((value, error) -> {
			if (Futures.withoutReply(error) && !this.closed.getAsBoolean()) {
				this.queue.add(command);
				if (this.connected.getAsBoolean()) {
					// back already (or never gone: a command timeout): no reconnect will
					// come to send it
					this.executor.execute(this::redoPending);
				}
			}
		});
		return reply;
	}

	/**
	 * Send the pending commands again, dropping those whose lease is over; called on
	 * every reconnect and by the engine's periodic check.
	 */
	void redoPending() {
		if (this.queue.isEmpty() || !this.connected.getAsBoolean() || this.closed.getAsBoolean()) {
			return;
		}
		long now = this.nanoClock.getAsLong();
		for (int n = this.queue.size(); n > 0; n--) {
			Redo command = this.queue.poll();
			if (command == null) {
				return;
			}
			if (command.until() - now > 0) {
				send(command);
			}
		}
	}

	/** Commands waiting to be sent again. */
	int pending() {
		return this.queue.size();
	}

}
