package io.quorumlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One {@code redis-server} process started by {@link RedisServers} on a free 127.0.0.1
 * port, with a tiny RESP client ({@link #call(String...)}) for assertions and methods to
 * kill, pause, resume and restart it.
 * <p>
 * Lifecycle methods are synchronized on the instance; {@link #call(String...)} is not, so
 * one thread can kill or pause a node while others talk to it. Processes are only ever
 * signalled by the PID this class started.
 */
public final class RedisServer {

	private static final String HOST = "127.0.0.1";

	/**
	 * The port of a Redis that is not ours on developer machines; never used or touched.
	 */
	private static final int RESERVED_PORT = 6379;

	private static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration PROCESS_EXIT_TIMEOUT = Duration.ofSeconds(10);

	private static final int PORT_ATTEMPTS = 10;

	private static final int LOG_TAIL_LINES = 40;

	/**
	 * Servers of this JVM with a live process or temp dir, cleaned up by the shutdown
	 * hook.
	 */
	private static final Set<RedisServer> live = ConcurrentHashMap.newKeySet();

	/** Ports handed to servers of this JVM, so two servers never pick the same one. */
	private static final Set<Integer> claimedPorts = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(RedisServer::destroyAllOnShutdown, "quorumlock-redis-servers-shutdown"));
	}

	private final String name;

	private final Path binary;

	private final List<String> extraArgs;

	private final Duration startupTimeout;

	private volatile int port = -1;

	/** The {@code requirepass} of the server, or null for none. */
	private final String password;

	/** TLS files, or null for a plain-text-only server. */
	private final RedisServers.Tls tls;

	/** The TLS port, picked at the first start; -1 without TLS. */
	private volatile int tlsPort = -1;

	private volatile Process process;

	private volatile boolean paused;

	private volatile Path dir;

	/** Offset of a companion port claimed with the port (a cluster bus), 0 for none. */
	private volatile int companionOffset;

	/** Number of processes launched, to give each its own log files. */
	private volatile int launches;

	RedisServer(String name, Path binary, List<String> extraArgs, Duration startupTimeout, String password,
			RedisServers.Tls tls) {
		this.password = password;
		this.tls = tls;
		this.name = name;
		this.binary = binary;
		this.extraArgs = List.copyOf(extraArgs);
		this.startupTimeout = startupTimeout;
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
		int current = this.port;
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
		int current = this.tlsPort;
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
		Process current = this.process;
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
		Process current = this.process;
		return current != null && current.isAlive();
	}

	/**
	 * Whether the process has been suspended with {@link #pause()} and not resumed.
	 * @return {@code true} while paused
	 */
	public boolean isPaused() {
		return this.paused && isRunning();
	}

	/**
	 * Kill the process with SIGKILL and wait until it is gone. The port and temp dir are
	 * kept for {@link #restart()}.
	 */
	public synchronized void kill() {
		Process current = this.process;
		this.paused = false;
		if (current == null || !current.isAlive()) {
			return;
		}
		current.destroyForcibly();
		awaitExit(current);
	}

	/**
	 * Suspend the process with SIGSTOP: connections are still accepted by the kernel, but
	 * nothing is answered.
	 */
	public synchronized void pause() {
		Process current = requireRunning("pause");
		if (this.paused) {
			return;
		}
		signal(current, "STOP");
		this.paused = true;
		awaitStopped(current, true);
	}

	/**
	 * Resume a process suspended by {@link #pause()} with SIGCONT; a no-op when it is not
	 * paused.
	 */
	public synchronized void resume() {
		Process current = this.process;
		if (!this.paused || current == null || !current.isAlive()) {
			this.paused = false;
			return;
		}
		signal(current, "CONT");
		this.paused = false;
		awaitStopped(current, false);
	}

	/**
	 * Kill the process if it is running, then start a new, empty one on the same port and
	 * wait until it answers PING.
	 */
	public synchronized void restart() {
		int samePort = port();
		kill();
		claimedPorts.add(samePort);
		PortClash clash = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			try {
				launch(samePort);
				return;
			}
			catch (PortClash ex) {
				clash = ex;
				sleep(200);
			}
		}
		throw new IllegalStateException(
				"Cannot restart " + this.name + ": port " + samePort + " is taken by another process", clash);
	}

	/**
	 * Kill the process and delete its temp directory. {@link #restart()} may bring it
	 * back on the same port.
	 */
	public synchronized void stop() {
		kill();
		deleteDir();
		release(this.port, this.companionOffset);
		claimedPorts.remove(this.tlsPort);
		live.remove(this);
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
		return this.name + "[" + HOST + ":" + this.port + (isRunning() ? (this.paused ? ", paused" : "") : ", down")
				+ "]";
	}

	// ---- package-private lifecycle used by RedisServers ----

	/** First start: pick a free port, retrying when another process takes it first. */
	synchronized void startOnFreePort() {
		startOnFreePort(0);
	}

	/**
	 * First start on a free port whose companion port {@code port + companionOffset} is
	 * free too (and claimed with it), for the cluster bus a Redis Cluster node opens at
	 * port + 10000; 0 for none.
	 */
	synchronized void startOnFreePort(int companionOffset) {
		this.companionOffset = companionOffset;
		PortClash clash = null;
		for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
			int candidate = pickFreePort(companionOffset);
			try {
				launch(candidate);
				return;
			}
			catch (PortClash ex) {
				clash = ex;
				release(candidate, companionOffset);
			}
			catch (RuntimeException ex) {
				release(candidate, companionOffset);
				throw ex;
			}
		}
		throw new IllegalStateException(
				"Cannot start " + this.name + ": no free port after " + PORT_ATTEMPTS + " attempts", clash);
	}

	/**
	 * Bring the node back to a clean running state: restart if down, resume if paused,
	 * then FLUSHALL.
	 */
	synchronized void reset() {
		if (!isRunning()) {
			restart();
		}
		else if (this.paused) {
			resume();
		}
		flushAll();
	}

	private static void release(int port, int companionOffset) {
		claimedPorts.remove(port);
		if (companionOffset > 0) {
			claimedPorts.remove(port + companionOffset);
		}
	}

	private static int pickFreePort(int companionOffset) {
		for (int i = 0; i < 200; i++) {
			int candidate;
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
				candidate = socket.getLocalPort();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot find a free port on " + HOST, ex);
			}
			if (candidate == RESERVED_PORT || !claimedPorts.add(candidate)) {
				continue;
			}
			if (companionOffset == 0) {
				return candidate;
			}
			int companion = candidate + companionOffset;
			if (companion <= 65535 && companion != RESERVED_PORT && isFree(companion) && claimedPorts.add(companion)) {
				return candidate;
			}
			claimedPorts.remove(candidate);
		}
		throw new IllegalStateException("Cannot find an unclaimed free port on " + HOST
				+ ((companionOffset > 0) ? " with a free port " + companionOffset + " above it" : ""));
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** Start a process on {@code targetPort} and wait until it answers PING. */
	private void launch(int targetPort) throws PortClash {
		if (targetPort == RESERVED_PORT) {
			throw new IllegalStateException("Refusing to start a test redis-server on port " + RESERVED_PORT);
		}
		Path workDir = ensureDir();
		int launch = ++this.launches;
		Path logFile = workDir.resolve("redis-" + launch + ".log");
		List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--port", String.valueOf(targetPort),
				"--bind", HOST, "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", workDir.toString(),
				"--logfile", logFile.toString()));
		if (this.password != null) {
			command.addAll(List.of("--requirepass", this.password));
		}
		if (this.tls != null) {
			if (this.tlsPort < 0) {
				this.tlsPort = pickFreePort(0);
			}
			command.addAll(List.of("--tls-port", String.valueOf(this.tlsPort), "--tls-cert-file",
					this.tls.certificate().toString(), "--tls-key-file", this.tls.privateKey().toString(),
					"--tls-ca-cert-file", this.tls.caCertificate().toString(), "--tls-auth-clients", "no"));
		}
		command.addAll(this.extraArgs);
		Process started;
		try {
			started = new ProcessBuilder(command).directory(workDir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(Redirect.appendTo(workDir.resolve("stdout-" + launch + ".log").toFile()))
				.redirectInput(Redirect.from(Paths.get("/dev/null").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + command, ex);
		}
		this.port = targetPort;
		this.process = started;
		this.paused = false;
		live.add(this);
		awaitReady(started, targetPort);
	}

	private void awaitReady(Process started, int targetPort) throws PortClash {
		long deadline = System.nanoTime() + this.startupTimeout.toNanos();
		long backoff = 5;
		String lastProblem = "no attempt";
		while (true) {
			if (!started.isAlive()) {
				awaitExit(started);
				String tail = logTail();
				if (tail.contains("Address already in use")) {
					throw new PortClash(this.name + ": port " + targetPort + " already in use");
				}
				throw new IllegalStateException(this.name + " (" + this.binary + ") exited with code "
						+ started.exitValue() + " before answering PING on port " + targetPort + "\n" + tail);
			}
			try {
				Object reply = Resp.callAuthenticated(HOST, targetPort, Duration.ofMillis(500), this.password, "PING");
				if ("PONG".equals(reply)) {
					verifyOwnProcess(started, targetPort);
					return;
				}
				lastProblem = "PING answered " + reply;
			}
			catch (IOException | RedisErrorReply ex) {
				lastProblem = ex.toString();
			}
			if (System.nanoTime() > deadline) {
				started.destroyForcibly();
				awaitExit(started);
				throw new IllegalStateException(this.name + " (" + this.binary + ", pid " + started.pid()
						+ ") did not answer PING on " + HOST + ":" + targetPort + " within " + this.startupTimeout
						+ " (last: " + lastProblem + ")\n" + logTail());
			}
			sleep(backoff);
			backoff = Math.min(backoff * 2, 100);
		}
	}

	/**
	 * Make sure the PONG came from the process we started and not from someone else on
	 * that port.
	 */
	private void verifyOwnProcess(Process started, int targetPort) throws PortClash {
		String info;
		try {
			info = (String) Resp.callAuthenticated(HOST, targetPort, DEFAULT_CALL_TIMEOUT, this.password, "INFO",
					"server");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(this.name + ": INFO failed on port " + targetPort, ex);
		}
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("process_id:")) {
				long answering = Long.parseLong(line.substring("process_id:".length()).trim());
				if (answering != started.pid()) {
					started.destroyForcibly();
					awaitExit(started);
					throw new PortClash(this.name + ": port " + targetPort + " is served by pid " + answering);
				}
				return;
			}
		}
	}

	private Process requireRunning(String action) {
		Process current = this.process;
		if (current == null || !current.isAlive()) {
			throw new IllegalStateException("Cannot " + action + " " + this.name + ": it is not running");
		}
		return current;
	}

	private Path ensureDir() {
		Path current = this.dir;
		if (current == null || !Files.isDirectory(current)) {
			try {
				current = Files.createTempDirectory("quorumlock-redis-");
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot create a temp dir for " + this.name, ex);
			}
			this.dir = current;
		}
		return current;
	}

	private void deleteDir() {
		Path current = this.dir;
		this.dir = null;
		if (current == null) {
			return;
		}
		try (Stream<Path> files = Files.walk(current)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> {
				try {
					Files.deleteIfExists(path);
				}
				catch (IOException ex) {
					// best effort: a leftover temp file must not fail a test
				}
			});
		}
		catch (NoSuchFileException ex) {
			// already gone
		}
		catch (IOException ex) {
			// best effort
		}
	}

	/** The temp directory of the current process, {@code null} after {@link #stop()}. */
	Path directory() {
		return this.dir;
	}

	/**
	 * The last lines of the current process's log and stdout/stderr, for error messages.
	 */
	String logTail() {
		Path current = this.dir;
		if (current == null) {
			return "(no log: temp dir deleted)";
		}
		int launch = this.launches;
		return tail(current.resolve("redis-" + launch + ".log")) + tail(current.resolve("stdout-" + launch + ".log"));
	}

	private static String tail(Path file) {
		List<String> lines;
		try {
			lines = Files.readAllLines(file, StandardCharsets.UTF_8);
		}
		catch (NoSuchFileException ex) {
			return "--- " + file + ": (missing)\n";
		}
		catch (IOException ex) {
			return "--- " + file + ": (unreadable: " + ex + ")\n";
		}
		int from = Math.max(0, lines.size() - LOG_TAIL_LINES);
		return "--- tail of " + file + ":\n" + String.join("\n", lines.subList(from, lines.size())) + "\n";
	}

	/** Run {@code kill -<signal> <pid>} for the process we started and wait for it. */
	private void signal(Process target, String signal) {
		List<String> command = List.of("kill", "-" + signal, String.valueOf(target.pid()));
		try {
			Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
			kill.getOutputStream().close();
			byte[] output = kill.getInputStream().readAllBytes();
			if (!kill.waitFor(10, TimeUnit.SECONDS)) {
				kill.destroyForcibly();
				throw new IllegalStateException(command + " did not finish within 10 s");
			}
			if (kill.exitValue() != 0) {
				throw new IllegalStateException(command + " failed with exit code " + kill.exitValue() + ": "
						+ new String(output, StandardCharsets.UTF_8).trim());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	/**
	 * On Linux, wait (briefly) until /proc reports the process as stopped or no longer
	 * stopped.
	 */
	private static void awaitStopped(Process target, boolean stopped) {
		Path stat = Paths.get("/proc", String.valueOf(target.pid()), "stat");
		if (!Files.isReadable(stat)) {
			return;
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
		while (System.nanoTime() < deadline && target.isAlive()) {
			try {
				String text = Files.readString(stat, StandardCharsets.UTF_8);
				int close = text.lastIndexOf(')');
				char state = (close >= 0 && close + 2 < text.length()) ? text.charAt(close + 2) : '?';
				if ((state == 'T' || state == 't') == stopped) {
					return;
				}
			}
			catch (IOException ex) {
				return;
			}
			sleep(2);
		}
	}

	private static void awaitExit(Process target) {
		try {
			if (!target.waitFor(PROCESS_EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("redis-server pid " + target.pid() + " did not exit within "
						+ PROCESS_EXIT_TIMEOUT + " after SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for pid " + target.pid() + " to exit", ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/**
	 * Shutdown hook: SIGKILL (works on paused processes too) every process this JVM
	 * started, delete temp dirs.
	 */
	private static void destroyAllOnShutdown() {
		for (RedisServer server : live) {
			Process current = server.process;
			if (current != null && current.isAlive()) {
				current.destroyForcibly();
			}
		}
		for (RedisServer server : live) {
			Process current = server.process;
			if (current != null) {
				try {
					current.waitFor(2, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			server.deleteDir();
		}
	}

	/** The port was taken by another process between picking and binding it. */
	private static final class PortClash extends Exception {

		private static final long serialVersionUID = 1L;

		PortClash(String message) {
			super(message);
		}

	}

}
