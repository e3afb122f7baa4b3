package io.quorumlock.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.quorumlock.testing.RedisServer;
import io.quorumlock.redis.node.Replies;

/**
 * A loopback TCP proxy in front of one test server, standing for what sits between a
 * client and its master in production: an address that can {@linkplain #pointTo start
 * reaching another server} (a DNS name, a VIP, a managed endpoint failing over; the
 * connections open now drop, and the client reconnects to whichever server the address
 * reaches then), and a server whose {@code INFO} says what its wall clock says
 * ({@linkplain #stepClock a clock stepped} forward after a reboot adds to its reported
 * uptime). Replies are read frame by frame (RESP2 and RESP3), so a rewritten bulk or
 * verbatim string keeps a correct length.
 */
final class RewritingProxy implements AutoCloseable {

	private static final Pattern UPTIME = Pattern.compile("uptime_in_seconds:(\\d+)");

	private final ServerSocket listener;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile RedisServer server;

	private volatile long clockStepSeconds;

	RewritingProxy(RedisServer server) throws IOException {
		this.server = server;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		daemon("accept", this::accept);
	}

	/** The proxy's address, for the client. */
	String uri() {
		return "redis://127.0.0.1:" + this.listener.getLocalPort();
	}

	/**
	 * From now on the address reaches {@code next}: the connections open now are closed,
	 * and every new one goes to {@code next}.
	 */
	void pointTo(RedisServer next) throws IOException {
		this.server = next;
		for (Socket socket : this.sockets) {
			socket.close();
		}
		this.sockets.clear();
	}

	/**
	 * From now on the server's {@code INFO} reports an uptime {@code seconds} longer, as
	 * a server whose wall clock was stepped forward after it started does (Redis computes
	 * {@code uptime_in_seconds} from its wall clock).
	 */
	void stepClock(long seconds) {
		this.clockStepSeconds = seconds;
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
				daemon("to-server", () -> copy(client, upstream));
				daemon("to-client", () -> replies(upstream, client));
			}
			catch (IOException ex) {
				return; // closed
			}
		}
	}

	/** Copy requests as they are until either side closes, then close both. */
	private static void copy(Socket from, Socket to) {
		byte[] buffer = new byte[16 * 1024];
		try (from; to) {
			InputStream in = from.getInputStream();
			OutputStream out = to.getOutputStream();
			for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
				out.write(buffer, 0, n);
				out.flush();
			}
		}
		catch (IOException ex) {
			// one side closed: closing both tells the other
		}
	}

	/** Pass replies on frame by frame, rewriting uptimes, until either side closes. */
	private void replies(Socket from, Socket to) {
		try (from; to) {
			InputStream in = new java.io.BufferedInputStream(from.getInputStream());
			OutputStream out = to.getOutputStream();
			while (true) {
				ByteArrayOutputStream frame = new ByteArrayOutputStream();
				if (!frame(in, frame)) {
					return;
				}
				out.write(frame.toByteArray());
				if (in.available() == 0) {
					out.flush();
				}
			}
		}
		catch (IOException ex) {
			// one side closed: closing both tells the other
		}
	}

	/** Read one RESP frame into {@code frame}, rewritten; false at the end of stream. */
	private boolean frame(InputStream in, ByteArrayOutputStream frame) throws IOException {
		String line = line(in);
		if (line == null) {
			return false;
		}
		char type = line.charAt(0);
		switch (type) {
			case '$', '=', '!' -> {
				int length = Integer.parseInt(line.substring(1));
				if (length < 0) {
					write(frame, line + "\r\n");
					return true;
				}
				byte[] body = in.readNBytes(length + 2);
				String text = new String(body, 0, length, StandardCharsets.UTF_8);
				String rewritten = rewrite(text);
				byte[] bytes = rewritten.getBytes(StandardCharsets.UTF_8);
				write(frame, type + Integer.toString(bytes.length) + "\r\n");
				frame.write(bytes);
				write(frame, "\r\n");
			}
			case '*', '~', '>', '%', '|' -> {
				write(frame, line + "\r\n");
				int count = Integer.parseInt(line.substring(1));
				int values = (type == '%' || type == '|') ? 2 * count : count;
				for (int i = 0; i < values; i++) {
					frame(in, frame);
				}
				if (type == '|') {
					frame(in, frame); // the value the attributes describe
				}
			}
			default -> write(frame, line + "\r\n");
		}
		return true;
	}

	private String rewrite(String text) {
		long step = this.clockStepSeconds;
		if (step == 0 || !text.contains("uptime_in_seconds:")) {
			return text;
		}
		Matcher m = UPTIME.matcher(text);
		StringBuilder sb = new StringBuilder();
		while (m.find()) {
			m.appendReplacement(sb, "uptime_in_seconds:" + (Long.parseLong(m.group(1)) + step));
		}
		m.appendTail(sb);
		return sb.toString();
	}

	private static String line(InputStream in) throws IOException {
		StringBuilder sb = new StringBuilder();
		for (int c = in.read(); c >= 0; c = in.read()) {
			if (c == '\r') {
				in.read(); // '\n'
				return sb.toString();
			}
			sb.append((char) c);
		}
		return null;
	}

	private static void write(ByteArrayOutputStream frame, String text) {
		frame.writeBytes(text.getBytes(StandardCharsets.UTF_8));
	}

	private static void daemon(String name, Runnable body) {
		Thread thread = new Thread(body, "rewriting-proxy-" + name);
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
		return "RewritingProxy[" + uri() + " -> " + this.server + "]";
	}

}
