package io.quorumlock.redis;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.node.Replies;

/**
 * The await-and-rethrow rules, once: how a caller's thread waits for the engine's
 * futures, keeps or restores its interrupt, and sees a failure (the same type, with the
 * caller's stack and the original as cause). How a node's failure is unwrapped and told
 * in Redis's own words is {@code Replies}.
 */
final class Futures {

	private Futures() {
	}

	/**
	 * Wait for {@code future} through interrupts (the flag is restored after) and return
	 * its value, or throw its failure for the caller.
	 */
	static <T> T await(Future<T> future) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException ex) {
					throw forCaller(Replies.unwrap(ex.getCause()));
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Wait for {@code future} and return its value, or throw its failure for the caller.
	 * @throws InterruptedException if the thread is interrupted while waiting (the flag
	 * is then clear)
	 */
	static <T> T awaitInterruptibly(Future<T> future) throws InterruptedException {
		try {
			return future.get();
		}
		catch (ExecutionException ex) {
			throw forCaller(Replies.unwrap(ex.getCause()));
		}
	}

	/**
	 * An engine failure rethrown on the caller's thread, as the same type with the
	 * caller's stack trace and the original as cause.
	 */
	static RuntimeException forCaller(Throwable failure) {
		RuntimeException copy = null;
		if (failure instanceof QuorumUnavailableException) {
			copy = new QuorumUnavailableException(failure.getMessage());
		}
		else if (failure instanceof LockNotAcquiredException) {
			copy = new LockNotAcquiredException(failure.getMessage());
		}
		else if (failure instanceof LeaseLostException) {
			copy = new LeaseLostException(failure.getMessage());
		}
		else if (failure instanceof RuntimeException ex) {
			return ex;
		}
		if (copy == null) {
			return new UndeclaredThrowableException(failure);
		}
		copy.initCause(failure);
		return copy;
	}

}
