package io.quorumlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One {@code redis-server} process started by {@link RedisServers} on a free 127.0.0.1
 * port, with a tiny RESP client ({@link #call(String...)}) for assertions and methods to
 * kill, pause, resume and restart it.
 * <p>
 * Lifecycle methods are synchronized (on the process they control);
 * {@link #call(String...)} is not, so one thread can kill or pause a node while others
 * talk to it. Processes are only ever signalled by the PID this class started.
 */
public final class RedisServer {

	private static final String HOST = Ports.HOST;

	private static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(2);

	private final String name;

	/** The {@code requirepass} of the server, or null for none. */
	private final String password;

	private final ServerProcess process;

	RedisServer(String name, Path binary, List<String> extraArgs, Duration startupTimeout, String password,
			RedisServers.Tls tls) {
		this.name = name;
		this.password = password;
		this.process = new ServerProcess(name,
				new ServerLaunch(name, binary, extraArgs, startupTimeout, password, tls));
	}

	/**
	 * The host the server listens on.
	 * @return always {@code 127.0.0.1}
	 */
	public String host() {
		return HOST;
	}

	/**
	 * The TCP port; it stays the same across {@link #kill()} and {@link #restart()}.
	 * @return the port
	 */
	public int port() {
		int current = this.process.port();
		if (current < 0) {
			throw new IllegalStateException(this.name + " has not been started");
		}
		return current;
	}

	/**
	 * A Lettuce-style URI for this server.
	 * @return e.g. {@code redis://127.0.0.1:6390}
	 */
	public String uri() {
		return "redis://" + HOST + ":" + port();
	}

	/**
	 * The TLS port, next to the plain-text port (which the fixture itself uses); it stays
	 * the same across {@link #kill()} and {@link #restart()}.
	 * @return the port
	 * @throws IllegalStateException if the servers were not built with
	 * {@link RedisServers.Builder#tls}
	 */
	public int tlsPort() {
		int current = this.process.tlsPort();
		if (current < 0) {
			throw new IllegalStateException(this.name + " has no TLS port: build the servers with tls(...)");
		}
		return current;
	}

	/**
	 * A Lettuce-style URI for the TLS port of this server.
	 * @return e.g. {@code rediss://127.0.0.1:6391}
	 */
	public String tlsUri() {
		return "rediss://" + HOST + ":" + tlsPort();
	}

	/**
	 * The PID of the current (or, after {@link #kill()}, the last) process.
	 * @return the operating system process id
	 */
	public long pid() {
		Process current = this.process.process();
		if (current == null) {
			throw new IllegalStateException(this.name + " has not been started");
		}
		return current.pid();
	}

	/**
	 * Whether the process is alive (a paused process is still running).
	 * @return {@code true} unless never started, killed or stopped
	 */
	public boolean isRunning() {
		return this.process.isRunning();
	}

	/**
	 * Whether the process has been suspended with {@link #pause()} and not resumed.
	 * @return {@code true} while paused
	 */
	public boolean isPaused() {
		return this.process.isPaused();
	}

	/**
	 * Kill the process with SIGKILL and wait until it is gone. The port and temp dir are
	 * kept for {@link #restart()}.
	 */
	public void kill() {
		this.process.kill();
	}

	/**
	 * Suspend the process with SIGSTOP: connections are still accepted by the kernel, but
	 * nothing is answered.
	 */
	public void pause() {
		this.process.pause();
	}

	/**
	 * Resume a process suspended by {@link #pause()} with SIGCONT; a no-op when it is not
	 * paused.
	 */
	public void resume() {
		this.process.resume();
	}

	/**
	 * Kill the process if it is running, then start a new, empty one on the same port and
	 * wait until it answers PING.
	 */
	public void restart() {
		this.process.restart(port());
	}

	/**
	 * Kill the process and delete its temp directory. {@link #restart()} may bring it
	 * back on the same port.
	 */
	public void stop() {
		this.process.stop();
	}

	/**
	 * Send one command on a fresh connection with a 2 s timeout.
	 * @param args the command and its arguments, e.g. {@code "SET", "k", "v"}
	 * @return {@code String} for simple/bulk strings, {@code Long} for integers,
	 * {@code List<Object>} for arrays, {@code null} for nil
	 * @throws RedisErrorReply for an error reply
	 * @throws UncheckedIOException if the connection is refused or the reply times out
	 * (see its cause)
	 */
	public Object call(String... args) {
		return call(DEFAULT_CALL_TIMEOUT, args);
	}

	/**
	 * Send one command on a fresh connection with the given connect and read timeout.
	 * @param timeout connect and read timeout
	 * @param args the command and its arguments
	 * @return the reply, as for {@link #call(String...)}
	 * @throws RedisErrorReply for an error reply
	 * @throws UncheckedIOException if the connection is refused or the reply times out
	 * (see its cause)
	 */
	public Object call(Duration timeout, String... args) {
		int target = port();
		try {
			return Resp.callAuthenticated(HOST, target, timeout, this.password, args);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(this.name + " (" + HOST + ":" + target + ") " + args[0] + " failed: " + ex,
					ex);
		}
	}

	/**
	 * Whether {@code key} exists.
	 * @param key the key
	 * @return {@code EXISTS key == 1}
	 */
	public boolean exists(String key) {
		return ((Long) call("EXISTS", key)) == 1L;
	}

	/**
	 * The string value of {@code key}.
	 * @param key the key
	 * @return the value, or {@code null} if absent
	 */
	public String get(String key) {
		return (String) call("GET", key);
	}

	/**
	 * The remaining time to live of {@code key} in milliseconds.
	 * @param key the key
	 * @return the TTL, {@code -1} if the key has no expiry, {@code -2} if it does not
	 * exist
	 */
	public long pttl(String key) {
		return (Long) call("PTTL", key);
	}

	/**
	 * Delete every key in every database.
	 */
	public void flushAll() {
		call("FLUSHALL");
	}

	@Override
	public String toString() {
		return this.name + "[" + HOST + ":" + this.process.port()
				+ (isRunning() ? (isPaused() ? ", paused" : "") : ", down") + "]";
	}

	// ---- package-private lifecycle used by RedisServers ----

	/**
	 * First start on a free port, retrying when another process takes it first; with a
	 * free companion port {@code port + companionOffset} claimed with it (the cluster bus
	 * a Redis Cluster node opens at port + 10000), 0 for none.
	 */
	void startOnFreePort(int companionOffset) {
		this.process.startOnFreePort(companionOffset);
	}

	/**
	 * Bring the node back to a clean running state: restart if down, resume if paused,
	 * then FLUSHALL.
	 */
	void reset() {
		this.process.ensureRunning(port());
		flushAll();
	}

	/** The temp directory of the current process, {@code null} after {@link #stop()}. */
	Path directory() {
		return this.process.directory().path();
	}

}
