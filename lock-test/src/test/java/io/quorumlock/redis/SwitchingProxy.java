package io.quorumlock.redis;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.quorumlock.testing.RedisServer;

/**
 * A loopback TCP proxy in front of one test server, standing for a managed endpoint or a
 * proxy that fails over: {@linkplain #switchTo(RedisServer, boolean) the address starts
 * reaching another server}, either dropping the client connections open now (the client
 * reconnects) or keeping them open and carrying their next commands to the new server on
 * a connection of its own (as some proxies and managed endpoints do: the client sees no
 * disconnect). A kept connection is greeted with {@code HELLO 3} on the new server, so a
 * client that negotiated RESP3 reads the same protocol after the switch.
 */
final class SwitchingProxy implements AutoCloseable {

	/** One client connection and the server connection carrying it now. */
	private static final class Pair {

		final Socket client;

		volatile Socket upstream;

		Pair(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

	}

	private final ServerSocket listener;

	private final List<Pair> pairs = new CopyOnWriteArrayList<>();

	private volatile RedisServer server;

	SwitchingProxy(RedisServer server) throws IOException {
		this.server = server;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		daemon("accept", this::accept);
	}

	/** The proxy's address, for the client. */
	String uri() {
		return "redis://127.0.0.1:" + this.listener.getLocalPort();
	}

	/**
	 * From now on the address reaches {@code next}.
	 * @param keepConnections whether the client connections open now stay open (their
	 * next commands go to {@code next}), rather than being closed
	 */
	void switchTo(RedisServer next, boolean keepConnections) throws IOException {
		this.server = next;
		for (Pair pair : this.pairs) {
			Socket old = pair.upstream;
			if (!keepConnections) {
				this.pairs.remove(pair);
				pair.client.close();
				old.close();
				continue;
			}
			Socket upstream = new Socket(InetAddress.getLoopbackAddress(), next.port());
			// the same protocol as the client negotiated on its first server
			upstream.getOutputStream().write("HELLO 3\r\n".getBytes(StandardCharsets.US_ASCII));
			upstream.getOutputStream().flush();
			InputStream in = new BufferedInputStream(upstream.getInputStream());
			skipFrame(in);
			pair.upstream = upstream;
			old.close();
			daemon("to-client", () -> replies(pair, upstream, in));
		}
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
				Pair pair = new Pair(client, upstream);
				InputStream replies = upstream.getInputStream();
				this.pairs.add(pair);
				daemon("to-server", () -> requests(pair));
				daemon("to-client", () -> replies(pair, upstream, replies));
			}
			catch (IOException ex) {
				return; // closed
			}
		}
	}

	/** Requests go to whichever server connection carries the client now. */
	private void requests(Pair pair) {
		byte[] buffer = new byte[16 * 1024];
		try {
			InputStream in = pair.client.getInputStream();
			for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
				OutputStream out = pair.upstream.getOutputStream();
				out.write(buffer, 0, n);
				out.flush();
			}
		}
		catch (IOException ex) {
			// one side closed
		}
		close(pair);
	}

	/**
	 * Replies of one server connection go to the client until that connection ends; the
	 * client's connection ends with it only if it still carries the client.
	 */
	private void replies(Pair pair, Socket upstream, InputStream in) {
		byte[] buffer = new byte[16 * 1024];
		try {
			OutputStream out = pair.client.getOutputStream();
			for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
				out.write(buffer, 0, n);
				out.flush();
			}
		}
		catch (IOException ex) {
			// closed
		}
		if (pair.upstream == upstream) {
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

	/** Read and drop one RESP frame (RESP2 or RESP3). */
	private static void skipFrame(InputStream in) throws IOException {
		String line = line(in);
		if (line == null) {
			throw new IOException("closed during HELLO");
		}
		char type = line.charAt(0);
		switch (type) {
			case '$', '=', '!' -> {
				int length = Integer.parseInt(line.substring(1));
				if (length >= 0) {
					in.readNBytes(length + 2);
				}
			}
			case '*', '~', '>', '%', '|' -> {
				int count = Integer.parseInt(line.substring(1));
				int values = (type == '%' || type == '|') ? 2 * count : count;
				for (int i = 0; i < values; i++) {
					skipFrame(in);
				}
			}
			default -> {
			}
		}
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

	private static void daemon(String name, Runnable body) {
		Thread thread = new Thread(body, "switching-proxy-" + name);
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
		return "SwitchingProxy[" + uri() + " -> " + this.server + "]";
	}

}
