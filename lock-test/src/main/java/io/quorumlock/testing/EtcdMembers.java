package io.quorumlock.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * One etcd cluster of real {@code etcd} processes on 127.0.0.1, started by
 * {@link EtcdCluster} (or {@link #start(int)} and {@link #close()} outside JUnit): each
 * member on a free client port and a free peer port with a temp data directory, fast
 * elections (heartbeat 50 ms, election timeout 500 ms). Gives the client
 * {@link #endpoints()}, each {@link #member(int) member} for faults, and the
 * {@link #leader()}.
 */
public final class EtcdMembers implements AutoCloseable {

	private static final int START_ATTEMPTS = 5;

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

	private final int size;

	private final Path binary;

	private volatile List<EtcdMember> members = List.of();

	private volatile String token;

	private final Path certificate;

	private final Path privateKey;

	private EtcdMembers(int size, Path binary, Path certificate, Path privateKey) {
		this.size = size;
		this.binary = binary;
		this.certificate = certificate;
		this.privateKey = privateKey;
	}

	/**
	 * Start a cluster of {@code members} members and wait until it has a leader.
	 * @param members the number of members, at least 1
	 * @return the running cluster, to be closed by the caller
	 * @throws IllegalStateException if no {@code etcd} binary is found (see
	 * {@link EtcdBinary}) or the cluster does not become healthy within 30 s
	 */
	public static EtcdMembers start(int members) {
		if (members < 1) {
			throw new IllegalArgumentException("an etcd cluster needs at least 1 member, was " + members);
		}
		EtcdMembers cluster = new EtcdMembers(members, EtcdBinary.resolve(), null, null);
		cluster.startAll();
		return cluster;
	}

	/**
	 * Start a cluster of {@code members} members that also serve clients over TLS, with
	 * this certificate and key (PEM files; the certificate names 127.0.0.1), on a port of
	 * their own: {@link #tlsEndpoints()}. The plain {@link #endpoints()} stay, for the
	 * fixture's own requests and for clients that need no TLS.
	 * @param members the number of members, at least 1
	 * @param certificate the server certificate, PEM
	 * @param privateKey its private key, PEM
	 * @return the running cluster, to be closed by the caller
	 * @throws IllegalStateException if no {@code etcd} binary is found or the cluster
	 * does not become healthy within 30 s
	 */
	public static EtcdMembers startTls(int members, Path certificate, Path privateKey) {
		if (members < 1) {
			throw new IllegalArgumentException("an etcd cluster needs at least 1 member, was " + members);
		}
		EtcdMembers cluster = new EtcdMembers(members, EtcdBinary.resolve(),
				Objects.requireNonNull(certificate, "'certificate' must not be null"),
				Objects.requireNonNull(privateKey, "'privateKey' must not be null"));
		cluster.startAll();
		return cluster;
	}

	private void startAll() {
		RuntimeException last = null;
		for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
			List<EtcdMember> started = new ArrayList<>(this.size);
			for (int i = 0; i < this.size; i++) {
				started.add(new EtcdMember(this, "m" + i, this.binary, Ports.pickFree(0), Ports.pickFree(0),
						(this.certificate != null) ? Ports.pickFree(0) : 0));
			}
			this.members = List.copyOf(started);
			this.token = "quorumlock-" + UUID.randomUUID();
			try {
				started.forEach((member) -> member.launch(false));
				started.forEach((member) -> member.awaitHealthy(STARTUP_TIMEOUT));
				return;
			}
			catch (EtcdMember.PortInUse ex) {
				last = ex;
				started.forEach(EtcdMember::stop);
			}
			catch (RuntimeException ex) {
				started.forEach(EtcdMember::stop);
				throw ex;
			}
		}
		throw new IllegalStateException("Cannot start " + this.size + " etcd members: ports kept clashing", last);
	}

	/**
	 * The number of members.
	 * @return the size of the cluster
	 */
	public int size() {
		return this.size;
	}

	/**
	 * One member.
	 * @param index from 0
	 * @return the member
	 */
	public EtcdMember member(int index) {
		return this.members.get(index);
	}

	/**
	 * Every member, in order.
	 * @return the members
	 */
	public List<EtcdMember> members() {
		return this.members;
	}

	/**
	 * The client endpoints of every member, for a client's endpoint list.
	 * @return {@code http://127.0.0.1:<port>} of each member, in order
	 */
	public List<String> endpoints() {
		return this.members.stream().map(EtcdMember::endpoint).toList();
	}

	/**
	 * The TLS client endpoints of every member, for a cluster started with
	 * {@link #startTls}.
	 * @return {@code https://127.0.0.1:<TLS client port>} of each member, in order
	 * @throws IllegalStateException if the cluster serves no TLS
	 */
	public List<String> tlsEndpoints() {
		return this.members.stream().map(EtcdMember::tlsEndpoint).toList();
	}

	/** The server certificate and key of TLS members, or null. */
	Path certificate() {
		return this.certificate;
	}

	Path privateKey() {
		return this.privateKey;
	}

	/**
	 * The member that leads now, as the running, unpaused members report it; waits (at
	 * most the startup timeout) while an election is under way.
	 * @return the leader
	 * @throws IllegalStateException if no leader is known within the startup timeout
	 */
	public EtcdMember leader() {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		RuntimeException last = null;
		while (System.nanoTime() - deadline < 0) {
			for (EtcdMember asked : this.members) {
				if (!asked.isRunning() || asked.isPaused()) {
					continue;
				}
				try {
					long leader = asked.leaderId();
					for (EtcdMember candidate : this.members) {
						if (candidate.isRunning() && !candidate.isPaused() && candidate.memberId() == leader) {
							return candidate;
						}
					}
				}
				catch (RuntimeException ex) {
					last = ex;
				}
			}
			ProcessSignals.sleep(50);
		}
		throw new IllegalStateException("No etcd leader within " + STARTUP_TIMEOUT, last);
	}

	/**
	 * Bring every member back to running: resume paused ones, restart killed ones with
	 * their data, and wait until each reports the cluster healthy. Run before each test
	 * by {@link EtcdCluster}.
	 */
	public void reset() {
		this.members.forEach(EtcdMember::ensureRunning);
		this.members.forEach((member) -> member.awaitHealthy(STARTUP_TIMEOUT));
	}

	/**
	 * Stop every member (SIGKILL by PID) and delete their data directories.
	 */
	@Override
	public void close() {
		this.members.forEach(EtcdMember::stop);
	}

	String initialCluster() {
		return this.members.stream()
			.map((member) -> member.name() + "=" + member.peerUrl())
			.collect(Collectors.joining(","));
	}

	String token() {
		return this.token;
	}

	Duration startupTimeout() {
		return STARTUP_TIMEOUT;
	}

	@Override
	public String toString() {
		return "etcd cluster " + endpoints();
	}

}
