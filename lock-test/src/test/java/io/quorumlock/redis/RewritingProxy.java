package io.quorumlock.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.quorumlock.testing.RedisServer;
import io.quorumlock.redis.node.Replies;

/**
 * A loopback TCP proxy in front of one test server, standing for what sits between a
 * client and its master in production: an address that can {@linkplain #pointTo start
 * reaching another server} (a DNS name, a VIP, a managed endpoint failing over; the
 * connections open now drop, and the client reconnects to whichever server the address
 * reaches then, or, as some proxies and managed endpoints do, they stay open and their
 * next commands go to the new server), and a server whose {@code INFO} says what its wall
 * clock says ({@linkplain #stepClock a clock stepped} forward after a reboot adds to its
 * reported uptime). Replies are read frame by frame (RESP2 and RESP3), so a rewritten
 * bulk or verbatim string keeps a correct length; requests are read one by one, so a kept
 * connection switches between two commands and gets every reply in order.
 */
final class RewritingProxy implements AutoCloseable {

	private static final Pattern UPTIME = Pattern.compile("uptime_in_seconds:(\\d+)");

	/** Commands a RESP3 server answers with push messages only. */
	private static final Set<String> PUSH_ANSWERED = Set.of("SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE",
			"PUNSUBSCRIBE", "SUNSUBSCRIBE");

	/** How long a kept connection's switch waits for the old server's last replies. */
	private static final Duration DRAIN = Duration.ofSeconds(2);

	/**
	 * One client connection and the server connection carrying it now. Requests are
	 * written to the server under the pair's lock, replies to the client (and counted)
	 * under {@link #out}.
	 */
	private static final class Pair {

		final Socket client;

		final Object out = new Object();

		volatile Socket upstream;

		/** Requests sent on {@link #upstream} that a reply answers; under the lock. */
		long sent;

		/** Replies (not push messages) passed on from {@link #upstream}. */
		final AtomicLong answered = new AtomicLong();

		/** Whether the client asked for RESP3 ({@code HELLO 3}); under the lock. */
		boolean resp3;

		Pair(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

	}

	private final ServerSocket listener;

	private final List<Pair> pairs = new CopyOnWriteArrayList<>();

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
		pointTo(next, false);
	}

	/**
	 * From now on the address reaches {@code next}. With {@code keepConnections}, every
	 * client connection open now stays open: once the old server has answered what it was
	 * sent (new requests wait meanwhile), the connection's next commands go to
	 * {@code next} on a connection of the proxy's own, greeted with {@code HELLO 3} if
	 * the client negotiated RESP3 (its reply dropped), and the old server connection is
	 * closed; the client sees no disconnect (what it subscribed to stays behind).
	 * @param keepConnections whether the client connections open now stay open, rather
	 * than being closed
	 * @return how many client connections were kept open
	 */
	synchronized int pointTo(RedisServer next, boolean keepConnections) throws IOException {
		this.server = next;
		int kept = 0;
		for (Pair pair : this.pairs) {
			if (!keepConnections) {
				close(pair);
			}
			else if (keep(pair, next)) {
				kept++;
			}
		}
		return kept;
	}

	/** Carry a client connection over to {@code next}; false if it closed instead. */
	private boolean keep(Pair pair, RedisServer next) throws IOException {
		synchronized (pair) {
			if (pair.client.isClosed()) {
				return false;
			}
			long deadline = System.nanoTime() + DRAIN.toNanos();
			while (pair.answered.get() < pair.sent && System.nanoTime() - deadline < 0) {
				LockSupport.parkNanos(50_000);
			}
			Socket upstream;
			try {
				upstream = new Socket(InetAddress.getLoopbackAddress(), next.port());
			}
			catch (IOException down) {
				close(pair); // the server is down: the client reconnects later
				return false;
			}
			InputStream in = new BufferedInputStream(upstream.getInputStream());
			if (pair.resp3) {
				upstream.getOutputStream().write("HELLO 3\r\n".getBytes(StandardCharsets.US_ASCII));
				frame(in, new ByteArrayOutputStream());
			}
			Socket old = pair.upstream;
			synchronized (pair.out) {
				pair.upstream = upstream;
				pair.answered.set(0);
			}
			pair.sent = 0;
			old.close();
			daemon("to-client", () -> replies(pair, upstream, in));
			return true;
		}
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
				RedisServer target = this.server;
				Socket upstream;
				try {
					upstream = new Socket(InetAddress.getLoopbackAddress(), target.port());
				}
				catch (IOException down) {
					client.close(); // the server is down: the client retries later
					continue;
				}
				Pair pair = new Pair(client, upstream);
				synchronized (this) {
					if (this.server != target) {
						// the address moved on meanwhile: the client reconnects to it
						close(pair);
						continue;
					}
					this.pairs.add(pair);
				}
				InputStream replies = new BufferedInputStream(upstream.getInputStream());
				daemon("to-server", () -> requests(pair));
				daemon("to-client", () -> replies(pair, upstream, replies));
			}
			catch (IOException ex) {
				return; // closed
			}
		}
	}

	/**
	 * Requests, one at a time, go to whichever server connection carries the client now,
	 * until the client closes.
	 */
	private void requests(Pair pair) {
		try {
			InputStream in = new BufferedInputStream(pair.client.getInputStream());
			ByteArrayOutputStream request = new ByteArrayOutputStream();
			for (List<String> args = request(in, request); args != null; args = request(in, request)) {
				String command = args.isEmpty() ? "" : args.get(0).toUpperCase(Locale.ROOT);
				synchronized (pair) {
					pair.upstream.getOutputStream().write(request.toByteArray());
					if (!PUSH_ANSWERED.contains(command)) {
						pair.sent++;
					}
					if (command.equals("HELLO") && args.size() > 1) {
						pair.resp3 = args.get(1).equals("3");
					}
				}
				request.reset();
			}
		}
		catch (IOException ex) {
			// one side closed
		}
		close(pair);
	}

	/**
	 * Replies of one server connection go to the client frame by frame, rewriting
	 * uptimes, until that connection ends or no longer carries the client; the client's
	 * connection ends with it only if it still carries the client.
	 */
	private void replies(Pair pair, Socket from, InputStream in) {
		try {
			OutputStream out = pair.client.getOutputStream();
			ByteArrayOutputStream frame = new ByteArrayOutputStream();
			while (frame(in, frame)) {
				byte[] bytes = frame.toByteArray();
				synchronized (pair.out) {
					if (pair.upstream != from) {
						return; // switched to another server
					}
					out.write(bytes);
					if (bytes[0] != '>') {
						pair.answered.incrementAndGet();
					}
				}
				frame.reset();
			}
		}
		catch (IOException ex) {
			// one side closed
		}
		if (pair.upstream == from) {
			close(pair);
		}
	}

	private void close(Pair pair) {
		this.pairs.remove(pair);
		try {
			pair.client.close();
			pair.upstream.close();
		}
		catch (IOException ex) {
			// closing
		}
	}

	/**
	 * Read one request (an array of bulk strings, as clients send them) into
	 * {@code request}.
	 * @return its arguments, or null at the end of stream
	 */
	private static List<String> request(InputStream in, ByteArrayOutputStream request) throws IOException {
		String line = line(in);
		if (line == null) {
			return null;
		}
		write(request, line + "\r\n");
		if (line.isEmpty() || line.charAt(0) != '*') {
			return List.of(line.split(" ")); // an inline command
		}
		List<String> args = new ArrayList<>();
		for (int i = Integer.parseInt(line.substring(1)); i > 0; i--) {
			String length = line(in);
			if (length == null) {
				return null;
			}
			write(request, length + "\r\n");
			byte[] body = in.readNBytes(Integer.parseInt(length.substring(1)) + 2);
			request.writeBytes(body);
			args.add(new String(body, 0, Math.max(0, body.length - 2), StandardCharsets.UTF_8));
		}
		return args;
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
		for (Pair pair : this.pairs) {
			close(pair);
		}
	}

	@Override
	public String toString() {
		return "RewritingProxy[" + uri() + " -> " + this.server + "]";
	}

}
