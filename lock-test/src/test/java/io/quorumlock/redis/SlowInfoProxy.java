package io.quorumlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.quorumlock.testing.RedisServer;

/**
 * A loopback TCP proxy in front of one test server that, once {@linkplain #slowInfo
 * armed}, holds each {@code INFO} request for a while before passing it on: the server
 * answers late and reports the uptime it has when it finally reads the request, as a busy
 * or just-restarted server does to a client whose request it reads late. A connection
 * whose server side closes (the server was killed) is closed on the client side too, so
 * the client sees the drop and reconnects through the proxy.
 */
final class SlowInfoProxy implements AutoCloseable {

	/** {@code INFO}, with any section, as Lettuce encodes it. */
	private static final byte[] INFO_SERVER = "$4\r\nINFO\r\n".getBytes(StandardCharsets.US_ASCII);

	private final RedisServer server;

	private final ServerSocket listener;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final AtomicInteger delayed = new AtomicInteger();

	private volatile long delayNanos;

	SlowInfoProxy(RedisServer server) throws IOException {
		this.server = server;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		daemon("accept", this::accept);
	}

	/** The proxy's address, for the client. */
	String uri() {
		return "redis://127.0.0.1:" + this.listener.getLocalPort();
	}

	/** From now on, hold each {@code INFO} request for {@code delay}. */
	void slowInfo(Duration delay) {
		this.delayNanos = delay.toNanos();
	}

	/** How many {@code INFO} requests were held so far. */
	int delayedInfos() {
		return this.delayed.get();
	}

	private void accept() {
		while (!this.listener.isClosed()) {
			try {
				Socket client = this.listener.accept();
				Socket upstream;
				try {
					upstream = new Socket(InetAddress.getLoopbackAddress(), this.server.port());
				}
				catch (IOException down) {
					client.close(); // the server is down: the client retries later
					continue;
				}
				this.sockets.add(client);
				this.sockets.add(upstream);
				daemon("to-server", () -> pump(client, upstream, true));
				daemon("to-client", () -> pump(upstream, client, false));
			}
			catch (IOException ex) {
				return; // closed
			}
		}
	}

	/** Copy bytes one way until either side closes, then close both. */
	private void pump(Socket from, Socket to, boolean requests) {
		byte[] buffer = new byte[16 * 1024];
		try (from; to) {
			InputStream in = from.getInputStream();
			OutputStream out = to.getOutputStream();
			int n;
			while ((n = in.read(buffer)) >= 0) {
				long delay = this.delayNanos;
				if (requests && delay > 0 && contains(buffer, n, INFO_SERVER)) {
					this.delayed.incrementAndGet();
					// the simulated latency itself: this connection's requests wait
					// here, in order, as they would in a slow network or a busy server
					long until = System.nanoTime() + delay;
					for (long left = delay; left > 0; left = until - System.nanoTime()) {
						LockSupport.parkNanos(left);
					}
				}
				out.write(buffer, 0, n);
				out.flush();
			}
		}
		catch (IOException ex) {
			// one side closed: closing both (try-with-resources) tells the other
		}
	}

	private static boolean contains(byte[] buffer, int length, byte[] part) {
		outer: for (int i = 0; i + part.length <= length; i++) {
			for (int j = 0; j < part.length; j++) {
				if (buffer[i + j] != part[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	private static void daemon(String name, Runnable body) {
		Thread thread = new Thread(body, "slow-info-proxy-" + name);
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.listener.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

	@Override
	public String toString() {
		return "SlowInfoProxy[" + uri() + " -> " + this.server + ", delayed "
				+ TimeUnit.NANOSECONDS.toMillis(this.delayNanos) + " ms]";
	}

}
