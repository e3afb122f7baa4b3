package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import io.quorumlock.redis.node.RedisNode;

/**
 * Masters identified by what each server says about itself, its {@code run_id} (read with
 * the uptime on every (re)connect), so that one master listed under two names
 * ({@code localhost} and {@code 127.0.0.1}, a DNS alias) is one voter: among the entries
 * whose server reports the same {@code run_id}, the first in configuration order votes
 * and the others do not. In quorum mode an entry votes only once its server's
 * {@code run_id} is known on its current connection, so a reconnect that lands on a
 * server another entry already reaches is caught before the entry votes again. Duplicates
 * known at start-up refuse the build; found later, they are logged at ERROR once per pair
 * and shown in the status.
 */
final class SameServer {

	private static final System.Logger log = System.getLogger(SameServer.class.getName());

	private final List<RedisNode> nodes;

	/** Pairs already logged, as "later->first" entry indexes. */
	private final Set<String> logged = ConcurrentHashMap.newKeySet();

	/** The run_id of the node at an index, made once (asked on every vote). */
	private final IntFunction<String> runIdAt;

	SameServer(List<RedisNode> nodes) {
		this.nodes = nodes;
		this.runIdAt = (i) -> nodes.get(i).runId();
	}

	/**
	 * The first entry, in configuration order, that reports the same {@code run_id} as
	 * entry {@code index}; -1 if none, or if the entry's own {@code run_id} is unknown.
	 * @param runIdOf each entry's {@code run_id}, null when unknown
	 */
	static int firstWithSameId(IntFunction<String> runIdOf, int index) {
		String id = runIdOf.apply(index);
		if (id == null) {
			return -1;
		}
		for (int i = 0; i < index; i++) {
			if (id.equals(runIdOf.apply(i))) {
				return i;
			}
		}
		return -1;
	}

	static int firstWithSameId(List<String> runIds, int index) {
		return firstWithSameId(runIds::get, index);
	}

	/**
	 * One line per entry that is the same server as an earlier one.
	 * @param names the entries as URIs without credentials
	 * @param runIds their {@code run_id}s, null when unknown
	 */
	static List<String> describeDuplicates(List<String> names, List<String> runIds) {
		List<String> lines = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			int first = firstWithSameId(runIds, i);
			if (first >= 0) {
				lines.add("nodes: " + names.get(first) + " and " + names.get(i) + " are the same Redis server (run_id "
						+ runIds.get(i) + "); each master must be listed once, or a quorum would count it twice");
			}
		}
		return lines;
	}

	/**
	 * The refusal of a build whose entries are known to repeat a server; null if none.
	 */
	String startUpRefusal() {
		List<String> names = this.nodes.stream().map(RedisNode::uriText).toList();
		List<String> runIds = this.nodes.stream().map(RedisNode::runId).toList();
		List<String> lines = describeDuplicates(names, runIds);
		return lines.isEmpty() ? null : String.join("; ", lines);
	}

	/**
	 * The earlier entry that reaches the same server as {@code node}, or null; logs the
	 * pair at ERROR the first time it is seen.
	 */
	RedisNode sameServerAs(RedisNode node) {
		int index = this.nodes.indexOf(node);
		int first = firstWithSameId(this.runIdAt, index);
		if (first < 0) {
			return null;
		}
		RedisNode earlier = this.nodes.get(first);
		if (this.logged.add(index + "->" + first)) {
			log.log(Level.ERROR,
					"nodes: " + earlier.uriText() + " and " + node.uriText() + " are the same Redis server (run_id "
							+ node.runId() + "); it is counted once, through " + earlier.uriText()
							+ ", until the configuration lists each master once");
		}
		return earlier;
	}

	/**
	 * Whether {@code node} may vote as far as its identity goes: its {@code run_id} is
	 * known on its current connection and no earlier entry reaches the same server.
	 */
	boolean votes(RedisNode node) {
		return node.runId() != null && sameServerAs(node) == null;
	}

	/** Log any duplicate found since the last check; run now and then by the engine. */
	void check() {
		this.nodes.forEach(this::sameServerAs);
	}

}
