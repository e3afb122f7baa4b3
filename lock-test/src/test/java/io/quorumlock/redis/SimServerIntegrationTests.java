package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisErrorReply;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Script;
import io.quorumlock.redis.node.SharedScripts;

/**
 * Holds the simulation's Redis ({@link SimServer} with the scripts on {@link SimLua}) to
 * a real {@code redis-server}: the same command sequences, the engine's own scripts among
 * them, get the same answers from both (time-valued answers within a tolerance, since the
 * two clocks differ).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimServerIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	/** How an answer is compared. */
	private enum Compare {

		/** The same answer. */
		EXACT,
		/** A TTL in milliseconds, within 250 ms. */
		TTL,
		/** A flat field/value list: the same fields in the same order. */
		FIELDS,
		/** An error with the same first word, or else the same answer. */
		ERROR_CODE,
		/** An integer of as many digits (a counter seeded from TIME, in microseconds). */
		MAGNITUDE,
		/**
		 * The same answer once each server's own ids (40 hex digits: {@code run_id},
		 * {@code master_replid}) are read as one.
		 */
		IDS

	}

	private record Step(Compare compare, String[] command) {
	}

	/** Stands in a command for the server's own {@code master_replid}. */
	private static final String REPLID = "$replid";

	private final List<Step> steps = new ArrayList<>();

	private void step(Compare compare, String... command) {
		this.steps.add(new Step(compare, command));
	}

	private void eval(Compare compare, Script script, int keys, String... rest) {
		String[] command = new String[3 + rest.length];
		command[0] = "EVALSHA";
		command[1] = script.sha1();
		command[2] = Integer.toString(keys);
		System.arraycopy(rest, 0, command, 3, rest.length);
		step(compare, command);
	}

	private static Object real(String... command) {
		try {
			return normalize(redis.node(0).call(command));
		}
		catch (RedisErrorReply ex) {
			return "(error) " + ex.getMessage();
		}
	}

	private static Object simulated(SimServer server, String... command) {
		return normalize(server.call(command));
	}

	private static Object normalize(Object reply) {
		if (reply instanceof SimServer.Status status) {
			return status.text();
		}
		if (reply instanceof SimServer.Err error) {
			return "(error) " + error.text();
		}
		if (reply instanceof List<?> list) {
			List<Object> normalized = new ArrayList<>();
			list.forEach((element) -> normalized.add(normalize(element)));
			return normalized;
		}
		return reply;
	}

	@Test
	void theEnginesScriptsAnswerAsOnARealServer() {
		for (Script script : RedisNode.SCRIPTS) {
			step(Compare.EXACT, "SCRIPT", "LOAD", script.text());
		}
		String m = "lock:{quorumlock:marker}";
		String p = "lock:{quorumlock:pending}";
		String g = "lock:{quorumlock:guards}";
		String k = "lock:{k}";
		// the restart guard: no marker, a pending nonce, the marker written
		eval(Compare.EXACT, Script.ACQUIRE, 2, k, m, "t1", "5000");
		eval(Compare.IDS, Script.GUARD_READ, 3, m, p, g, "nonce1", "3000", "e-3000", "who", "60000");
		eval(Compare.IDS, Script.GUARD_READ, 3, m, p, g, "nonce2", "2000", "e-2000", "who", "60000");
		eval(Compare.EXACT, Script.GUARD_PROMOTE, 2, m, p, "nonce2", "id1", "3000", "run1");
		eval(Compare.EXACT, Script.GUARD_PROMOTE, 2, m, p, "nonce1", "id1", "3000", "run1");
		eval(Compare.EXACT, Script.ACQUIRE, 2, k, m, "t0", "5000");
		eval(Compare.EXACT, Script.RELEASE, 1, k, "t0", "ch");
		// vetting, suspicion, and the grant refused under another replication history
		eval(Compare.EXACT, Script.GUARD_VET, 1, m, "id2", "run2", REPLID, "");
		eval(Compare.EXACT, Script.GUARD_VET, 1, m, "id1", "run2", "another", "");
		eval(Compare.EXACT, Script.GUARD_VET, 1, m, "id1", "run2", REPLID, "");
		step(Compare.EXACT, "HSET", m, "replid", "another");
		eval(Compare.EXACT, Script.ACQUIRE, 2, k, m, "t0", "5000");
		eval(Compare.EXACT, SharedScripts.ACQUIRE, 2, k, m, "t0", "5000");
		eval(Compare.EXACT, Script.GUARD_SUSPECT, 1, m, "id1", "n7 r7", "");
		eval(Compare.EXACT, Script.GUARD_SUSPECT, 1, m, "id1", "n8 r8", "");
		eval(Compare.EXACT, Script.GUARD_SUSPECT, 1, m, "id2", "n8 r8", "n7 r7");
		eval(Compare.EXACT, Script.GUARD_VET, 1, m, "id1", "run2", REPLID, "");
		eval(Compare.EXACT, Script.GUARD_VET, 1, m, "id1", "run2", REPLID, "n7 r7");
		eval(Compare.IDS, Script.GUARD_READ, 3, m, p, g, "nonce3", "4000", "e-4000", "who", "60000");
		step(Compare.FIELDS, "HGETALL", m);
		// a master seen evicting: the marker goes, a new nonce, the longest guard kept
		eval(Compare.EXACT, Script.GUARD_EVICTED, 2, m, p, "nonce4", "3500");
		step(Compare.FIELDS, "HGETALL", p);
		eval(Compare.EXACT, Script.ACQUIRE, 2, k, m, "t1", "5000");
		eval(Compare.EXACT, Script.GUARD_EVICTED, 2, m, p, "nonce5", "6000");
		eval(Compare.IDS, Script.GUARD_READ, 3, m, p, g, "nonce6", "4000", "e-4000", "who", "60000");
		eval(Compare.EXACT, Script.GUARD_PROMOTE, 2, m, p, "nonce5", "id1", "6000", "run1", "another");
		eval(Compare.EXACT, Script.GUARD_PROMOTE, 2, m, p, "nonce5", "id1", "6000", "run1", REPLID);
		step(Compare.FIELDS, "HGETALL", m);
		// an exclusive grant, its renewal, batch, hold, fencing, release
		eval(Compare.EXACT, Script.ACQUIRE, 2, k, m, "t1", "5000");
		eval(Compare.EXACT, Script.ACQUIRE, 2, k, m, "t2", "5000");
		eval(Compare.EXACT, Script.ACQUIRE, 2, "lock:{hex}", m, "9f3a0c5b7e21d4a6b8c0", "5000");
		eval(Compare.EXACT, Script.ACQUIRE, 2, "lock:{hex}", m, "0123456789abcdef0123", "5000");
		eval(Compare.EXACT, Script.ACQUIRE, 1, "lock:{hex}", "0123456789abcdef0123", "5000");
		step(Compare.TTL, "PTTL", k);
		eval(Compare.EXACT, Script.EXTEND, 1, k, "t2", "9000");
		eval(Compare.EXACT, Script.EXTEND, 1, k, "t1", "9000");
		step(Compare.TTL, "PTTL", k);
		step(Compare.EXACT, "HSET", "lock:{h}", "f", "v");
		eval(Compare.ERROR_CODE, Script.EXTEND_MANY, 3, k, "lock:{none}", "lock:{h}", "t1", "7000", "t1", "7000", "t1",
				"7000");
		step(Compare.TTL, "PTTL", k);
		eval(Compare.EXACT, Script.HOLD, 1, k, "t1", "3000");
		step(Compare.TTL, "PTTL", k);
		eval(Compare.MAGNITUDE, Script.FENCE_INCREMENT, 2, k, k + ":fence", "t1", "60000");
		eval(Compare.EXACT, Script.FENCE_INCREMENT, 2, k, k + ":fence", "t2", "60000");
		eval(Compare.EXACT, Script.FENCE_RAISE, 2, k, k + ":fence", "t1", "9999999999999999", "60000");
		step(Compare.EXACT, "GET", k + ":fence");
		eval(Compare.EXACT, Script.FENCE_RAISE, 2, k, k + ":fence", "t1", "5", "60000");
		step(Compare.EXACT, "GET", k + ":fence");
		eval(Compare.EXACT, Script.FENCE_INCREMENT, 2, k, k + ":fence", "t1", "60000");
		step(Compare.TTL, "PTTL", k + ":fence");
		eval(Compare.EXACT, Script.RELEASE, 1, k, "t2", "ch");
		eval(Compare.EXACT, Script.RELEASE, 1, k, "t1", "ch");
		step(Compare.EXACT, "EXISTS", k);
		// the queue a release hands the key over to, on one standalone master
		String q = "lock:{q}";
		String queue = q + ":queue";
		String first = "1111111111111111000000000000000000000001";
		String second = "2222222222222222000000000000000000000002";
		eval(Compare.EXACT, Script.QUEUE, 2, q, queue, first, "5000", "1000");
		eval(Compare.EXACT, Script.QUEUE, 2, q, queue, second, "5000", "1000", "ch:e2");
		eval(Compare.EXACT, Script.QUEUE, 2, q, queue, "3333333333333333000000000000000000000003", "5000", "1000");
		step(Compare.EXACT, "HLEN", queue);
		step(Compare.TTL, "PTTL", queue);
		eval(Compare.EXACT, Script.RELEASE_HANDOFF, 2, q, queue, second, "ch");
		eval(Compare.EXACT, Script.RELEASE_HANDOFF, 2, q, queue, first, "ch");
		step(Compare.EXACT, "GET", q);
		step(Compare.TTL, "PTTL", q);
		step(Compare.EXACT, "HLEN", queue);
		eval(Compare.EXACT, Script.QUEUE, 2, q, queue, "2222222222222222000000000000000000000009", "5000", "1000");
		step(Compare.EXACT, "GET", q);
		eval(Compare.EXACT, Script.RELEASE_HANDOFF, 2, q, queue, "3333333333333333", "ch");
		step(Compare.EXACT, "HLEN", queue);
		eval(Compare.EXACT, Script.RELEASE_HANDOFF, 2, q, queue, "2222222222222222000000000000000000000009", "ch");
		step(Compare.EXACT, "EXISTS", q);
		// a queued round on a key held shared marks the exclusive intent
		step(Compare.EXACT, "HSET", "lock:{qs}", "s:x", "99999999999999");
		eval(Compare.EXACT, Script.QUEUE, 2, "lock:{qs}", "lock:{qs}:queue", first, "5000", "1000");
		step(Compare.EXACT, "HEXISTS", "lock:{qs}", "w");
		// shared holds, the intent mark, and the exclusive side of them
		String s = "lock:{s}";
		eval(Compare.EXACT, SharedScripts.ACQUIRE, 2, s, m, "s1", "5000");
		eval(Compare.EXACT, SharedScripts.ACQUIRE, 2, s, m, "s2", "8000");
		step(Compare.EXACT, "SET", s, "x", "NX", "PX", "1000");
		eval(Compare.EXACT, Script.ACQUIRE, 2, s, m, "x1", "5000");
		step(Compare.EXACT, "TYPE", s);
		step(Compare.TTL, "PTTL", s);
		eval(Compare.EXACT, Script.ACQUIRE, 2, s, m, "aa", "5000");
		eval(Compare.EXACT, SharedScripts.INTENT, 1, s, "2000");
		eval(Compare.EXACT, SharedScripts.ACQUIRE, 2, s, m, "s3", "5000");
		eval(Compare.EXACT, SharedScripts.EXTEND, 1, s, "s1", "9000");
		eval(Compare.EXACT, SharedScripts.EXTEND, 1, s, "nobody", "9000");
		step(Compare.TTL, "PTTL", s);
		eval(Compare.EXACT, SharedScripts.HOLD, 1, s, "s2", "1500", "ch");
		step(Compare.FIELDS, "HGETALL", s);
		eval(Compare.EXACT, SharedScripts.RELEASE, 1, s, "s1", "ch");
		step(Compare.TTL, "PTTL", s);
		eval(Compare.EXACT, SharedScripts.RELEASE, 1, s, "s2", "ch");
		step(Compare.EXACT, "EXISTS", s);
		eval(Compare.EXACT, SharedScripts.INTENT, 1, s, "2000");
		step(Compare.EXACT, "SET", s, "x", "NX", "PX", "1000");
		eval(Compare.EXACT, SharedScripts.ACQUIRE, 2, s, m, "s4", "5000");
		eval(Compare.EXACT, SharedScripts.ACQUIRE, 1, "lock:{s5}", "s5", "5000");
		eval(Compare.EXACT, SharedScripts.RELEASE, 1, s, "x", "ch");
		eval(Compare.EXACT, Script.FORCE_RELEASE, 1, s, "ch");
		eval(Compare.EXACT, Script.FORCE_RELEASE, 1, s, "ch");
		// plain commands and errors
		step(Compare.ERROR_CODE, "EVALSHA", "0000000000000000000000000000000000000000", "0");
		step(Compare.ERROR_CODE, "INCR", "lock:{h}");
		step(Compare.EXACT, "INCR", "counter");
		step(Compare.EXACT, "PEXPIRE", "counter", "0");
		step(Compare.EXACT, "EXISTS", "counter");
		step(Compare.EXACT, "PTTL", "lock:{quorumlock:marker}");
		step(Compare.EXACT, "PTTL", "missing");
		step(Compare.EXACT, "HDEL", "lock:{h}", "f");
		step(Compare.EXACT, "EXISTS", "lock:{h}");
		step(Compare.EXACT, "SCRIPT", "FLUSH");
		step(Compare.ERROR_CODE, "EVALSHA", Script.RELEASE.sha1(), "1", k, "t1", "ch");
		step(Compare.EXACT, "CONFIG", "GET", "maxmemory-policy");
		step(Compare.EXACT, "CONFIG", "GET", "no-such-parameter");
		step(Compare.EXACT, "FLUSHALL");
		step(Compare.EXACT, "DBSIZE");

		SimServer server = new SimServer("sim", new SimLoop(1, false), SimRun.WALL_EPOCH, 0, "noeviction", 0);
		redis.node(0).flushAll();
		real("SCRIPT", "FLUSH");
		for (Step step : this.steps) {
			Object expected = real(own(step.command, replid(real("INFO", "replication"))));
			Object actual = simulated(server, own(step.command, replid(simulated(server, "INFO", "replication"))));
			String what = String.join(" ", step.command);
			switch (step.compare) {
				case EXACT -> assertThat(actual).as(what).isEqualTo(expected);
				case TTL -> assertThat((Long) actual).as(what).isCloseTo((Long) expected, within(250L));
				case FIELDS -> assertThat(fields(actual)).as(what).isEqualTo(fields(expected));
				case ERROR_CODE -> assertThat(errorCodes(actual)).as(what).isEqualTo(errorCodes(expected));
				case MAGNITUDE -> assertThat(String.valueOf(actual)).as(what).hasSameSizeAs(String.valueOf(expected));
				case IDS -> assertThat(ids(actual)).as(what).isEqualTo(ids(expected));
			}
		}
	}

	private static String replid(Object info) {
		for (String line : String.valueOf(info).split("\r?\n")) {
			if (line.startsWith("master_replid:")) {
				return line.substring("master_replid:".length()).trim();
			}
		}
		throw new IllegalStateException("no master_replid in " + info);
	}

	private static String[] own(String[] command, String replid) {
		String[] own = command.clone();
		for (int i = 0; i < own.length; i++) {
			if (own[i].equals(REPLID)) {
				own[i] = replid;
			}
		}
		return own;
	}

	/** Every 40-hex-digit id in an answer read as one. */
	private static Object ids(Object answer) {
		if (answer instanceof List<?> list) {
			return list.stream().map(SimServerIntegrationTests::ids).toList();
		}
		return (answer instanceof String text && text.matches("[0-9a-f]{40}")) ? "<id>" : answer;
	}

	private static List<Object> fields(Object flat) {
		List<Object> fields = new ArrayList<>();
		List<?> list = (List<?>) flat;
		for (int i = 0; i < list.size(); i += 2) {
			fields.add(list.get(i));
		}
		return fields;
	}

	/** Error answers reduced to their first word, anywhere in the answer. */
	private static Object errorCodes(Object answer) {
		if (answer instanceof List<?> list) {
			return list.stream().map(SimServerIntegrationTests::errorCodes).toList();
		}
		if (answer instanceof String text) {
			String body = text.startsWith("(error) ") ? text.substring(8) : text;
			int space = body.indexOf(' ');
			return (space < 0) ? body : body.substring(0, space);
		}
		return answer;
	}

}
