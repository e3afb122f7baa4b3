package io.quorumlock.redis.node;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;

/**
 * How a node's answers fail, in Lettuce's terms, once: the failure inside the wrappers,
 * whether a command may not have run, and what went wrong in Redis's own words.
 */
public final class Replies {

	private Replies() {
	}

	/**
	 * The server's error reply to one element of a script's answer (the script caught it
	 * with {@code redis.pcall}), as the error the same reply to a command would be.
	 */
	public static Throwable refused(String reply) {
		return new RedisCommandExecutionException(reply);
	}

	/**
	 * The failure inside any {@link CompletionException} or {@link ExecutionException}.
	 */
	public static Throwable unwrap(Throwable error) {
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
	public static boolean withoutReply(Throwable error) {
		return error != null && !(unwrap(error) instanceof RedisCommandExecutionException);
	}

	/**
	 * Whether a script was refused with NOSCRIPT: the server forgot it, it did not run.
	 */
	public static boolean isNoScript(Throwable error) {
		Throwable t = (error != null) ? unwrap(error) : null;
		return t instanceof RedisNoScriptException || (t instanceof RedisCommandExecutionException
				&& t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"));
	}

	/**
	 * Whether a command may not have run: it failed without a reply, or with NOSCRIPT.
	 */
	public static boolean mayNotHaveRun(Throwable error) {
		return withoutReply(error) || isNoScript(error);
	}

	/**
	 * What went wrong, in Redis's own words where there are any: Lettuce wraps a refused
	 * handshake ({@code NOAUTH}, {@code WRONGPASS}) in "Unable to connect", so the
	 * innermost error reply is preferred. Never contains a password: neither Lettuce nor
	 * Redis repeats one.
	 */
	public static String reason(Throwable error) {
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
