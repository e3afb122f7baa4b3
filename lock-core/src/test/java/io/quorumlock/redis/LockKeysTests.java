package io.quorumlock.redis;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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
