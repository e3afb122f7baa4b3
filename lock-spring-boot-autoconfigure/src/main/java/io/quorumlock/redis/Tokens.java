package io.quorumlock.redis;

import java.security.SecureRandom;

/**
 * Lease tokens: 20 random bytes (160 bits) from {@link SecureRandom}, as 40 hex
 * characters. Unguessable, so no other client can forge a release or an extension.
 */
final class Tokens {

	static final int BYTES = 20;

	private static final char[] HEX = "0123456789abcdef".toCharArray();

	private final SecureRandom random;

	Tokens(SecureRandom random) {
		this.random = random;
	}

	String next() {
		byte[] bytes = new byte[BYTES];
		this.random.nextBytes(bytes);
		char[] out = new char[BYTES * 2];
		for (int i = 0; i < BYTES; i++) {
			out[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
			out[2 * i + 1] = HEX[bytes[i] & 0xF];
		}
		return new String(out);
	}

}
