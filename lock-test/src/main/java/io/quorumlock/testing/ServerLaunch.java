package io.quorumlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How one {@link RedisServer} is launched: the {@code redis-server} command line (no
 * persistence, loopback only, optional password and TLS port), and the wait until the
 * process we started, and not another one on that port, answers PING.
 */
final class ServerLaunch {

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

	private final String name;

	private final Path binary;

	private final List<String> extraArgs;

	private final Duration startupTimeout;

	/** The {@code requirepass} of the server, or null for none. */
	private final String password;

	/** TLS files, or null for a plain-text-only server. */
	private final RedisServers.Tls tls;

	ServerLaunch(String name, Path binary, List<String> extraArgs, Duration startupTimeout, String password,
			RedisServers.Tls tls) {
		this.name = name;
		this.binary = binary;
		this.extraArgs = List.copyOf(extraArgs);
		this.startupTimeout = startupTimeout;
		this.password = password;
		this.tls = tls;
	}

	String password() {
		return this.password;
	}

	boolean hasTls() {
		return this.tls != null;
	}

	/**
	 * Start a process on {@code port} (and {@code tlsPort} with TLS), not yet awaited.
	 */
	Process start(int port, int tlsPort, WorkDirectory dir) {
		if (port == Ports.RESERVED_PORT) {
			throw new IllegalStateException("Refusing to start a test redis-server on port " + Ports.RESERVED_PORT);
		}
		Path workDir = dir.ensure();
		int launch = dir.nextLaunch();
		List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--port", String.valueOf(port), "--bind",
				Ports.HOST, "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", workDir.toString(),
				"--logfile", dir.log(launch).toString()));
		if (this.password != null) {
			command.addAll(List.of("--requirepass", this.password));
		}
		if (this.tls != null) {
			command.addAll(List.of("--tls-port", String.valueOf(tlsPort), "--tls-cert-file",
					this.tls.certificate().toString(), "--tls-key-file", this.tls.privateKey().toString(),
					"--tls-ca-cert-file", this.tls.caCertificate().toString(), "--tls-auth-clients", "no"));
		}
		command.addAll(this.extraArgs);
		try {
			return new ProcessBuilder(command).directory(workDir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(Redirect.appendTo(dir.stdout(launch).toFile()))
				.redirectInput(Redirect.from(Paths.get("/dev/null").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + command, ex);
		}
	}

	/**
	 * Wait until {@code started} answers PING on {@code port}, within the startup
	 * timeout.
	 */
	void awaitReady(Process started, int port, WorkDirectory dir) throws PortClash {
		long deadline = System.nanoTime() + this.startupTimeout.toNanos();
		long backoff = 5;
		String lastProblem = "no attempt";
		while (true) {
			if (!started.isAlive()) {
				ProcessSignals.awaitExit(started);
				String tail = dir.tail();
				if (tail.contains("Address already in use")) {
					throw new PortClash(this.name + ": port " + port + " already in use");
				}
				throw new IllegalStateException(this.name + " (" + this.binary + ") exited with code "
						+ started.exitValue() + " before answering PING on port " + port + "\n" + tail);
			}
			try {
				Object reply = Resp.callAuthenticated(Ports.HOST, port, Duration.ofMillis(500), this.password, "PING");
				if ("PONG".equals(reply)) {
					verifyOwnProcess(started, port);
					return;
				}
				lastProblem = "PING answered " + reply;
			}
			catch (IOException | RedisErrorReply ex) {
				lastProblem = ex.toString();
			}
			if (System.nanoTime() > deadline) {
				started.destroyForcibly();
				ProcessSignals.awaitExit(started);
				throw new IllegalStateException(this.name + " (" + this.binary + ", pid " + started.pid()
						+ ") did not answer PING on " + Ports.HOST + ":" + port + " within " + this.startupTimeout
						+ " (last: " + lastProblem + ")\n" + dir.tail());
			}
			ProcessSignals.sleep(backoff);
			backoff = Math.min(backoff * 2, 100);
		}
	}

	/**
	 * Make sure the PONG came from the process we started and not from someone else on
	 * that port.
	 */
	private void verifyOwnProcess(Process started, int port) throws PortClash {
		String info;
		try {
			info = (String) Resp.callAuthenticated(Ports.HOST, port, PROBE_TIMEOUT, this.password, "INFO", "server");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(this.name + ": INFO failed on port " + port, ex);
		}
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("process_id:")) {
				long answering = Long.parseLong(line.substring("process_id:".length()).trim());
				if (answering != started.pid()) {
					started.destroyForcibly();
					ProcessSignals.awaitExit(started);
					throw new PortClash(this.name + ": port " + port + " is served by pid " + answering);
				}
				return;
			}
		}
	}

	/** The port was taken by another process between picking and binding it. */
	static final class PortClash extends Exception {

		private static final long serialVersionUID = 1L;

		PortClash(String message) {
			super(message);
		}

	}

}
