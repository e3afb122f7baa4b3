package io.quorumlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code etcd} process of an {@link EtcdMembers} cluster, on a client and a peer port
 * of 127.0.0.1 with a data directory of its own, and the faults a test applies to it:
 * kill (SIGKILL), pause (SIGSTOP), resume (SIGCONT), restart with its data or with its
 * data wiped. Every signal goes to the PID this JVM started, never to a process found by
 * name. Lifecycle methods are synchronized on this member; the state they publish is
 * volatile.
 */
public final class EtcdMember {

	private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(2);

	private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"?(\\d+)\"?");

	private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"?(\\d+)\"?");

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

	/** Members of this JVM with a process or data, cleaned up by the shutdown hook. */
	private static final Set<EtcdMember> live = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(EtcdMember::destroyAllOnShutdown, "quorumlock-etcd-members-shutdown"));
	}

	private final EtcdMembers cluster;

	private final String name;

	private final Path binary;

	private final WorkDirectory dir;

	private final int clientPort;

	private final int peerPort;

	/** The TLS client port, 0 for none. */
	private final int tlsPort;

	private volatile Process process;

	private volatile boolean paused;

	private volatile Path dataDir;

	EtcdMember(EtcdMembers cluster, String name, Path binary, int clientPort, int peerPort, int tlsPort) {
		this.cluster = cluster;
		this.name = name;
		this.binary = binary;
		this.dir = new WorkDirectory("etcd member " + name);
		this.clientPort = clientPort;
		this.peerPort = peerPort;
		this.tlsPort = tlsPort;
	}

	/**
	 * The member's name in the cluster ({@code m0}, {@code m1}, ...).
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * The port clients connect to.
	 * @return the client port on 127.0.0.1
	 */
	public int clientPort() {
		return this.clientPort;
	}

	/**
	 * The port the other members connect to.
	 * @return the peer port on 127.0.0.1
	 */
	public int peerPort() {
		return this.peerPort;
	}

	/**
	 * The client endpoint, for a client's endpoint list.
	 * @return {@code http://127.0.0.1:<client port>}
	 */
	public String endpoint() {
		return "http://" + Ports.HOST + ":" + this.clientPort;
	}

	/**
	 * The TLS client endpoint of a member of a cluster started with
	 * {@link EtcdMembers#startTls}.
	 * @return {@code https://127.0.0.1:<TLS client port>}
	 * @throws IllegalStateException if the member serves no TLS
	 */
	public String tlsEndpoint() {
		if (this.tlsPort == 0) {
			throw new IllegalStateException(
					"etcd member " + this.name + " serves no TLS: start the cluster with " + "EtcdMembers.startTls");
		}
		return "https://" + Ports.HOST + ":" + this.tlsPort;
	}

	String peerUrl() {
		return "http://" + Ports.HOST + ":" + this.peerPort;
	}

	/**
	 * The PID of the current (or last) process.
	 * @return the PID, or -1 if never started
	 */
	public long pid() {
		Process current = this.process;
		return (current != null) ? current.pid() : -1;
	}

	/**
	 * Whether the process is alive (paused or not).
	 * @return whether it runs
	 */
	public boolean isRunning() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	/**
	 * Whether the process is stopped by {@link #pause()}.
	 * @return whether it is paused
	 */
	public boolean isPaused() {
		return this.paused && isRunning();
	}

	/**
	 * SIGKILL the process and wait for it to exit; its data directory is kept.
	 */
	public synchronized void kill() {
		Process current = this.process;
		this.paused = false;
		if (current == null || !current.isAlive()) {
			return;
		}
		current.destroyForcibly();
		ProcessSignals.awaitExit(current);
	}

	/**
	 * SIGSTOP the process: it keeps its sockets but answers nothing until
	 * {@link #resume()}.
	 */
	public synchronized void pause() {
		Process current = this.process;
		if (current == null || !current.isAlive()) {
			throw new IllegalStateException("Cannot pause etcd member " + this.name + ": it is not running");
		}
		if (this.paused) {
			return;
		}
		ProcessSignals.signal(current, "STOP");
		this.paused = true;
		ProcessSignals.awaitStopped(current, true);
	}

	/**
	 * SIGCONT a paused process; nothing if it is not paused.
	 */
	public synchronized void resume() {
		Process current = this.process;
		if (!this.paused || current == null || !current.isAlive()) {
			this.paused = false;
			return;
		}
		ProcessSignals.signal(current, "CONT");
		this.paused = false;
		ProcessSignals.awaitStopped(current, false);
	}

	/**
	 * Kill the process and start it again on the same ports with the data it had, then
	 * wait until the cluster reports healthy through it.
	 */
	public synchronized void restart() {
		kill();
		launch(false);
		awaitHealthy(this.cluster.startupTimeout());
	}

	/**
	 * Kill the process, delete its data directory, and bring it back as a new, empty
	 * member on the same ports: removed from the cluster and added again through a
	 * running member (etcd refuses a member that lost its log under its old identity),
	 * then started to join the existing cluster, which sends it the data it lost.
	 * @throws IllegalStateException if no other member runs to remove and add it
	 */
	public synchronized void restartWiped() {
		kill();
		deleteData();
		if (this.cluster.size() > 1) {
			rejoinAsNew();
		}
		launch(this.cluster.size() > 1);
		awaitHealthy(this.cluster.startupTimeout());
	}

	/**
	 * Through a running member, remove this member's old identity and add its peer URL
	 * again, asking again while the cluster elects a leader or settles (a request that
	 * timed out may have been applied: the member list says what is left to do).
	 */
	private void rejoinAsNew() {
		long deadline = System.nanoTime() + this.cluster.startupTimeout().toNanos();
		RuntimeException last = null;
		while (System.nanoTime() - deadline < 0) {
			EtcdMember other = this.cluster.members()
				.stream()
				.filter((member) -> member != this && member.isRunning() && !member.isPaused())
				.findFirst()
				.orElseThrow(() -> new IllegalStateException(
						"Cannot wipe etcd member " + this.name + ": no other member runs to re-add it"));
			try {
				String entry = memberEntry(other.post("/v3/cluster/member/list", "{}"), peerUrl());
				if (entry == null) {
					other.post("/v3/cluster/member/add", "{\"peerURLs\":[\"" + peerUrl() + "\"]}");
				}
				else if (entry.contains("\"name\"")) {
					// the old identity, which had started: remove it
					other.post("/v3/cluster/member/remove", "{\"ID\":\"" + memberId(entry) + "\"}");
				}
				else {
					return; // added, not started yet: ours to start
				}
			}
			catch (RuntimeException ex) {
				last = ex;
				ProcessSignals.sleep(100);
			}
		}
		throw new IllegalStateException(
				"Cannot re-add wiped etcd member " + this.name + " within " + this.cluster.startupTimeout(), last);
	}

	private void deleteData() {
		Path data = this.dataDir;
		if (data != null) {
			WorkDirectory.deleteTree(data);
		}
	}

	private boolean hasData() {
		Path data = this.dataDir;
		return data != null && Files.isDirectory(data.resolve("member"));
	}

	/**
	 * The member's data directory, created on first use: on tmpfs ({@code /dev/shm})
	 * where there is one, since etcd syncs every write to disk and a busy test machine's
	 * disk would make each request slow; it survives the process's restarts either way.
	 */
	private Path dataDir() {
		Path data = this.dataDir;
		if (data == null) {
			Path shm = Paths.get("/dev/shm");
			try {
				data = (Files.isDirectory(shm) && Files.isWritable(shm))
						? Files.createTempDirectory(shm, "quorumlock-etcd-" + this.name + "-")
						: this.dir.ensure().resolve("data");
			}
			catch (IOException ex) {
				data = this.dir.ensure().resolve("data");
			}
			this.dataDir = data;
		}
		return data;
	}

	/**
	 * Restart if down (wiped if the cluster no longer knows it), resume if paused, and
	 * wait until healthy.
	 */
	synchronized void ensureRunning() {
		if (!isRunning()) {
			if (!hasData()) {
				restartWiped();
				return;
			}
			launch(false);
			try {
				awaitHealthy(this.cluster.startupTimeout());
			}
			catch (IllegalStateException ex) {
				String tail = this.dir.tail();
				if (isRunning()
						|| !(tail.contains("permanently removed") || tail.contains("already been bootstrapped"))) {
					throw ex;
				}
				restartWiped();
			}
		}
		else if (this.paused) {
			resume();
		}
	}

	/** Stop for good: SIGKILL, delete the data directory. */
	synchronized void stop() {
		kill();
		deleteData();
		live.remove(this);
		this.dir.delete();
		Ports.release(this.clientPort, 0);
		Ports.release(this.peerPort, 0);
		if (this.tlsPort != 0) {
			Ports.release(this.tlsPort, 0);
		}
	}

	/**
	 * This member's etcd member id, as it reports it.
	 * @return the id
	 */
	long memberId() {
		return Long.parseUnsignedLong(field(post("/v3/maintenance/status", "{}"), MEMBER_ID, "member_id"));
	}

	/** The leader's member id as this member sees it. */
	long leaderId() {
		return Long.parseUnsignedLong(field(post("/v3/maintenance/status", "{}"), LEADER, "leader"));
	}

	/**
	 * Start the process; {@code join}: into an existing cluster with an empty data dir.
	 */
	void launch(boolean join) {
		if (this.clientPort == Ports.RESERVED_PORT || this.peerPort == Ports.RESERVED_PORT) {
			throw new IllegalStateException("Refusing to start a test etcd on port " + Ports.RESERVED_PORT);
		}
		Path work = this.dir.ensure();
		int launch = this.dir.nextLaunch();
		String clientUrls = (this.tlsPort != 0) ? endpoint() + "," + tlsEndpoint() : endpoint();
		List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--name", this.name, "--data-dir",
				dataDir().toString(), "--listen-client-urls", clientUrls, "--advertise-client-urls", clientUrls,
				"--listen-peer-urls", peerUrl(), "--initial-advertise-peer-urls", peerUrl(), "--initial-cluster",
				this.cluster.initialCluster(), "--initial-cluster-state", join ? "existing" : "new",
				"--initial-cluster-token", this.cluster.token(),
				// fast elections: a lost leader is replaced within about a second
				"--heartbeat-interval", "50", "--election-timeout", "500", "--strict-reconfig-check=false", "--logger",
				"zap", "--log-outputs", "stderr"));
		if (this.tlsPort != 0) {
			command.addAll(List.of("--cert-file", this.cluster.certificate().toString(), "--key-file",
					this.cluster.privateKey().toString()));
		}
		try {
			this.process = new ProcessBuilder(command).directory(work.toFile())
				.redirectErrorStream(true)
				.redirectOutput(Redirect.appendTo(this.dir.stdout(launch).toFile()))
				.redirectInput(Redirect.from(Paths.get("/dev/null").toFile()))
				.start();
			this.paused = false;
			live.add(this);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + command, ex);
		}
	}

	/**
	 * Wait until this member answers {@code /health} with a leader in the cluster.
	 * @throws PortInUse if the process exited because a port was taken
	 */
	void awaitHealthy(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		String last = "no attempt";
		long backoff = 10;
		while (true) {
			Process current = this.process;
			if (current == null || !current.isAlive()) {
				String tail = this.dir.tail();
				if (tail.contains("address already in use")) {
					throw new PortInUse("etcd member " + this.name + ": a port is already in use\n" + tail);
				}
				throw new IllegalStateException("etcd member " + this.name + " (" + this.binary + ") exited"
						+ ((current != null) ? " with code " + current.exitValue() : "") + "\n" + tail);
			}
			try {
				HttpResponse<String> response = http.send(
						HttpRequest.newBuilder(URI.create(endpoint() + "/health")).timeout(HTTP_TIMEOUT).GET().build(),
						HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() == 200 && response.body().contains("\"health\":\"true\"")) {
					return;
				}
				last = response.statusCode() + " " + response.body();
			}
			catch (IOException ex) {
				last = ex.toString();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for etcd member " + this.name, ex);
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("etcd member " + this.name + " (pid " + pid() + ") not healthy within "
						+ timeout + " (last: " + last + ")\n" + this.dir.tail());
			}
			ProcessSignals.sleep(backoff);
			backoff = Math.min(backoff * 2, 200);
		}
	}

	/** A POST to the member's JSON gateway, its body returned. */
	String post(String path, String body) {
		try {
			HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(endpoint() + path))
				.timeout(HTTP_TIMEOUT)
				.POST(HttpRequest.BodyPublishers.ofString(body))
				.build(), HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IllegalStateException("etcd member " + this.name + ": " + path + " answered "
						+ response.statusCode() + " " + response.body());
			}
			return response.body();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("etcd member " + this.name + ": " + path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while calling etcd member " + this.name, ex);
		}
	}

	private String field(String json, Pattern pattern, String what) {
		Matcher matcher = pattern.matcher(json);
		if (!matcher.find()) {
			throw new IllegalStateException("etcd member " + this.name + ": no " + what + " in " + json);
		}
		return matcher.group(1);
	}

	/** The entry of the member with {@code peerUrl} in a member list, or null. */
	private static String memberEntry(String list, String peerUrl) {
		Matcher member = Pattern.compile("\\{[^{}]*\\}").matcher(list);
		while (member.find()) {
			if (member.group().contains("\"" + peerUrl + "\"")) {
				return member.group();
			}
		}
		return null;
	}

	private static String memberId(String entry) {
		Matcher id = Pattern.compile("\"ID\"\\s*:\\s*\"?(\\d+)\"?").matcher(entry);
		if (!id.find()) {
			throw new IllegalStateException("no ID in " + entry);
		}
		return id.group(1);
	}

	/**
	 * Shutdown hook: SIGKILL (works on paused processes too) every member this JVM
	 * started, delete their data.
	 */
	private static void destroyAllOnShutdown() {
		for (EtcdMember member : live) {
			Process current = member.process;
			if (current != null && current.isAlive()) {
				current.destroyForcibly();
			}
		}
		for (EtcdMember member : live) {
			Process current = member.process;
			if (current != null) {
				try {
					current.waitFor(2, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			member.deleteData();
			member.dir.delete();
		}
	}

	@Override
	public String toString() {
		return "etcd member " + this.name + " " + endpoint() + " (pid " + pid() + ")";
	}

	/** A port was taken between picking it and binding it. */
	static final class PortInUse extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		PortInUse(String message) {
			super(message);
		}

	}

}
