package io.quorumlock.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.quorumlock.testing.EtcdMember;

/**
 * A loopback TCP proxy between an etcd client and one member, which can be
 * {@linkplain #cut() cut}: bytes are then read from both sides but held, not passed on,
 * as on a network that drops into a black hole, until {@linkplain #restore() restored},
 * when what was held is delivered late (a request the client gave up on arrives then).
 */
final class EtcdProxy implements AutoCloseable {

	private final EtcdMember member;

	private final ServerSocket listener;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final ReentrantLock gate = new ReentrantLock();

	private final Condition open = this.gate.newCondition();

	private volatile boolean cut;

	private volatile boolean closed;

	EtcdProxy(EtcdMember member) throws IOException {
		this.member = member;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		daemon("accept", this::accept);
	}

	/** The proxy's endpoint, for the client. */
	String endpoint() {
		return "http://127.0.0.1:" + this.listener.getLocalPort();
	}

	/** From now on hold every byte in either direction. */
	void cut() {
		this.cut = true;
	}

	/** Pass bytes again, the held ones first. */
	void restore() {
		this.gate.lock();
		try {
			this.cut = false;
			this.open.signalAll();
		}
		finally {
			this.gate.unlock();
		}
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.listener.accept();
				Socket server = new Socket(InetAddress.getLoopbackAddress(), this.member.clientPort());
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(server);
				daemon("to-etcd", () -> pump(client, server));
				daemon("from-etcd", () -> pump(server, client));
			}
			catch (IOException ex) {
				if (this.closed) {
					return;
				}
			}
		}
	}

	private void pump(Socket from, Socket to) {
		byte[] buffer = new byte[16384];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			int read;
			while ((read = in.read(buffer)) >= 0) {
				awaitOpen();
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (IOException | InterruptedException ex) {
			// one side closed: close the other
		}
		finally {
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private void awaitOpen() throws InterruptedException {
		if (!this.cut) {
			return;
		}
		this.gate.lock();
		try {
			while (this.cut && !this.closed) {
				this.open.await();
			}
		}
		finally {
			this.gate.unlock();
		}
	}

	@Override
	public void close() {
		this.closed = true;
		restore();
		closeQuietly(this.listener);
		this.sockets.forEach(EtcdProxy::closeQuietly);
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// best effort
		}
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, "etcd-proxy-" + name);
		thread.setDaemon(true);
		thread.start();
	}

}
