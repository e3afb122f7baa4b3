package io.quorumlock.redis.node;

/**
 * The Lua scripts of shared locks ({@link io.quorumlock.LockMode#SHARED}), one per step
 * as for exclusive locks ({@link Script}), and the intent mark a waiting exclusive
 * request leaves on a shared key.
 * <p>
 * Representation, per node: an exclusive holder is today's plain string key (its token,
 * {@code SET NX PX}); shared holders are a hash at the same key, one field
 * {@code s:<token>} per holder whose value is its expiry in the node's milliseconds
 * ({@code TIME}), and the key's own TTL is the latest of those expiries. So on each node
 * a key is either one exclusive token or a set of shared tokens, never both: the
 * exclusive {@code SET NX} fails on a hash (the key exists), and the shared scripts grant
 * nothing on a string. Invariants every script keeps:
 * <ul>
 * <li>the key's {@code PTTL} is the latest live shared expiry (an acquire or extend only
 * raises it; a release or hold recomputes it), so the hash disappears when its last
 * holder's expiry passes, even if no script runs;</li>
 * <li>a hash with no live shared field is deleted at once (and the release published), so
 * an exclusive {@code SET NX} is never held off by leftovers;</li>
 * <li>an expired field grants nothing: extend and hold check it against {@code TIME};
 * </li>
 * <li>field {@code w} (an exclusive request's intent, its own expiry as value) refuses
 * new shared grants while it lasts, but never keeps the key alive.</li>
 * </ul>
 */
public final class SharedScripts {

	/** The node's clock in milliseconds, as a Lua number. */
	private static final String NOW = """
			local clock = redis.call('time')
			local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
			""";

	/**
	 * Drop expired shared fields, then delete the key and publish on {@code channel} if
	 * none is left, else set its TTL to the latest expiry left.
	 */
	private static final String TIDY = """
			local latest = 0
			local fields = redis.call('hgetall', KEYS[1])
			for i = 1, #fields, 2 do
				if string.sub(fields[i], 1, 2) == 's:' then
					local expiry = tonumber(fields[i + 1])
					if expiry <= now then
						redis.call('hdel', KEYS[1], fields[i])
					elseif expiry > latest then
						latest = expiry
					end
				end
			end
			if latest == 0 then
				redis.call('del', KEYS[1])
				redis.call('publish', channel, '1')
			else
				redis.call('pexpire', KEYS[1], string.format('%d', latest - now))
			end
			""";

	/**
	 * Shared grant. KEYS[1] lock key, KEYS[2] (under the restart guard) the master's
	 * dataset marker; ARGV[1] token, ARGV[2] lease in milliseconds. Returns 1 if this
	 * token is now a shared holder, 0 if an exclusive holder has the key or a waiting
	 * exclusive request's intent is there, -1 if the dataset marker is missing or names
	 * another replication history (see {@link Script#ACQUIRE}).
	 */
	public static final Script ACQUIRE = Script.of("shared-acquire", Script.VETTED + NOW + """
			local kind = redis.call('type', KEYS[1]).ok
			if kind == 'string' then
				return 0
			end
			if kind == 'hash' then
				local intent = redis.call('hget', KEYS[1], 'w')
				if intent and tonumber(intent) > now then
					return 0
				end
			elseif kind ~= 'none' then
				return 0
			end
			local lease = tonumber(ARGV[2])
			redis.call('hset', KEYS[1], 's:' .. ARGV[1], string.format('%d', now + lease))
			if redis.call('pttl', KEYS[1]) < lease then
				redis.call('pexpire', KEYS[1], ARGV[2])
			end
			return 1
			""");

	/**
	 * Shared renewal. KEYS[1] lock key; ARGV[1] token, ARGV[2] lease in milliseconds.
	 * Returns 1 if this token's unexpired shared hold was extended to the lease, else 0.
	 */
	public static final Script EXTEND = Script.of("shared-extend", NOW + """
			if redis.call('type', KEYS[1]).ok ~= 'hash' then
				return 0
			end
			local field = 's:' .. ARGV[1]
			local expiry = redis.call('hget', KEYS[1], field)
			if not expiry or tonumber(expiry) <= now then
				return 0
			end
			local lease = tonumber(ARGV[2])
			redis.call('hset', KEYS[1], field, string.format('%d', now + lease))
			if redis.call('pttl', KEYS[1]) < lease then
				redis.call('pexpire', KEYS[1], ARGV[2])
			end
			return 1
			""");

	/**
	 * Shared release. KEYS[1] lock key; ARGV[1] token, ARGV[2] release channel. Returns 1
	 * if this token was a shared holder and is no more; the release is published when it
	 * was the last one.
	 */
	public static final Script RELEASE = Script.of("shared-release", NOW + """
			if redis.call('type', KEYS[1]).ok ~= 'hash' then
				return 0
			end
			if redis.call('hdel', KEYS[1], 's:' .. ARGV[1]) == 0 then
				return 0
			end
			local channel = ARGV[2]
			""" + TIDY + """
			return 1
			""");

	/**
	 * Shared release before {@code holdAtLeast}: this token's hold stays for the
	 * remainder. KEYS[1] lock key; ARGV[1] token, ARGV[2] the remainder in milliseconds,
	 * ARGV[3] release channel. Returns 1 if this token's unexpired hold now ends then,
	 * else 0.
	 */
	public static final Script HOLD = Script.of("shared-hold", NOW + """
			if redis.call('type', KEYS[1]).ok ~= 'hash' then
				return 0
			end
			local field = 's:' .. ARGV[1]
			local expiry = redis.call('hget', KEYS[1], field)
			if not expiry or tonumber(expiry) <= now then
				return 0
			end
			redis.call('hset', KEYS[1], field, string.format('%d', now + tonumber(ARGV[2])))
			local channel = ARGV[3]
			""" + TIDY + """
			return 1
			""");

	/**
	 * A waiting exclusive request's intent: on a key held shared, refuse new shared
	 * grants for {@code ARGV[1]} milliseconds. KEYS[1] lock key. Returns 1 if the mark
	 * was set, 0 if the key is not held shared (free, or held exclusively).
	 */
	public static final Script INTENT = Script.of("exclusive-intent", NOW + """
			if redis.call('type', KEYS[1]).ok ~= 'hash' then
				return 0
			end
			redis.call('hset', KEYS[1], 'w', string.format('%d', now + tonumber(ARGV[1])))
			return 1
			""");

	private SharedScripts() {
	}

}
