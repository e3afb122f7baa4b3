package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Replies;
import io.quorumlock.redis.node.Timers;

/**
 * The engine's read-only status ({@link RegistryStatus}: nodes, voting, held leases) and
 * its operator actions (force-unlock, the scan for keys without a TTL).
 */
final class EngineStatus {

	private static final System.Logger log = System.getLogger(EngineStatus.class.getName());

	private final List<RedisNode> nodes;

	private final HeldBack heldBack;

	private final Voters voters;

	private final LocalGates gates;

	private final Timers timers;

	private final String keyPrefix;

	/**
	 * The wall clock and the engine's clock at one moment: a node's {@code since} is
	 * mapped through it, so that it reads the same every time.
	 */
	private final Instant anchorWall;

	private final long anchorNanos;

	EngineStatus(List<RedisNode> nodes, HeldBack heldBack, Voters voters, LocalGates gates, Timers timers,
			String keyPrefix) {
		this.nodes = nodes;
		this.heldBack = heldBack;
		this.voters = voters;
		this.gates = gates;
		this.timers = timers;
		this.keyPrefix = keyPrefix;
		this.anchorWall = Instant.now();
		this.anchorNanos = timers.nanoTime();
	}

	/**
	 * Each node: its connection, vote and state; its last failure (while it does not
	 * vote, why not; once it votes, the last failure it had), since when it is in its
	 * state (the engine's clock mapped to the wall clock through one fixed moment) and
	 * its answers.
	 */
	List<RegistryStatus.Node> nodes() {
		List<RegistryStatus.Node> states = new ArrayList<>(this.nodes.size());
		for (RedisNode node : this.nodes) {
			RedisNode same = this.heldBack.sameServerAs(node);
			RegistryStatus.NodeState state = this.heldBack.state(node);
			String lastError = (state == RegistryStatus.NodeState.VOTING) ? node.record().lastFailure()
					: this.heldBack.why(node);
			states.add(new RegistryStatus.Node(node.address(), node.isConnected(),
					Duration.ofNanos(Math.max(0, node.record().lastLatencyNanos())),
					Duration.ofNanos(node.uptimeNanos()), this.heldBack.votes(node),
					Duration.ofNanos(this.heldBack.remainingNanos(node)), (same != null) ? same.address() : null, state,
					lastError, this.anchorWall.plusNanos(node.record().since(state) - this.anchorNanos),
					node.record().answers()));
		}
		return states;
	}

	List<RegistryStatus.HeldLease> leases() {
		long now = this.timers.nanoTime();
		Instant wallNow = Instant.now();
		List<RegistryStatus.HeldLease> held = new ArrayList<>();
		for (RedisLease lease : this.gates.leases()) {
			if (lease.isReleased()) {
				continue;
			}
			held.add(new RegistryStatus.HeldLease(lease.request().request().label(), lease.request().redisKeys(),
					wallNow.minusNanos(now - lease.acquiredAt()), lease.remaining(), lease.knownFencingToken(),
					lease.holds().get(), LockModes.name(lease.request()), LockModes.slot(lease.request())));
		}
		return held;
	}

	int forceUnlock(String redisKey) {
		if (redisKey == null || !redisKey.startsWith(this.keyPrefix) || redisKey.length() == this.keyPrefix.length()) {
			throw new IllegalArgumentException(
					"force-unlock: '" + redisKey + "' is not a lock key under the prefix '" + this.keyPrefix + "'");
		}
		if (LockKeys.isOwnKey(this.keyPrefix, redisKey)) {
			throw new IllegalArgumentException("force-unlock: '" + redisKey + "' is one of quorumlock's own keys "
					+ "(the restart guard's dataset marker or pending record, or the ACL probe), not a lock key; "
					+ "deleting the marker holds the master back for the restart guard");
		}
		log.log(Level.WARNING, "force-unlock of " + redisKey + " requested by an operator");
		return this.voters.forceRelease(redisKey).join().yes();
	}

	List<String> keysWithoutTtl(int limit) {
		String pattern = this.keyPrefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "*";
		List<String> leaks = new ArrayList<>();
		List<CompletableFuture<List<String>>> scans = this.nodes.stream()
			.map((node) -> node.keysWithoutTtl(pattern, limit, 100))
			.toList();
		for (int i = 0; i < scans.size(); i++) {
			try {
				for (String key : scans.get(i).get(10, TimeUnit.SECONDS)) {
					if (leaks.size() < limit) {
						leaks.add(this.nodes.get(i).address() + " " + key);
					}
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
			catch (ExecutionException | TimeoutException ex) {
				leaks.add(this.nodes.get(i).address() + " scan failed: " + Replies.unwrap(ex).getMessage());
			}
		}
		return leaks;
	}

}
