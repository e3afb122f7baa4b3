package io.quorumlock.redis;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;

/**
 * The await-and-rethrow rules, once: how a caller's thread waits for the engine's
 * futures, keeps or restores its interrupt, and sees a failure (the same type, with the
 * caller's stack and the original as cause); and how a failure is unwrapped and told in
 * Redis's own words.
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
					throw forCaller(unwrap(ex.getCause()));
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
			throw forCaller(unwrap(ex.getCause()));
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

	/**
	 * The failure inside any {@link CompletionException} or {@link ExecutionException}.
	 */
	static Throwable unwrap(Throwable error) {
		Throwable t = error;
		while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
			t = t.getCause();
		}
		return t;
	}

	/**
	 * Whether a command failed without a reply from Redis (rejected while disconnected,
	 * lost with the connection, timed out), so that it may not have run, or may have run
	 * unanswered; an error reply ({@link RedisCommandExecutionException}) is an answer.
	 */
	static boolean withoutReply(Throwable error) {
		return error != null && !(unwrap(error) instanceof RedisCommandExecutionException);
	}

	/**
	 * Whether a script was refused with NOSCRIPT: the server forgot it, it did not run.
	 */
	static boolean isNoScript(Throwable error) {
		Throwable t = (error != null) ? unwrap(error) : null;
		return t instanceof RedisNoScriptException || (t instanceof RedisCommandExecutionException
				&& t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"));
	}

	/**
	 * Whether a command may not have run: it failed without a reply, or with NOSCRIPT.
	 */
	static boolean mayNotHaveRun(Throwable error) {
		return withoutReply(error) || isNoScript(error);
	}

	/**
	 * What went wrong, in Redis's own words where there are any: Lettuce wraps a refused
	 * handshake ({@code NOAUTH}, {@code WRONGPASS}) in "Unable to connect", so the
	 * innermost error reply is preferred. Never contains a password: neither Lettuce nor
	 * Redis repeats one.
	 */
	static String reason(Throwable error) {
		Throwable t = unwrap(error);
		for (Throwable cause = t; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null) {
				return cause.getMessage();
			}
		}
		Throwable root = t;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = (t.getMessage() != null) ? t.getMessage() : t.getClass().getSimpleName();
		if (root != t && root.getMessage() != null && !message.contains(root.getMessage())) {
			message += ": " + root.getMessage();
		}
		return message;
	}

}
