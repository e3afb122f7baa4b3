package io.quorumlock.testing;

/**
 * A Redis error reply (a RESP {@code -ERR ...} line) returned by
 * {@link RedisServer#call(String...)}.
 */
public class RedisErrorReply extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception for the given error line (without the leading {@code -}).
	 * @param message the error text sent by the server, e.g. {@code ERR unknown command}
	 */
	public RedisErrorReply(String message) {
		super(message);
	}

	/**
	 * The first word of the error, e.g. {@code ERR}, {@code WRONGTYPE} or
	 * {@code NOSCRIPT}.
	 * @return the error prefix
	 */
	public String prefix() {
		String message = getMessage();
		int space = message.indexOf(' ');
		return (space < 0) ? message : message.substring(0, space);
	}

}
