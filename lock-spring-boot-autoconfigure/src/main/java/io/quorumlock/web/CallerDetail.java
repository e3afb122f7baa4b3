package io.quorumlock.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.quorumlock.LeaseLostException;
import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;

/**
 * What an API client is told about a lock failure: the lock, the key and the outcome with
 * its reason category ({@code held elsewhere}, {@code no quorum: masters not
 * connected}, {@code no quorum: held back by the restart guard}, ...), never a master's
 * host, port, state or error. Every {@link LockException} message opens with the lock and
 * the key ({@code lock 'orders' key 'lock:orders:{42}': ...}) and tells the masters'
 * story after them; the detail keeps that opening, up to the end of the key, and words
 * the rest as a category. A message of another shape keeps no opening at all.
 */
final class CallerDetail {

	private CallerDetail() {
	}

	/**
	 * The detail for a caller.
	 * @param ex the failure
	 * @param status the registry's status view, for the category when the message names
	 * none; may be null
	 */
	static String of(LockException ex, RegistryStatus status) {
		Subject subject = Subject.of(ex.getMessage());
		String story = (subject != null) ? ex.getMessage().substring(subject.text().length()) : ex.getMessage();
		String outcome;
		if (ex instanceof QuorumUnavailableException) {
			outcome = "not acquired, no quorum: " + quorumCategory(story, status);
		}
		else if (ex instanceof LockNotAcquiredException) {
			outcome = "not acquired, " + contentionCategory(story);
		}
		else if (ex instanceof LeaseLostException) {
			outcome = "lease lost before its release: the work may have overlapped with another holder";
		}
		else {
			outcome = "failed";
		}
		return (subject != null) ? subject.text() + ": " + outcome : outcome;
	}

	/** The lock's name for the server's log, or {@code unnamed}. */
	static String lockName(LockException ex) {
		Subject subject = Subject.of(ex.getMessage());
		return (subject != null && subject.name() != null) ? subject.name() : "unnamed";
	}

	private static String contentionCategory(String story) {
		String text = lower(story);
		if (text.contains("interrupted")) {
			return "the wait was interrupted";
		}
		if (text.contains("registry was closed")) {
			return "the application is shutting down";
		}
		if (text.contains("validity")) {
			return "the masters answered too slowly to leave the lease any validity";
		}
		return "held elsewhere";
	}

	/**
	 * Why no quorum formed, in categories: from the message, else from the status now.
	 */
	private static String quorumCategory(String story, RegistryStatus status) {
		String text = lower(story);
		List<String> categories = new ArrayList<>();
		add(categories, text.contains("not connected"), "masters not connected");
		add(categories, text.contains("restart guard"), "held back by the restart guard");
		add(categories, text.contains("evicting"), "masters that can evict lock keys");
		add(categories, text.contains("same redis server"), "a master listed twice");
		add(categories,
				text.contains("not loaded") || text.contains("until its state") || text.contains("until its run_id"),
				"masters still starting");
		add(categories, text.contains("no answer"), "masters did not answer in time");
		if (categories.isEmpty() && status != null) {
			fromStatus(categories, status);
		}
		return categories.isEmpty() ? "too few masters answered" : String.join(", ", categories);
	}

	private static void fromStatus(List<String> categories, RegistryStatus status) {
		try {
			for (RegistryStatus.Node node : status.nodes()) {
				switch (node.state()) {
					case DOWN -> add(categories, true, "masters not connected");
					case HELD_BACK -> add(categories, true,
							node.heldBackFor().isZero() ? "masters still starting" : "held back by the restart guard");
					case EVICTING -> add(categories, true, "masters that can evict lock keys");
					case SAME_SERVER -> add(categories, true, "a master listed twice");
					default -> {
					}
				}
			}
		}
		catch (RuntimeException ex) {
			// the category is a courtesy: without the status, the default says enough
		}
	}

	private static void add(List<String> categories, boolean when, String category) {
		if (when && !categories.contains(category)) {
			categories.add(category);
		}
	}

	private static String lower(String text) {
		return (text != null) ? text.toLowerCase(Locale.ROOT) : "";
	}

	/**
	 * The opening of a message: {@code lock 'name' key 'k'}, {@code lock key [k1, k2]},
	 * perhaps followed by {@code (shared)}, up to the colon after it.
	 *
	 * @param text the opening, as written in the message
	 * @param name the lock's name, or null when the message names none
	 */
	record Subject(String text, String name) {

		static Subject of(String message) {
			if (message == null || !message.startsWith("lock ")) {
				return null;
			}
			int at = "lock ".length();
			String name = null;
			if (message.startsWith("'", at)) {
				int end = message.indexOf("' key ", at + 1);
				if (end < 0) {
					return null;
				}
				name = message.substring(at + 1, end);
				at = end + 2;
			}
			if (!message.startsWith("key ", at)) {
				return null;
			}
			at += "key ".length();
			String close = message.startsWith("'", at) ? "'" : message.startsWith("[", at) ? "]" : null;
			if (close == null) {
				return null;
			}
			// the first close followed by the end of the opening: a key holding that
			// sequence is cut short, never run past
			for (int end = message.indexOf(close, at + 1); end >= 0; end = message.indexOf(close, end + 1)) {
				int after = end + 1;
				if (message.startsWith(": ", after) || after == message.length()) {
					return new Subject(message.substring(0, after), name);
				}
				if (message.startsWith(" (shared): ", after)) {
					return new Subject(message.substring(0, after + " (shared)".length()), name);
				}
			}
			return null;
		}

	}

}
