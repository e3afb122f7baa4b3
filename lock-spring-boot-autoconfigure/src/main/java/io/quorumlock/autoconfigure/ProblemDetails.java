package io.quorumlock.autoconfigure;

/**
 * Settings of the problem details answered to HTTP callers for lock failures.
 */
public final class ProblemDetails {

	/**
	 * Whether the detail of a lock failure's problem detail is the library's whole
	 * message, naming each master's host, port, state and error, for internal APIs. By
	 * default it names the lock, the key and the reason category only, and the whole
	 * message goes to the server's log.
	 */
	private boolean verbose;

	public boolean isVerbose() {
		return this.verbose;
	}

	public void setVerbose(boolean verbose) {
		this.verbose = verbose;
	}

}
