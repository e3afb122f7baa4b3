package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Script;

/**
 * The simulation's teeth: protections of the engine that the simulation can undo, one at
 * a time, without touching the engine, and that it must then catch (a broken invariant)
 * within the schedules a build runs ({@code SimulationTests#teeth}). A protection that
 * lives in a script is undone in the text the simulated masters run (the engine still
 * sends the real script's SHA-1); one that lives in a setting is undone by the setting;
 * one that lives in what a master keeps is undone by the simulated master forgetting it.
 */
enum SimTeeth {

	/** Nothing undone: the engine as it is. */
	NONE("nothing"),

	/**
	 * The granting scripts vote without looking at the dataset marker: a master that lost
	 * its data (restarted empty, flushed, another server behind its address) grants until
	 * the next read of its state.
	 */
	MARKER_CHECK("the dataset marker checked inside the granting scripts", vetted(), ""),

	/**
	 * The granting scripts check only that a marker is there, not that it names the
	 * server's own replication history: a server switched behind a connection that stays
	 * open (a proxy, a managed endpoint), with the scripts loaded by another client,
	 * grants with the marker it copied until the next read of its state.
	 */
	REPLID_CHECK("the replication id checked inside the granting scripts", vetted(), """
			if #KEYS > 1 and redis.call('exists', KEYS[2]) == 0 then
				return -1
			end
			"""),

	/**
	 * The guard does not look at {@code master_replid2}: the process it vetted, resynced
	 * from a lagging replica and failed back, is vetted again at once.
	 */
	HISTORY_CHECK("a promotion (master_replid2) seen by the guard's read",
			"local replid2 = string.match(replication, 'master_replid2:(%x+)') or ''", "local replid2 = ''"),

	/**
	 * The guard does not look at the replication history of the very process it vetted: a
	 * master resynced from a lagging replica and failed back (same {@code run_id}, same
	 * connections) is vetted again at once.
	 */
	FAILBACK_HISTORY("the replication history of the process the guard vetted",
			"role, replid, replid2, runid, by, others}",
			"role, replid, (field('vetted') == runid) and '' or replid2, runid, by, others}"),

	/**
	 * A master forgets, when it restarts, what the guard suspects of it and that it was
	 * seen with replicas, as if both lived only in the engines' memory: a promoted
	 * replica that restarts from its append-only file during its hold-back is vetted as a
	 * restart that kept every write.
	 */
	SUSPICION_ON_THE_MASTER("the suspicion and the replicas seen, recorded on the master itself"),

	/**
	 * Each engine holds a master back for its own guard only, not for the longest one its
	 * clients recorded: an engine whose guard is shorter than another's lease trusts a
	 * master that lost that lease's key too early.
	 */
	LONGEST_GUARD("the longest guard recorded on a master adopted", "if g > guard then", "if false then"),

	/**
	 * Masters that can evict lock keys vote ({@code allowEvictingMasters(true)}): a key
	 * evicted under memory pressure is granted again.
	 */
	EVICTION_IS_A_LOSS("a master seen evicting held back as one that lost its data");

	final String protection;

	private final String from;

	private final String to;

	private final Map<String, String> undoneTexts = new ConcurrentHashMap<>();

	SimTeeth(String protection) {
		this(protection, null, null);
	}

	SimTeeth(String protection, String from, String to) {
		this.protection = protection;
		this.from = from;
		this.to = to;
	}

	/**
	 * The start of the granting scripts under the restart guard, as the engine has it.
	 */
	private static String vetted() {
		String text = Script.ACQUIRE.text();
		return text.substring(0, text.indexOf("if redis.call('set'"));
	}

	/** A script's text as the simulated masters run it with this protection undone. */
	String script(String text) {
		if (this.from == null) {
			return text;
		}
		return this.undoneTexts.computeIfAbsent(text, (t) -> t.replace(this.from, this.to));
	}

	/**
	 * The engine's scripts this protection's undoing changes; empty for one undone
	 * elsewhere. A script change that this no longer matches shows here.
	 */
	List<String> scriptsChanged() {
		List<String> changed = new ArrayList<>();
		if (this.from != null) {
			for (Script script : RedisNode.SCRIPTS) {
				if (!script(script.text()).equals(script.text())) {
					changed.add(script.name());
				}
			}
		}
		return changed;
	}

	/** Whether undoing it changes a script (else a setting or the masters' model). */
	boolean inScripts() {
		return this.from != null;
	}

}
