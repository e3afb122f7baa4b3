package io.quorumlock.redis.node;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script and its SHA-1, loaded on every connection of a node in every connection
 * epoch before that connection votes ({@link RedisNode}) and run with EVALSHA; a NOSCRIPT
 * answer is a fault the node recovers from (a new epoch, the scripts loaded again), never
 * a re-send of the text that could land behind later commands. Every script that changes
 * a lock key compares the owner token first; tokens are fresh for every round of an
 * acquisition, so a stale command never matches a later grant.
 */
public record Script(String name, String text, String sha1) {

	/**
	 * The start of a granting script under the restart guard (KEYS[2] the dataset
	 * marker): it returns -1, writing nothing, unless the marker is there and its
	 * {@code replid}, the replication id of the server the guard last vetted, is the
	 * server's own {@code master_replid} as a master. A replication id names one history
	 * of one dataset: Redis draws a new one at every start of a server process, at every
	 * promotion of a replica (its former master's id moves to {@code master_replid2}),
	 * and when a master creates its replication backlog afresh; a replica carries its
	 * master's. So the server behind the connection is checked in the very script that
	 * grants, whatever the connection did: a promoted replica or a restarted process
	 * carries the marker it copied or reloaded, but not as its own history. It costs one
	 * {@code INFO replication} per grant (about 3 us of the server's time on Redis 7.0),
	 * nothing on renewals and releases.
	 */
	static final String VETTED = """
			if #KEYS > 1 then
				local vetted = redis.call('hget', KEYS[2], 'replid')
				if not vetted then
					return -1
				end
				local info = redis.call('info', 'replication')
				if not string.find(info, 'role:master', 1, true)
						or not string.find(info, 'master_replid:' .. vetted .. '\\r', 1, true) then
					return -1
				end
			end
			""";

	/**
	 * The start of a guard script: {@code role}, {@code replid} ({@code master_replid}),
	 * {@code replid2}, {@code replicas} ({@code connected_slaves}) and {@code runid} as
	 * the server running it reports them, read in the same atomic step as the marker.
	 */
	private static final String IDENTITY = """
			local replication = redis.call('info', 'replication')
			local role = string.match(replication, 'role:(%a+)') or ''
			local replid = string.match(replication, 'master_replid:(%x+)') or ''
			local replid2 = string.match(replication, 'master_replid2:(%x+)') or ''
			local replicas = tonumber(string.match(replication, 'connected_slaves:(%d+)') or '0')
			local runid = string.match(redis.call('info', 'server'), 'run_id:(%x+)') or ''
			""";

	/**
	 * A grant in quorum mode: {@code SET NX PX}, and, under the restart guard, only while
	 * the master's dataset marker is there and names the master's own replication history
	 * ({@link #VETTED}), so a master that lost its data (restarted empty, flushed,
	 * another server behind its address) or whose history changed since it was vetted (a
	 * replica promoted, a resync, a restart, a switch behind a connection that stayed
	 * open) refuses to vote inside the very script that would grant
	 * ({@link ServerState}). A refusal names its holder, so that a round can tell a split
	 * vote (several contenders, none with a quorum) from a key held by one. KEYS[1] lock
	 * key, KEYS[2] (under the restart guard) the dataset marker; ARGV[1] token, ARGV[2]
	 * lease in milliseconds. Returns 1 if set, -1 if the marker is missing or names
	 * another replication history (nothing written), -2 - h if the key is held by an
	 * exclusive token whose first 12 hex digits are h, 0 if it is held otherwise (shared
	 * holders, or a value not of quorumlock's).
	 */
	public static final Script ACQUIRE = of("acquire", VETTED + """
			if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
				return 1
			end
			if redis.call('type', KEYS[1]).ok ~= 'string' then
				return 0
			end
			local holder = tonumber(string.sub(redis.call('get', KEYS[1]), 1, 12), 16)
			if not holder then
				return 0
			end
			return -2 - holder
			""");

	/**
	 * Compare-and-delete. KEYS[1] lock key; ARGV[1] token, ARGV[2] release channel.
	 * Returns 1 if this token held the key and it was deleted (and the release
	 * published), else 0.
	 */
	public static final Script RELEASE = of("release", """
			if redis.call('get', KEYS[1]) == ARGV[1] then
				redis.call('del', KEYS[1])
				redis.call('publish', ARGV[2], '1')
				return 1
			end
			return 0
			""");

	/**
	 * A waiting round on one standalone master, for an exclusive acquisition that lost a
	 * round before ({@code QuorumLockEngine}'s hand-off): {@code SET NX PX} as
	 * {@link #ACQUIRE}; where the key is held by another, the waiter's entry in the key's
	 * queue is written (or refreshed, keeping its place) so that a release hands the key
	 * straight over ({@link #RELEASE_HANDOFF}). A waiter is named by its tokens' first 16
	 * hex digits, shared by the rounds of one acquisition (the rest of each token is
	 * fresh); where the key is held by a token of this waiter (handed over before this
	 * round, its message not heard yet), it is moved to this round's token with a full
	 * lease, so that a grant always carries the token and the start of the round that
	 * answers for it. An entry lasts ARGV[3] milliseconds of the server's clock (used
	 * only to pass over waiters that stopped waiting, never for a grant's validity).
	 * Where the key is held shared, the round also marks the exclusive intent for as long
	 * ({@link SharedScripts#INTENT}), so that no separate mark is sent. KEYS[1] lock key,
	 * KEYS[2] its queue; ARGV[1] token, ARGV[2] lease in milliseconds, ARGV[3] how long
	 * the entry lasts in milliseconds, ARGV[4] (optional) the channel a hand-over to this
	 * waiter is published on: its engine's own, which no other engine hears (else the
	 * key's release channel). Returns 1 if this token holds the key now, else 0.
	 */
	public static final Script QUEUE = of("queue", """
			local me = string.sub(ARGV[1], 1, 16)
			if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
				redis.call('hdel', KEYS[2], me)
				return 1
			end
			local kind = redis.call('type', KEYS[1]).ok
			if kind == 'string' and string.sub(redis.call('get', KEYS[1]), 1, 16) == me then
				redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
				redis.call('hdel', KEYS[2], me)
				return 1
			end
			local now = redis.call('time')
			now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
			local expires = string.format('%d', now + tonumber(ARGV[3]))
			if kind == 'hash' then
				redis.call('hset', KEYS[1], 'w', expires)
			end
			local queued = redis.call('hget', KEYS[2], me)
			local ticket
			if queued then
				ticket = string.match(queued, '^%d+')
			else
				ticket = tostring(tonumber(redis.call('hget', KEYS[2], '#') or '0') + 1)
				redis.call('hset', KEYS[2], '#', ticket)
			end
			local entry = ticket .. ' ' .. ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. expires
			if ARGV[4] then
				entry = entry .. ' ' .. ARGV[4]
			end
			redis.call('hset', KEYS[2], me, entry)
			redis.call('pexpire', KEYS[2], ARGV[3])
			return 0
			""");

	/**
	 * Compare-and-delete on one standalone master with waiters queued ({@link #QUEUE}):
	 * the releasing waiter's own entry goes first, then, if ARGV[1] holds the key, the
	 * key is handed to the live entry with the lowest ticket (set to its token with its
	 * lease, the entry removed, its token published on the entry's channel) or, with
	 * nobody queued, deleted and {@code 1} published, as {@link #RELEASE}. Entries past
	 * their time are removed on the way. ARGV[1] is a token, or a waiter's 16-digit name
	 * when it gives up: then any token of that waiter is released. KEYS[1] lock key,
	 * KEYS[2] its queue; ARGV[1] token or waiter, ARGV[2] release channel. Returns 1 if
	 * it held the key, else 0.
	 */
	public static final Script RELEASE_HANDOFF = of("release-handoff", """
			if #ARGV[1] ~= 40 then
				redis.call('hdel', KEYS[2], string.sub(ARGV[1], 1, 16))
			end
			local held = redis.call('get', KEYS[1])
			if not held or string.sub(held, 1, #ARGV[1]) ~= ARGV[1] then
				return 0
			end
			local entries = redis.call('hgetall', KEYS[2])
			if #entries > 0 then
				local now = redis.call('time')
				now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
				local next, first, token, lease, channel
				for i = 1, #entries, 2 do
					if entries[i] ~= '#' then
						local t, k, l, e, c = string.match(entries[i + 1], '^(%d+) (%x+) (%d+) (%d+) ?(.*)$')
						if not t or tonumber(e) < now then
							redis.call('hdel', KEYS[2], entries[i])
						elseif not first or tonumber(t) < first then
							next, first, token, lease, channel = entries[i], tonumber(t), k, l, c
						end
					end
				end
				if next then
					redis.call('hdel', KEYS[2], next)
					redis.call('set', KEYS[1], token, 'PX', lease)
					if channel == '' then
						channel = ARGV[2]
					end
					redis.call('publish', channel, token)
					return 1
				end
			end
			redis.call('del', KEYS[1])
			redis.call('publish', ARGV[2], '1')
			return 1
			""");

	/**
	 * Compare-and-pexpire. KEYS[1] lock key; ARGV[1] token, ARGV[2] new TTL in
	 * milliseconds. Returns 1 if this token holds the key and its TTL was set, else 0.
	 */
	public static final Script EXTEND = of("extend", """
			if redis.call('get', KEYS[1]) == ARGV[1] then
				return redis.call('pexpire', KEYS[1], ARGV[2])
			end
			return 0
			""");

	/**
	 * {@link #EXTEND} on many keys in one call, for the renewals due on one standalone
	 * node ({@link RenewalBatch}). KEYS[i] a lock key; ARGV[2i-1] its token, ARGV[2i] its
	 * new TTL in milliseconds. Returns one answer per key, in order: what {@link #EXTEND}
	 * returns for it (1 extended, 0 not this token's), or, where reading the key failed
	 * (a key of another type), Redis's error text, so that one odd key fails only its own
	 * lease and never the rest of the batch.
	 */
	public static final Script EXTEND_MANY = of("extend-many", """
			local answers = {}
			for i = 1, #KEYS do
				local held = redis.pcall('get', KEYS[i])
				if type(held) == 'table' and held.err then
					answers[i] = held.err
				elseif held == ARGV[2 * i - 1] then
					answers[i] = redis.call('pexpire', KEYS[i], ARGV[2 * i])
				else
					answers[i] = 0
				end
			end
			return answers
			""");

	/**
	 * Compare-and-pexpire on a release that comes before {@code holdAtLeast}: the key
	 * stays for the rest of the minimum hold. KEYS[1] lock key; ARGV[1] token, ARGV[2]
	 * the remainder in milliseconds. Unlike {@link #RELEASE} it publishes nothing, so
	 * waiters are not woken before the key expires. Returns 1 if this token held the key
	 * and its TTL was set, else 0 (a key now held by another token, or gone, is left
	 * alone).
	 */
	public static final Script HOLD = of("hold", """
			-- holdAtLeast: keep the key for the remainder, and wake nobody
			if redis.call('get', KEYS[1]) == ARGV[1] then
				return redis.call('pexpire', KEYS[1], ARGV[2])
			end
			return 0
			""");

	/**
	 * Fencing, step one (and the whole of it on a single node). KEYS[1] lock key, KEYS[2]
	 * fence counter; ARGV[1] token, ARGV[2] counter TTL in milliseconds. Where this token
	 * still holds the lock key: bring the counter up to the node's clock in microseconds
	 * (built as a string, so that no float formatting can round it) if it is missing or
	 * below it, INCR it, refresh its TTL and return it; elsewhere return -1 and change
	 * nothing. Raising a counter that is there, not only seeding a missing one, covers a
	 * master that came back with older data (a snapshot, a promoted replica that lagged):
	 * its counter is present but behind tokens issued before the loss, which were at most
	 * their issue time plus one per token.
	 */
	public static final Script FENCE_INCREMENT = of("fence-increment", """
			if redis.call('get', KEYS[1]) ~= ARGV[1] then
				return -1
			end
			local now = redis.call('time')
			local clock = now[1] .. string.rep('0', 6 - string.len(now[2])) .. now[2]
			local current = redis.call('get', KEYS[2])
			if current == false or tonumber(current) < tonumber(clock) then
				redis.call('set', KEYS[2], clock)
			end
			local value = redis.call('incr', KEYS[2])
			redis.call('pexpire', KEYS[2], ARGV[2])
			return value
			""");

	/**
	 * Fencing, step two in quorum mode. KEYS[1] lock key, KEYS[2] fence counter; ARGV[1]
	 * token, ARGV[2] the token value, ARGV[3] counter TTL in milliseconds. Where this
	 * token still holds the lock key, raise the counter to at least the value (counters
	 * never go down) and return 1; elsewhere return 0.
	 */
	public static final Script FENCE_RAISE = of("fence-raise", """
			if redis.call('get', KEYS[1]) ~= ARGV[1] then
				return 0
			end
			local current = redis.call('get', KEYS[2])
			if current == false or tonumber(current) < tonumber(ARGV[2]) then
				redis.call('set', KEYS[2], ARGV[2])
			end
			redis.call('pexpire', KEYS[2], ARGV[3])
			return 1
			""");

	/**
	 * Whether a lock key is held, for a query that changes nothing: by an exclusive
	 * token, by shared holders, or by anything else at that key. Under the restart guard
	 * it answers only where the master's dataset marker names its own replication history
	 * ({@link #VETTED}): a master that lost its data cannot tell a free key from a lost
	 * one. KEYS[1] lock key, KEYS[2] (under the restart guard) the dataset marker.
	 * Returns 1 if the key exists, 0 if it does not, -1 if the marker is missing or names
	 * another replication history.
	 */
	public static final Script HELD = of("held", VETTED + """
			return redis.call('exists', KEYS[1])
			""");

	/**
	 * Forced unlock by an operator: delete whoever holds it. KEYS[1] lock key; ARGV[1]
	 * release channel. Returns 1 if the key existed.
	 */
	public static final Script FORCE_RELEASE = of("force-release", """
			if redis.call('del', KEYS[1]) == 1 then
				redis.call('publish', ARGV[1], '1')
				return 1
			end
			return 0
			""");

	/**
	 * The restart guard's read of a master's dataset marker ({@link ServerState}), with
	 * the server's own replication history read in the same atomic step, and the record
	 * of this engine's guard. KEYS[1] the dataset marker, KEYS[2] the pending record,
	 * KEYS[3] the guards recorded by the engines of these masters; ARGV[1] a new nonce,
	 * ARGV[2] this engine's restart guard in milliseconds, ARGV[3] this engine's id,
	 * ARGV[4] who it is (host, process), ARGV[5] how long its record lasts unless
	 * renewed, in milliseconds of the server's clock. Returns {found, id, guard, vetted,
	 * replid, suspect, replicated, role, own replid, own replid2, own run_id, by,
	 * others}. Where the marker is there (found 1), id is its dataset id, vetted the
	 * run_id and replid the {@code master_replid} of the server the guard last vetted,
	 * suspect the possible loss recorded on it ("nonce replid", or empty) and replicated
	 * "1" once the dataset was seen with replicas (then a new process cannot be told from
	 * a promoted replica). Where it is not (found 0: the master lost its data), the
	 * pending record names the loss by a nonce, created now by the first engine to see
	 * it. Guard is the longest guard of the engines whose records are live (renewed
	 * within their time: each engine renews its own at every read, about every second),
	 * at least ARGV[2], by whom it was recorded if not this engine (else empty), and
	 * others the longest of the other engines' (0 if none); records past their time are
	 * removed. A replica (role not master) is only read: it takes no writes.
	 */
	public static final Script GUARD_READ = of("guard-read", IDENTITY + """
			local master = role == 'master'
			local found = 0
			local id = false
			if redis.call('exists', KEYS[1]) == 1 then
				found = 1
				id = redis.call('hget', KEYS[1], 'id')
				if master and replicas > 0 then
					redis.call('hset', KEYS[1], 'replicated', '1')
				end
			else
				id = redis.call('hget', KEYS[2], 'nonce')
				if not id and master then
					id = ARGV[1]
					redis.call('hset', KEYS[2], 'nonce', id)
				end
			end
			local clock = redis.call('time')
			local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
			if master then
				redis.call('hset', KEYS[3], ARGV[3],
					ARGV[2] .. ' ' .. string.format('%d', now + tonumber(ARGV[5])) .. ' ' .. ARGV[4])
			end
			local guard = tonumber(ARGV[2])
			local by = ''
			local others = 0
			local records = redis.call('hgetall', KEYS[3])
			for i = 1, #records, 2 do
				local g, e, who = string.match(records[i + 1], '^(%d+) (%d+) ?(.*)$')
				if not g or tonumber(e) < now then
					if master then
						redis.call('hdel', KEYS[3], records[i])
					end
				elseif records[i] ~= ARGV[3] then
					g = tonumber(g)
					if g > others then
						others = g
					end
					if g > guard then
						guard = g
						by = who
					end
				end
			end
			local function field(name)
				if found == 1 then
					return redis.call('hget', KEYS[1], name) or ''
				end
				return ''
			end
			return {found, id or '', guard, field('vetted'), field('replid'), field('suspect'), field('replicated'),
				role, replid, replid2, runid, by, others, field('from')}
			""");

	/**
	 * The end of a master's hold-back after it lost its data: write its dataset marker,
	 * if its data was not lost again meanwhile. KEYS[1] the dataset marker, KEYS[2] the
	 * pending record; ARGV[1] the nonce held back for, ARGV[2] a new dataset id, ARGV[3]
	 * the guard held back for in milliseconds (not recorded: each engine records its own,
	 * {@link #GUARD_READ}), ARGV[4] the run_id of the server process held back, ARGV[5]
	 * its {@code master_replid} as judged (empty if not known); the marker records the
	 * server's own {@code master_replid} as vetted, that it has replicas if it has, and
	 * the nonce it ends ({@code from}), so that an engine still holding back that loss on
	 * the same history goes on from when it first saw it. Returns {1, id} with the
	 * marker's id (the new one, or the one another engine wrote first), or {0} when the
	 * pending record no longer holds the nonce (the data was lost again: the hold-back
	 * starts over) or the server's replication history is not the one held back (a
	 * replica promoted or a process restarted behind the address, which may carry the
	 * same pending record from before grants made since).
	 */
	public static final Script GUARD_PROMOTE = of("guard-promote", IDENTITY + """
			if redis.call('exists', KEYS[1]) == 1 then
				return {1, redis.call('hget', KEYS[1], 'id')}
			end
			if redis.call('hget', KEYS[2], 'nonce') ~= ARGV[1] then
				return {0}
			end
			if role ~= 'master' or (ARGV[5] and ARGV[5] ~= '' and replid ~= ARGV[5]) then
				return {0}
			end
			redis.call('hset', KEYS[1], 'id', ARGV[2], 'vetted', ARGV[4], 'replid', replid, 'from', ARGV[1])
			if replicas > 0 then
				redis.call('hset', KEYS[1], 'replicated', '1')
			end
			redis.call('del', KEYS[2])
			return {1, ARGV[2]}
			""");

	/**
	 * The end of a master's hold-back after its replication history changed (a replica
	 * promoted, a resync, a new server process with the dataset that may lack the last
	 * writes), or the record of a change that lost nothing: record the server as vetted,
	 * its run_id and replication id, and clear the suspicion, if the dataset, the
	 * suspicion and the server's own replication id are still the ones judged. KEYS[1]
	 * the dataset marker; ARGV[1] the dataset id, ARGV[2] the run_id, ARGV[3] the
	 * {@code master_replid} judged, ARGV[4] the suspicion held back for (empty if none).
	 * Returns {1} if recorded, else {0}.
	 */
	public static final Script GUARD_VET = of("guard-vet", IDENTITY + """
			if redis.call('hget', KEYS[1], 'id') ~= ARGV[1] then
				return {0}
			end
			if (redis.call('hget', KEYS[1], 'suspect') or '') ~= ARGV[4] then
				return {0}
			end
			if role ~= 'master' or replid ~= ARGV[3] then
				return {0}
			end
			redis.call('hset', KEYS[1], 'vetted', ARGV[2], 'replid', ARGV[3])
			redis.call('hdel', KEYS[1], 'suspect')
			return {1}
			""");

	/**
	 * A possible loss that kept the marker (the server's replication history is not the
	 * one last vetted): recorded on the master itself, in its marker, so that neither a
	 * restart nor another engine's fresh start forgets it; every engine holds the master
	 * back from when it first sees the suspicion, and the granting scripts refuse on the
	 * master until it is vetted again ({@link #VETTED}, whose replid no longer matches).
	 * KEYS[1] the dataset marker; ARGV[1] the dataset id, ARGV[2] the suspicion ("nonce
	 * replid", the replication id it was raised for), ARGV[3] the suspicion read before
	 * (empty if none). Returns {1, suspicion in force} (the one written, or the one
	 * another engine wrote first, or empty if another engine vetted the master since), or
	 * {0} when the dataset is not the one judged.
	 */
	public static final Script GUARD_SUSPECT = of("guard-suspect", """
			if redis.call('hget', KEYS[1], 'id') ~= ARGV[1] then
				return {0}
			end
			local current = redis.call('hget', KEYS[1], 'suspect') or ''
			if current ~= ARGV[3] then
				return {1, current}
			end
			redis.call('hset', KEYS[1], 'suspect', ARGV[2])
			return {1, ARGV[2]}
			""");

	/**
	 * A master seen evicting, or seen to have evicted keys since the last read: treated
	 * as one that lost its data ({@link ServerState}), since lock keys, which have a TTL,
	 * may have gone. The pending record gets a new nonce, so that every engine holds the
	 * master back from when it first sees that nonce, and the dataset marker goes, so
	 * that the granting scripts refuse on it until the hold-back is over. The marker goes
	 * first: a master out of memory with nothing left to evict refuses the write of the
	 * record, not the delete. KEYS[1] the dataset marker, KEYS[2] the pending record;
	 * ARGV[1] the new nonce, ARGV[2] this engine's restart guard in milliseconds. Returns
	 * {0, nonce, guard}, as {@link #GUARD_READ} does for a master without its marker,
	 * with this engine's guard (the engines' records are read by {@link #GUARD_READ}).
	 */
	public static final Script GUARD_EVICTED = of("guard-evicted", """
			redis.call('del', KEYS[1])
			redis.call('hset', KEYS[2], 'nonce', ARGV[1])
			return {0, ARGV[1], tonumber(ARGV[2])}
			""");

	public static Script of(String name, String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			StringBuilder sb = new StringBuilder(40);
			for (byte b : digest) {
				sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
			}
			return new Script(name, text, sb.toString());
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required by the Java platform", ex);
		}
	}

}
