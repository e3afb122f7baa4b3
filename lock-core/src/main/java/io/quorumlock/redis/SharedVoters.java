package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import io.quorumlock.redis.node.SharedScripts;

/**
 * The rounds of a shared lease ({@link io.quorumlock.LockMode#SHARED}): the same rounds
 * as {@link RedisVoters} (voting, deadlines, restart guard, sync-replicas, the redone
 * release), each running the shared script of its step ({@link SharedScripts}) instead of
 * the exclusive one. A shared grant needs a quorum as an exclusive one does. Fencing is
 * for exclusive holders only and never reaches this class.
 */
final class SharedVoters implements Voters {

	private final RedisVoters redis;

	SharedVoters(RedisVoters redis) {
		this.redis = redis;
	}

	@Override
	public int size() {
		return this.redis.size();
	}

	@Override
	public int quorum() {
		return this.redis.quorum();
	}

	@Override
	public int votingNow() {
		return this.redis.votingNow();
	}

	@Override
	public long quorumPossibleInNanos(long reconnectingNanos) {
		return this.redis.quorumPossibleInNanos(reconnectingNanos);
	}

	@Override
	public long writeRoundNanos() {
		return this.redis.writeRoundNanos();
	}

	@Override
	public Voters shared() {
		return this;
	}

	@Override
	public CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis) {
		return this.redis.write(SharedScripts.ACQUIRE, this.redis.grantKeys(key), RedisVoters.ONE, RedisVoters.GRANTED,
				token, Long.toString(leaseMillis));
	}

	@Override
	public CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis, long timeoutNanos) {
		return this.redis.write(SharedScripts.ACQUIRE, this.redis.grantKeys(key), RedisVoters.ONE, RedisVoters.GRANTED,
				timeoutNanos, token, Long.toString(leaseMillis));
	}

	@Override
	public CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis) {
		return this.redis.write(SharedScripts.EXTEND, new String[] { key }, RedisVoters.ONE, RedisVoters.ONE, token,
				leaseMillis);
	}

	@Override
	public CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis, long timeoutNanos) {
		return this.redis.write(SharedScripts.EXTEND, new String[] { key }, RedisVoters.ONE, RedisVoters.ONE,
				timeoutNanos, token, leaseMillis);
	}

	@Override
	public CompletableFuture<Round.Tally> release(String key, String token, long leaseNanos) {
		String channel = LockKeys.channel(key);
		return this.redis.all(this.redis.quorum(),
				(node) -> node.evalRedone(SharedScripts.RELEASE, leaseNanos, key, token, channel), RedisVoters.ONE);
	}

	@Override
	public CompletableFuture<Round.Tally> keep(String key, String token, long keepMillis, long leaseNanos) {
		String millis = Long.toString(keepMillis);
		String channel = LockKeys.channel(key);
		return this.redis.all(this.redis.quorum(), (node) -> node.eval(SharedScripts.HOLD, key, token, millis, channel),
				RedisVoters.ONE);
	}

	@Override
	public CompletableFuture<Round.Tally> fenceIncrement(String key, String token, String ttlMillis, AtomicLong max) {
		throw new UnsupportedOperationException(LockModes.NO_SHARED_FENCING);
	}

	@Override
	public CompletableFuture<Round.Tally> fenceRaise(String key, String token, String value, String ttlMillis) {
		throw new UnsupportedOperationException(LockModes.NO_SHARED_FENCING);
	}

	@Override
	public CompletableFuture<Round.Tally> forceRelease(String key) {
		return this.redis.forceRelease(key);
	}

}
