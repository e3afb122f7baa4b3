package io.quorumlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The loopback ports of the {@link RedisServer}s of this JVM: picked free by the kernel,
 * claimed so that two servers never pick the same one, and never {@value #RESERVED_PORT}.
 */
final class Ports {

	static final String HOST = "127.0.0.1";

	/**
	 * The port of a Redis that is not ours on developer machines; never used or touched.
	 */
	static final int RESERVED_PORT = 6379;

	/** Ports handed to servers of this JVM, so two servers never pick the same one. */
	private static final Set<Integer> claimed = ConcurrentHashMap.newKeySet();

	private Ports() {
	}

	/**
	 * Pick and claim a free port whose companion {@code port + companionOffset} is free
	 * too and claimed with it (0 for none).
	 */
	static int pickFree(int companionOffset) {
		for (int i = 0; i < 200; i++) {
			int candidate;
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
				candidate = socket.getLocalPort();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot find a free port on " + HOST, ex);
			}
			if (candidate == RESERVED_PORT || !claimed.add(candidate)) {
				continue;
			}
			if (companionOffset == 0) {
				return candidate;
			}
			int companion = candidate + companionOffset;
			if (companion <= 65535 && companion != RESERVED_PORT && isFree(companion) && claimed.add(companion)) {
				return candidate;
			}
			claimed.remove(candidate);
		}
		throw new IllegalStateException("Cannot find an unclaimed free port on " + HOST
				+ ((companionOffset > 0) ? " with a free port " + companionOffset + " above it" : ""));
	}

	/** Claim a port again, e.g. for a restart on the same port. */
	static void claim(int port) {
		claimed.add(port);
	}

	/** Release a port and its companion ({@code port + companionOffset}, 0 for none). */
	static void release(int port, int companionOffset) {
		claimed.remove(port);
		if (companionOffset > 0) {
			claimed.remove(port + companionOffset);
		}
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
