package io.quorumlock.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client: one command per fresh socket. Enough for test assertions, not
 * for production.
 */
final class Resp {

	private Resp() {
	}

	/**
	 * Send one command and read its reply.
	 * @return {@code String}, {@code Long}, {@code List<Object>} or {@code null}
	 * @throws RedisErrorReply for an error reply
	 * @throws IOException if the connection fails or the reply does not arrive within
	 * {@code timeout}
	 */
	static Object call(String host, int port, Duration timeout, String... args) throws IOException {
		return callAuthenticated(host, port, timeout, null, args);
	}

	/**
	 * Send {@code AUTH password} (when a password is given), then one command, and read
	 * the command's reply.
	 * @return {@code String}, {@code Long}, {@code List<Object>} or {@code null}
	 * @throws RedisErrorReply for an error reply to AUTH or to the command
	 * @throws IOException if the connection fails or a reply does not arrive within
	 * {@code timeout}
	 */
	static Object callAuthenticated(String host, int port, Duration timeout, String password, String... args)
			throws IOException {
		if (args.length == 0) {
			throw new IllegalArgumentException("No command given");
		}
		int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		try (Socket socket = new Socket()) {
			socket.setTcpNoDelay(true);
			socket.connect(new InetSocketAddress(host, port), millis);
			socket.setSoTimeout(millis);
			OutputStream out = new BufferedOutputStream(socket.getOutputStream());
			if (password != null) {
				out.write(encode("AUTH", password));
			}
			out.write(encode(args));
			out.flush();
			BufferedInputStream in = new BufferedInputStream(socket.getInputStream());
			if (password != null) {
				read(in);
			}
			return read(in);
		}
	}

	static byte[] encode(String... args) {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream();
		writeAscii(buffer, "*" + args.length + "\r\n");
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			writeAscii(buffer, "$" + bytes.length + "\r\n");
			buffer.writeBytes(bytes);
			writeAscii(buffer, "\r\n");
		}
		return buffer.toByteArray();
	}

	private static void writeAscii(ByteArrayOutputStream buffer, String text) {
		buffer.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
	}

	static Object read(InputStream in) throws IOException {
		int type = in.read();
		if (type < 0) {
			throw new EOFException("Connection closed before a reply was read");
		}
		String line = readLine(in);
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new RedisErrorReply(line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] data = in.readNBytes(length);
				if (data.length < length) {
					throw new EOFException("Connection closed inside a bulk string");
				}
				readLine(in);
				return new String(data, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					try {
						items.add(read(in));
					}
					catch (RedisErrorReply ex) {
						// an error nested in an array (e.g. EXEC) is returned as an
						// element, not thrown
						items.add(ex);
					}
				}
				return items;
			}
			default:
				throw new IOException("Unexpected RESP type byte '" + (char) type + "' followed by: " + line);
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int b = in.read();
			if (b < 0) {
				throw new EOFException("Connection closed inside a reply line");
			}
			if (previous == '\r' && b == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(b);
			previous = b;
		}
	}

}
