package io.quorumlock.redis;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract's fuzz test ({@link CounterFuzz}) on virtual threads, one node and a
 * quorum of three, with no pinning: a JFR recording of {@code jdk.VirtualThreadPinned} at
 * a zero threshold must stay empty. The build targets Java 17, so the virtual-thread API
 * is reached through method handles; on Java 17 to 20 the test is skipped.
 * {@code .ci/virtual-threads} runs it on a JDK 21+ with
 * {@code -Djdk.tracePinnedThreads=full} as well.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21 or later")
class VirtualThreadsIntegrationTests {

	private static final String PINNED = "jdk.VirtualThreadPinned";

	private static final Duration LEASE = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@ParameterizedTest(name = "{0} node(s)")
	@ValueSource(ints = { 1, 3 })
	void eightVirtualThreadsOfTwoProcessesCountExactlyWithoutPinning(int nodes, @TempDir Path dir) throws Throwable {
		String name = "v" + UUID.randomUUID().toString().substring(0, 8);
		List<String> uris = redis.uris().subList(0, nodes);
		try (QuorumLockEngine one = engine(uris);
				QuorumLockEngine other = engine(uris);
				Recording recording = new Recording()) {
			ExecutorService pool = newVirtualThreadPerTaskExecutor();
			try {
				assertThat(pool.submit(VirtualThreadsIntegrationTests::isVirtual).get(10, TimeUnit.SECONDS))
					.as("the pool's threads are virtual")
					.isTrue();
				// Warm-up pass, not recorded: a virtual thread that loads a class while
				// another loads it too still pins its carrier (JDK 25 reports "Contended
				// monitor enter" in BuiltinClassLoader), a JVM limitation of first use.
				CounterFuzz.run(pool, one, other, () -> LockRequest.of("warmup").name(name).lease(LEASE));
				recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
				recording.start();
				CounterFuzz.run(pool, one, other, () -> LockRequest.of("counter").name(name).lease(LEASE));
				recording.stop();
			}
			finally {
				pool.shutdownNow();
			}
			Path file = dir.resolve("pinned.jfr");
			recording.dump(file);
			List<RecordedEvent> pinned = RecordingFile.readAllEvents(file)
				.stream()
				.filter((event) -> PINNED.equals(event.getEventType().getName()))
				.toList();
			assertThat(pinned)
				.as("virtual threads pinned:%n%s",
						pinned.stream().map(RecordedEvent::toString).collect(Collectors.joining("\n")))
				.isEmpty();
		}
	}

	private static QuorumLockEngine engine(List<String> uris) {
		// the fixture starts its servers fresh: no restart guard here; a generous node
		// timeout, since this test is about threads, on a busy machine
		return QuorumLockEngine.builder()
			.nodes(uris)
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(Duration.ofMillis(500))
			.build();
	}

	/** {@code Executors.newVirtualThreadPerTaskExecutor()}, which Java 17 cannot name. */
	private static ExecutorService newVirtualThreadPerTaskExecutor() throws Throwable {
		MethodHandle factory = MethodHandles.publicLookup()
			.findStatic(Executors.class, "newVirtualThreadPerTaskExecutor",
					MethodType.methodType(ExecutorService.class));
		return (ExecutorService) factory.invoke();
	}

	/** {@code Thread.currentThread().isVirtual()}, which Java 17 cannot name. */
	private static boolean isVirtual() throws ReflectiveOperationException {
		MethodHandle isVirtual = MethodHandles.publicLookup()
			.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
		try {
			return (boolean) isVirtual.invokeExact(Thread.currentThread());
		}
		catch (RuntimeException | Error | ReflectiveOperationException ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

}
