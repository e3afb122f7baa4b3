package io.quorumlock.redis;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lease tokens: 20 random bytes (160 bits) from {@link SecureRandom}, as 40 hex
 * characters. Unguessable, so no other client can forge a release or an extension.
 * <p>
 * The bytes are drawn {@value #BATCH} tokens at a time into one of a few striped pools,
 * so that the generator's own lock and per-call work are paid once per batch rather than
 * on every acquisition. Each byte is handed out once and wiped from the pool as it goes.
 * The pools use {@link ReentrantLock}, not {@code synchronized}, so a virtual thread
 * refilling one does not pin its carrier.
 */
final class Tokens {

	static final int BYTES = 20;

	/** Tokens drawn from the generator per refill of a pool. */
	static final int BATCH = 32;

	private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

	private final Random random;

	private final Pool[] pools;

	/**
	 * @param random a {@link SecureRandom} in production; a seeded one only in the
	 * simulation, whose tokens need not be unguessable
	 */
	Tokens(Random random) {
		this.random = random;
		int stripes = Integer.highestOneBit(Math.max(2, Runtime.getRuntime().availableProcessors()) * 2 - 1);
		this.pools = new Pool[stripes];
		for (int i = 0; i < stripes; i++) {
			this.pools[i] = new Pool();
		}
	}

	String next() {
		byte[] hex = new byte[BYTES * 2];
		this.pools[(int) Thread.currentThread().getId() & (this.pools.length - 1)].takeHex(hex);
		return new String(hex, StandardCharsets.ISO_8859_1);
	}

	/** One stripe: a batch of random bytes and how far it has been handed out. */
	private final class Pool {

		private final ReentrantLock lock = new ReentrantLock();

		private final byte[] bytes = new byte[BYTES * BATCH];

		/** Next unused byte; guarded by {@link #lock}. */
		private int next = this.bytes.length;

		/** The next {@link #BYTES} bytes, in hex (no copy of the bytes themselves). */
		void takeHex(byte[] hex) {
			this.lock.lock();
			try {
				if (this.next == this.bytes.length) {
					Tokens.this.random.nextBytes(this.bytes);
					this.next = 0;
				}
				for (int i = 0; i < BYTES; i++) {
					byte b = this.bytes[this.next + i];
					hex[2 * i] = HEX[(b >> 4) & 0xF];
					hex[2 * i + 1] = HEX[b & 0xF];
				}
				Arrays.fill(this.bytes, this.next, this.next + BYTES, (byte) 0);
				this.next += BYTES;
			}
			finally {
				this.lock.unlock();
			}
		}

	}

}
