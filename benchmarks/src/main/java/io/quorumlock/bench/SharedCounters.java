package io.quorumlock.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A few counters in a memory-mapped file, shared by the client JVMs of
 * {@link ProcessContention} (atomic across processes: the same physical page, updated by
 * the processor's atomic instructions). Holds the mutual-exclusion detector (how many are
 * inside the critical section, and the violations seen) and the start line ({@code System
 * .nanoTime()} is one clock for every process on Linux: {@code CLOCK_MONOTONIC}).
 */
final class SharedCounters {

	static final int INSIDE = 0;

	static final int VIOLATIONS = 4;

	static final int READY = 8;

	static final int GO = 16;

	static final int MEASURE_FROM = 24;

	static final int MEASURE_UNTIL = 32;

	/** Most clients with a {@link #jit} slot. */
	static final int MAX_CLIENTS = 8;

	/**
	 * Client {@code i}'s JIT compilation time so far, in ms
	 * ({@code CompilationMXBean.getTotalCompilationTime}), which it writes as it runs.
	 */
	static int jit(int client) {
		return 64 + 8 * client;
	}

	private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

	private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private final MappedByteBuffer buffer;

	SharedCounters(Path file) throws IOException {
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE)) {
			this.buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, 64 + 8 * MAX_CLIENTS);
		}
	}

	int add(int offset, int delta) {
		return (int) INT.getAndAdd(this.buffer, offset, delta);
	}

	int getInt(int offset) {
		return (int) INT.getVolatile(this.buffer, offset);
	}

	long getLong(int offset) {
		return (long) LONG.getVolatile(this.buffer, offset);
	}

	void setLong(int offset, long value) {
		LONG.setVolatile(this.buffer, offset, value);
	}

	/**
	 * The critical section's check: enter, and count a violation if another is inside.
	 */
	void enter() {
		if (add(INSIDE, 1) != 0) {
			add(VIOLATIONS, 1);
		}
	}

	void leave() {
		add(INSIDE, -1);
	}

}
