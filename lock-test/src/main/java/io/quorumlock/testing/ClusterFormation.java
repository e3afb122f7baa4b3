package io.quorumlock.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes N fresh {@code --cluster-enabled} servers one Redis Cluster of N masters without
 * replicas, the way {@code redis-cli --cluster create} would: node i takes the i-th equal
 * share of the 16384 slots ({@code CLUSTER ADDSLOTS} in batches, which Redis 6.2 has too,
 * unlike {@code ADDSLOTSRANGE}), node 0 meets the others, then every node must report
 * {@code cluster_state:ok} with all slots and all nodes known.
 * <p>
 * The servers run with {@code cluster-require-full-coverage no}, so while one master is
 * down the others keep serving their slots, and they keep their {@code nodes.conf} in
 * their own temp directory, so a restarted master rejoins with its id and slots.
 */
final class ClusterFormation {

	static final int SLOTS = 16384;

	/** Redis opens the cluster bus of a node on its port + 10000. */
	static final int BUS_PORT_OFFSET = 10000;

	private static final int ADDSLOTS_BATCH = 1000;

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(30);

	private ClusterFormation() {
	}

	/** The {@code redis-server} arguments of a cluster node, before any extra ones. */
	static List<String> serverArgs() {
		return List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout",
				"5000", "--cluster-require-full-coverage", "no");
	}

	/** First slot of node {@code index} of {@code size}. */
	static int firstSlot(int index, int size) {
		return (int) ((long) SLOTS * index / size);
	}

	/** Index of the node that owns {@code slot}. */
	static int ownerOf(int slot, int size) {
		for (int i = size - 1; i >= 0; i--) {
			if (slot >= firstSlot(i, size)) {
				return i;
			}
		}
		throw new IllegalArgumentException("slot " + slot + " is outside 0.." + (SLOTS - 1));
	}

	static void form(List<RedisServer> nodes) {
		int size = nodes.size();
		for (int i = 0; i < size; i++) {
			int from = firstSlot(i, size);
			int to = firstSlot(i + 1, size);
			for (int start = from; start < to; start += ADDSLOTS_BATCH) {
				int end = Math.min(to, start + ADDSLOTS_BATCH);
				List<String> command = new ArrayList<>(end - start + 2);
				command.add("CLUSTER");
				command.add("ADDSLOTS");
				for (int slot = start; slot < end; slot++) {
					command.add(Integer.toString(slot));
				}
				nodes.get(i).call(command.toArray(String[]::new));
			}
		}
		RedisServer first = nodes.get(0);
		for (int i = 1; i < size; i++) {
			first.call("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port()));
		}
		awaitOk(nodes);
	}

	/**
	 * Wait until every node reports the whole cluster healthy: state ok, all slots
	 * served, every node known.
	 */
	static void awaitOk(List<RedisServer> nodes) {
		long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
		String last = "";
		while (true) {
			boolean ok = true;
			for (RedisServer node : nodes) {
				String info;
				try {
					info = (String) node.call("CLUSTER", "INFO");
				}
				catch (RuntimeException ex) {
					info = ex.toString();
				}
				if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:" + SLOTS)
						|| !info.contains("cluster_known_nodes:" + nodes.size())) {
					ok = false;
					last = node + ": " + info.replace("\r\n", " ");
					break;
				}
			}
			if (ok) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						"Redis Cluster of " + nodes + " not ok within " + FORMATION_TIMEOUT + "; last: " + last);
			}
			try {
				Thread.sleep(50); // polling another process, no event to wait on
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted while the cluster formed", ex);
			}
		}
	}

	/** The slot of {@code key}, asked of {@code node}. */
	static int slotOf(RedisServer node, String key) {
		return ((Long) node.call("CLUSTER", "KEYSLOT", key)).intValue();
	}

}
