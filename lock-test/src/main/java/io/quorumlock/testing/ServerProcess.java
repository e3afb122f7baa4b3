package io.quorumlock.testing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.quorumlock.testing.ServerLaunch.PortClash;

/**
 * The process behind one {@link RedisServer} and its lifecycle: first start on a free
 * port, kill, pause, resume, restart on the same port, stop. Lifecycle methods are
 * synchronized on this instance; the state they publish is volatile so that readers (the
 * server's accessors and RESP calls) need no lock.
 */
final class ServerProcess {

	private static final int PORT_ATTEMPTS = 10;

	/**
	 * Servers of this JVM with a live process or temp dir, cleaned up by the shutdown
	 * hook.
	 */
	private static final Set<ServerProcess> live = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(ServerProcess::destroyAllOnShutdown, "quorumlock-redis-servers-shutdown"));
	}

	private final String name;

	private final ServerLaunch launch;

	private final WorkDirectory dir;

	private volatile int port = -1;

	/** The TLS port, picked at the first start; -1 without TLS. */
	private volatile int tlsPort = -1;

	private volatile Process process;

	private volatile boolean paused;

	/** Offset of a companion port claimed with the port (a cluster bus), 0 for none. */
	private volatile int companionOffset;

	ServerProcess(String name, ServerLaunch launch) {
		this.name = name;
		this.launch = launch;
		this.dir = new WorkDirectory(name);
	}

	int port() {
		return this.port;
	}

	int tlsPort() {
		return this.tlsPort;
	}

	/** The current (or last) process, or null if never started. */
	Process process() {
		return this.process;
	}

	boolean isRunning() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	boolean isPaused() {
		return this.paused && isRunning();
	}

	WorkDirectory directory() {
		return this.dir;
	}

	/**
	 * First start on a free port whose companion port {@code port + companionOffset} is
	 * free too (0 for none), retrying when another process takes it first.
	 */
	synchronized void startOnFreePort(int companionOffset) {
		this.companionOffset = companionOffset;
		PortClash clash = null;
		for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
			int candidate = Ports.pickFree(companionOffset);
			try {
				launch(candidate);
				return;
			}
			catch (PortClash ex) {
				clash = ex;
				Ports.release(candidate, companionOffset);
			}
			catch (RuntimeException ex) {
				Ports.release(candidate, companionOffset);
				throw ex;
			}
		}
		throw new IllegalStateException(
				"Cannot start " + this.name + ": no free port after " + PORT_ATTEMPTS + " attempts", clash);
	}

	synchronized void kill() {
		Process current = this.process;
		this.paused = false;
		if (current == null || !current.isAlive()) {
			return;
		}
		current.destroyForcibly();
		ProcessSignals.awaitExit(current);
	}

	synchronized void pause() {
		Process current = this.process;
		if (current == null || !current.isAlive()) {
			throw new IllegalStateException("Cannot pause " + this.name + ": it is not running");
		}
		if (this.paused) {
			return;
		}
		ProcessSignals.signal(current, "STOP");
		this.paused = true;
		ProcessSignals.awaitStopped(current, true);
	}

	synchronized void resume() {
		Process current = this.process;
		if (!this.paused || current == null || !current.isAlive()) {
			this.paused = false;
			return;
		}
		ProcessSignals.signal(current, "CONT");
		this.paused = false;
		ProcessSignals.awaitStopped(current, false);
	}

	/** Kill, then start a new, empty process on the same port. */
	synchronized void restart(int samePort) {
		kill();
		Ports.claim(samePort);
		PortClash clash = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			try {
				launch(samePort);
				return;
			}
			catch (PortClash ex) {
				clash = ex;
				ProcessSignals.sleep(200);
			}
		}
		throw new IllegalStateException(
				"Cannot restart " + this.name + ": port " + samePort + " is taken by another process", clash);
	}

	/** Restart on {@code samePort} if down, resume if paused. */
	synchronized void ensureRunning(int samePort) {
		if (!isRunning()) {
			restart(samePort);
		}
		else if (this.paused) {
			resume();
		}
	}

	synchronized void stop() {
		kill();
		this.dir.delete();
		Ports.release(this.port, this.companionOffset);
		Ports.release(this.tlsPort, 0);
		live.remove(this);
	}

	/** Start a process on {@code targetPort} and wait until it answers PING. */
	private void launch(int targetPort) throws PortClash {
		if (this.launch.hasTls() && this.tlsPort < 0) {
			this.tlsPort = Ports.pickFree(0);
		}
		Process started = this.launch.start(targetPort, this.tlsPort, this.dir);
		this.port = targetPort;
		this.process = started;
		this.paused = false;
		live.add(this);
		this.launch.awaitReady(started, targetPort, this.dir);
	}

	/**
	 * Shutdown hook: SIGKILL (works on paused processes too) every process this JVM
	 * started, delete temp dirs.
	 */
	private static void destroyAllOnShutdown() {
		for (ServerProcess server : live) {
			Process current = server.process;
			if (current != null && current.isAlive()) {
				current.destroyForcibly();
			}
		}
		for (ServerProcess server : live) {
			Process current = server.process;
			if (current != null) {
				try {
					current.waitFor(2, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			server.dir.delete();
		}
	}

}
