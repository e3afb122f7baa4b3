package io.quorumlock.sample.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import java.net.InetAddress;

/**
 * Local {@code redis-server} masters owned by this JVM: each on a free 127.0.0.1 port,
 * without persistence ({@code --save ""}, no AOF), in its own temporary directory. They
 * are stopped by their own {@link Process} handle (so by PID, never by name), and only
 * the ones started here.
 */
final class EmbeddedRedisMasters implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisMasters.class);

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private static final int PORT_ATTEMPTS = 5;

	private final List<Master> masters;

	private EmbeddedRedisMasters(List<Master> masters) {
		this.masters = masters;
	}

	/**
	 * Start {@code count} masters with {@code binary}; on any failure the ones already
	 * started are stopped again.
	 */
	static EmbeddedRedisMasters start(Path binary, int count) {
		List<Master> started = new ArrayList<>(count);
		try {
			for (int i = 0; i < count; i++) {
				started.add(startOne(binary));
			}
		}
		catch (RuntimeException ex) {
			started.forEach(Master::stop);
			throw ex;
		}
		return new EmbeddedRedisMasters(List.copyOf(started));
	}

	/** The masters' URIs, {@code redis://127.0.0.1:port}. */
	List<String> uris() {
		return this.masters.stream().map((master) -> "redis://127.0.0.1:" + master.port()).toList();
	}

	/** The masters' process ids. */
	List<Long> pids() {
		return this.masters.stream().map((master) -> master.process().pid()).toList();
	}

	/** Stop every master (SIGKILL by PID) and delete its directory; idempotent. */
	@Override
	public void close() {
		this.masters.forEach(Master::stop);
	}

	private static Master startOne(Path binary) {
		IllegalStateException failure = null;
		for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
			int port = freePort();
			Path dir = createDirectory();
			ProcessBuilder builder = new ProcessBuilder(binary.toString(), "--port", String.valueOf(port), "--bind",
					"127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString(),
					"--logfile", dir.resolve("redis.log").toString())
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("stdout.log").toFile());
			Process process;
			try {
				process = builder.start();
			}
			catch (IOException ex) {
				deleteDirectory(dir);
				throw new UncheckedIOException("Cannot start " + binary, ex);
			}
			Master master = new Master(process, port, dir);
			if (awaitPong(master)) {
				logger.info("Started redis-server pid " + process.pid() + " on 127.0.0.1:" + port);
				return master;
			}
			String log = readLog(dir);
			master.stop();
			failure = new IllegalStateException("redis-server " + binary + " did not answer PING on 127.0.0.1:" + port
					+ " within " + STARTUP_TIMEOUT.toSeconds() + " s (attempt " + (attempt + 1) + " of " + PORT_ATTEMPTS
					+ "); its log: " + log);
			if (!isPortTaken(log)) {
				break;
			}
		}
		throw failure;
	}

	private static boolean awaitPong(Master master) {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!master.process().isAlive()) {
				return false;
			}
			if (ping(master.port())) {
				return true;
			}
			try {
				master.process().waitFor(50, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return false;
	}

	static boolean ping(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			byte[] reply = socket.getInputStream().readNBytes(7);
			return "+PONG\r\n".equals(new String(reply, StandardCharsets.US_ASCII));
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot find a free loopback port", ex);
		}
	}

	private static Path createDirectory() {
		try {
			return Files.createTempDirectory("quorumlock-sample-master-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot create a directory for redis-server", ex);
		}
	}

	private static String readLog(Path dir) {
		StringBuilder text = new StringBuilder();
		for (String name : List.of("redis.log", "stdout.log")) {
			Path file = dir.resolve(name);
			if (Files.isRegularFile(file)) {
				try (InputStream in = Files.newInputStream(file)) {
					text.append(new String(in.readNBytes(2000), StandardCharsets.UTF_8).trim()).append(' ');
				}
				catch (IOException ex) {
					text.append("(unreadable: ").append(ex.getMessage()).append(") ");
				}
			}
		}
		return text.toString().trim();
	}

	private static boolean isPortTaken(String log) {
		return log.contains("Address already in use");
	}

	private static void deleteDirectory(Path dir) {
		try (Stream<Path> files = Files.walk(dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			logger.debug("Cannot delete " + dir, ex);
		}
	}

	private record Master(Process process, int port, Path dir) {

		void stop() {
			if (this.process.isAlive()) {
				this.process.destroyForcibly();
				try {
					if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
						logger.warn("redis-server pid " + this.process.pid() + " did not exit within 10 s of SIGKILL");
					}
					else {
						logger.info("Stopped redis-server pid " + this.process.pid() + " on 127.0.0.1:" + this.port);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			deleteDirectory(this.dir);
		}

	}

}
