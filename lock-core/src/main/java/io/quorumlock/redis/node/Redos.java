package io.quorumlock.redis.node;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;

import io.lettuce.core.RedisCommandTimeoutException;

/**
 * The compare-and-delete commands (releases, undos), and the compare-and-{@code PEXPIRE}
 * of a release within {@code holdAtLeast}, a node failed without a reply from Redis
 * (rejected while disconnected, or lost with the connection), sent again once the node is
 * back: the SET they end may have landed before the drop. Each is dropped once the lease
 * it undoes is over, so the queues only ever hold what could still be alive.
 * <p>
 * A command that timed out on a connection that is still the one it was sent on is not
 * lost: it waits on that connection, in order, and the server runs it when it reads it (a
 * paused or overloaded server). It is sent again only once that connection is gone (a new
 * epoch), never while it lasts: resending on every timeout flooded a stalled master with
 * copies, each of which timed out and was sent again in turn.
 */
public final class Redos {

	/**
	 * A command to send again until {@code until} (nanoTime); {@code sentIn} is the
	 * connection epoch its last copy was sent in. The callback of that copy's reply (one
	 * object per copy sent, no callback object besides).
	 */
	final class Redo implements BiConsumer<Long, Throwable> {

		private final Script script;

		private final String[] keys;

		private final String[] args;

		private final long until;

		private final long sentIn;

		Redo(Script script, String[] keys, String[] args, long until, long sentIn) {
			this.script = script;
			this.keys = keys;
			this.args = args;
			this.until = until;
			this.sentIn = sentIn;
		}

		Script script() {
			return this.script;
		}

		/** The first key: the lock key. */
		String key() {
			return this.keys[0];
		}

		String[] keys() {
			return this.keys;
		}

		String[] args() {
			return this.args;
		}

		long until() {
			return this.until;
		}

		long sentIn() {
			return this.sentIn;
		}

		Redo sentIn(long epoch) {
			return (epoch == this.sentIn) ? this : new Redo(this.script, this.keys, this.args, this.until, epoch);
		}

		/** The reply to this copy. */
		@Override
		public void accept(Long value, Throwable error) {
			replied(this, error);
		}

	}

	/** The epoch of a command that is on no connection: no epoch is ever this. */
	private static final long NOT_ON_A_CONNECTION = Long.MIN_VALUE;

	/**
	 * Commands that timed out on the connection open when they were sent, in the order
	 * they timed out: they wait there while it lasts. All of them were sent in
	 * {@link #checkedEpoch} or later, so while that epoch lasts a pass has nothing to
	 * send from here and only drops, from the head, those whose lease is over: a stalled
	 * master can hold a lease's worth of releases here (every one sent while it stalls),
	 * and a pass that walked them all every second would stall the scheduler in turn.
	 */
	private final ConcurrentLinkedQueue<Redo> onConnection = new ConcurrentLinkedQueue<>();

	/** Commands to send again once connected: lost, refused, or their connection gone. */
	private final ConcurrentLinkedQueue<Redo> toSend = new ConcurrentLinkedQueue<>();

	/**
	 * The epoch of the last full pass over {@link #onConnection}; another epoch now means
	 * its connection is gone, and the next pass sends them all again.
	 */
	private volatile long checkedEpoch = NOT_ON_A_CONNECTION;

	private final Function<Redo, CompletableFuture<Long>> send;

	private final LongSupplier nanoClock;

	private final Executor executor;

	private final BooleanSupplier connected;

	private final BooleanSupplier closed;

	private final LongSupplier epoch;

	/**
	 * @param send sends a command once
	 * @param nanoClock the engine's clock
	 * @param executor where a redo is started when no reconnect will come to start it
	 * @param connected whether the node is connected now
	 * @param closed whether the node is closed
	 * @param epoch the node's connection epoch now ({@link Voter#epoch()})
	 */
	Redos(Function<Redo, CompletableFuture<Long>> send, LongSupplier nanoClock, Executor executor,
			BooleanSupplier connected, BooleanSupplier closed, LongSupplier epoch) {
		this.send = send;
		this.nanoClock = nanoClock;
		this.executor = executor;
		this.connected = connected;
		this.closed = closed;
		this.epoch = epoch;
	}

	/**
	 * Send an idempotent, token-checked script (a compare-and-delete); if it fails
	 * without a reply from Redis, send it again once the node is connected, for as long
	 * as {@code aliveNanos} from now (the lease the command undoes).
	 */
	CompletableFuture<Long> send(Script script, long aliveNanos, String key, String... args) {
		return send(script, aliveNanos, new String[] { key }, args);
	}

	/** {@link #send(Script, long, String, String...)} of a script with several keys. */
	CompletableFuture<Long> send(Script script, long aliveNanos, String[] keys, String... args) {
		// made in the current epoch: no second copy to tag it
		return send(new Redo(script, keys, args, this.nanoClock.getAsLong() + aliveNanos, this.epoch.getAsLong()));
	}

	private CompletableFuture<Long> send(Redo redo) {
		// before sending: the copy waits on this connection for as long as it lasts
		Redo command = redo.sentIn(this.epoch.getAsLong());
		CompletableFuture<Long> reply = this.send.apply(command);
		reply.whenComplete(command);
		return reply;
	}

	private void replied(Redo command, Throwable error) {
		if (!Replies.mayNotHaveRun(error) || this.closed.getAsBoolean()) {
			return;
		}
		// only a timeout leaves the command on the connection; any other failure without
		// a reply (refused while disconnected, lost with the connection, a NOSCRIPT)
		// means it may never have reached Redis, or did not run there
		if (Replies.unwrap(error) instanceof RedisCommandTimeoutException && waitsOnTheConnection(command)) {
			this.onConnection.add(command);
			if (waitsOnTheConnection(command)) {
				return;
			}
			// the connection changed while it was added: the next pass looks at all
			this.checkedEpoch = NOT_ON_A_CONNECTION;
		}
		else {
			this.toSend.add(command.sentIn(NOT_ON_A_CONNECTION));
		}
		if (this.connected.getAsBoolean()) {
			// reconnected already: no reconnect will come to send it
			this.executor.execute(this::redoPending);
		}
	}

	/**
	 * Whether the last copy of the command may still reach the server: the connection it
	 * was sent on is still open (it timed out there, the server has not read it yet).
	 */
	private boolean waitsOnTheConnection(Redo command) {
		return command.sentIn() == this.epoch.getAsLong() && this.connected.getAsBoolean();
	}

	/**
	 * Send the pending commands again, dropping those whose lease is over; called on
	 * every reconnect and by the engine's periodic check.
	 */
	void redoPending() {
		if (!this.connected.getAsBoolean() || this.closed.getAsBoolean()) {
			return;
		}
		long now = this.nanoClock.getAsLong();
		long current = this.epoch.getAsLong();
		if (current != this.checkedEpoch) {
			// a new connection: what waited on the old one may never reach Redis
			this.checkedEpoch = current;
			for (int n = this.onConnection.size(); n > 0; n--) {
				Redo command = this.onConnection.poll();
				if (command == null) {
					break;
				}
				if (command.until() - now <= 0) {
					continue; // the key it deletes has expired on its own
				}
				if (command.sentIn() == current) {
					this.onConnection.add(command); // timed out on this very connection
				}
				else {
					this.toSend.add(command);
				}
			}
		}
		else {
			// the same connection: drop from the head what has expired on its own
			for (Redo head = this.onConnection.peek(); head != null
					&& head.until() - now <= 0; head = this.onConnection.peek()) {
				this.onConnection.poll(); // passes run one at a time: the head is ours
			}
		}
		for (int n = this.toSend.size(); n > 0; n--) {
			Redo command = this.toSend.poll();
			if (command == null) {
				return;
			}
			if (command.until() - now > 0) {
				send(command); // else the key it deletes has expired on its own
			}
		}
	}

	/** Commands waiting to be sent again, or waiting on their connection. */
	int pending() {
		return this.onConnection.size() + this.toSend.size();
	}

}
