package io.quorumlock.redis;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import io.quorumlock.redis.node.Script;

/**
 * Redis key naming and tokens.
 */
class LockKeysTests {

	@Test
	void namedKeyIsPrefixNameAndHashTaggedKey() {
		String key = LockKeys.lockKey("lock:", "orders", "42");
		assertThat(key).isEqualTo("lock:orders:{42}");
		assertThat(LockKeys.fenceKey(key)).isEqualTo("lock:orders:{42}:fence");
		assertThat(LockKeys.channel(key)).isEqualTo("lock:orders:{42}:released");
	}

	@Test
	void theKeysQuorumlockKeepsForItselfAreReserved() {
		assertThat(LockKeys.isReserved("", "quorumlock:marker")).isTrue();
		assertThat(LockKeys.isReserved("", "quorumlock:anything")).isTrue();
		assertThat(LockKeys.isReserved("jobs", "quorumlock:marker")).isFalse();
		assertThat(LockKeys.isReserved("", "orders:quorumlock:marker")).isFalse();
		assertThat(LockKeys.isOwnKey("lock:", "lock:{quorumlock:marker}")).isTrue();
		assertThat(LockKeys.isOwnKey("lock:", "lock:{quorumlock:probe}:released")).isTrue();
		assertThat(LockKeys.isOwnKey("lock:", "lock:jobs:{quorumlock:marker}")).isFalse();
	}

	@Test
	void unnamedKeyHasNoNameSegment() {
		assertThat(LockKeys.lockKey("lock:", "", "order:42")).isEqualTo("lock:{order:42}");
	}

	@Test
	void everyDerivedNameSharesTheHashTag() {
		String key = LockKeys.lockKey("app:", "n", "a}b");
		for (String name : new String[] { key, LockKeys.fenceKey(key), LockKeys.channel(key) }) {
			assertThat(hashTag(name)).isEqualTo("a");
		}
	}

	@Test
	void keysWithBracesShareOneNonEmptyHashSlotWithTheirDerivedNames() {
		for (String key : new String[] { "}", "}a", "}}", "{}", "{", "a{b}c", "a}b", "}{x}", "{}}" }) {
			String lockKey = LockKeys.clusterLockKey("lock:", "n", key);
			int slot = SlotHash.getSlot(lockKey);
			assertThat(SlotHash.getSlot(LockKeys.fenceKey(lockKey))).as("fence counter of key %s", key).isEqualTo(slot);
			assertThat(SlotHash.getSlot(LockKeys.channel(lockKey))).as("channel of key %s", key).isEqualTo(slot);
			assertThat(redisHashTag(lockKey)).as("hash tag of key %s (%s)", key, lockKey).isNotEmpty();
		}
	}

	@Test
	void keysStartingWithABraceStayDistinct() {
		Set<String> names = new HashSet<>();
		for (String key : new String[] { "}", "}a", "#}a", "#}a}#", "}a}#", "a", "}}", "#}}", "#" }) {
			assertThat(names.add(LockKeys.clusterLockKey("lock:", "", key))).as("key %s", key).isTrue();
		}
	}

	/** Redis Cluster's rule: the hash tag, or null if the whole key is hashed. */
	private static String redisHashTag(String key) {
		int open = key.indexOf('{');
		int close = (open < 0) ? -1 : key.indexOf('}', open + 1);
		return (close < 0 || close == open + 1) ? null : key.substring(open + 1, close);
	}

	/** The part of a key Redis Cluster hashes: between the first '{' and the next '}'. */
	private static String hashTag(String key) {
		int open = key.indexOf('{');
		int close = key.indexOf('}', open + 1);
		return key.substring(open + 1, close);
	}

	@Test
	void tokensAre160RandomBitsInHex() {
		Tokens tokens = new Tokens(new SecureRandom());
		Set<String> seen = new HashSet<>();
		for (int i = 0; i < 10_000; i++) {
			String token = tokens.next();
			assertThat(token).hasSize(40).matches("[0-9a-f]{40}");
			assertThat(seen.add(token)).isTrue();
		}
	}

	@Test
	void scriptShaIsTheSha1OfItsText() {
		assertThat(Script.of("t", "return 1").sha1()).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
	}

}
