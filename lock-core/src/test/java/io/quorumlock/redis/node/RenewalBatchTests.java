package io.quorumlock.redis.node;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The renewals due on one node, sent together, without Redis: a burst is one call after
 * the burst, a full chunk goes at once, and each renewal gets exactly its own answer, or
 * the call's failure.
 */
@Timeout(60)
class RenewalBatchTests {

	/** The flushes asked for, run when the test says. */
	private final Queue<Runnable> scheduled = new ArrayDeque<>();

	/** Every call sent: its keys and its arguments. */
	private final List<String[]> keysSent = new ArrayList<>();

	private final List<String[]> argsSent = new ArrayList<>();

	/** What each call answers, in order; a call with none left stays unanswered. */
	private final Queue<CompletableFuture<List<Object>>> replies = new ArrayDeque<>();

	private RenewalBatch batch(int maxKeys) {
		return new RenewalBatch(this.scheduled::add, (keys, args) -> {
			this.keysSent.add(keys);
			this.argsSent.add(args);
			CompletableFuture<List<Object>> reply = this.replies.poll();
			return (reply != null) ? reply : new CompletableFuture<>();
		}, maxKeys);
	}

	@Test
	void burstGoesAsOneCallOnceTheSchedulerReachesTheFlush() {
		CompletableFuture<List<Object>> reply = new CompletableFuture<>();
		this.replies.add(reply);
		RenewalBatch batch = batch(256);
		CompletableFuture<Long> a = batch.extend("a", "ta", "30000");
		CompletableFuture<Long> b = batch.extend("b", "tb", "30000");
		RenewalBatch.Pending c = batch.extend("c", "tc", "10000");
		assertThat(this.keysSent).as("nothing sent before the burst ends").isEmpty();
		assertThat(c.sent()).as("its round's deadline waits for this").isNotDone();
		assertThat(this.scheduled).as("one flush for the burst").hasSize(1);
		this.scheduled.poll().run();
		assertThat(this.keysSent).hasSize(1);
		assertThat(this.keysSent.get(0)).containsExactly("a", "b", "c");
		assertThat(this.argsSent.get(0)).containsExactly("ta", "30000", "tb", "30000", "tc", "10000");
		assertThat(c.sent()).isDone();
		assertThat(a).isNotDone();
		reply.complete(List.of(1L, 0L, 1L));
		assertThat(a).isCompletedWithValue(1L);
		assertThat(b).as("another token holds it there: what EXTEND says").isCompletedWithValue(0L);
		assertThat(c).isCompletedWithValue(1L);
	}

	@Test
	void fullChunkGoesAtOnceAndTheFlushSendsTheRest() {
		RenewalBatch batch = batch(4);
		List<CompletableFuture<Long>> answers = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			answers.add(batch.extend("k" + i, "t" + i, "600"));
			if (i == 3) {
				assertThat(this.keysSent).as("the 4th renewal fills a chunk").hasSize(1);
			}
		}
		assertThat(this.keysSent).hasSize(2);
		assertThat(this.scheduled).as("a flush for each renewal that found the queue empty: k0, k4, k8").hasSize(3);
		this.scheduled.poll().run();
		assertThat(this.keysSent).extracting((keys) -> keys.length).containsExactly(4, 4, 2);
		assertThat(this.keysSent.get(2)).containsExactly("k8", "k9");
		this.scheduled.forEach(Runnable::run);
		assertThat(this.keysSent).as("the later flushes find nothing left").hasSize(3);
		assertThat(answers).noneMatch(CompletableFuture::isDone);
	}

	@Test
	void queueEmptiedByTheFlushAsksForANewFlushOnTheNextRenewal() {
		this.replies.add(CompletableFuture.completedFuture(List.of(1L)));
		this.replies.add(CompletableFuture.completedFuture(List.of(1L)));
		RenewalBatch batch = batch(256);
		CompletableFuture<Long> first = batch.extend("a", "t", "600");
		this.scheduled.poll().run();
		CompletableFuture<Long> second = batch.extend("a", "t", "600");
		assertThat(this.scheduled).hasSize(1);
		this.scheduled.poll().run();
		assertThat(first).isCompletedWithValue(1L);
		assertThat(second).isCompletedWithValue(1L);
		assertThat(this.keysSent).hasSize(2);
	}

	@Test
	void failedCallFailsEveryRenewalOfItsChunkWithItsCause() {
		RedisConnectionException down = new RedisConnectionException("Connection closed");
		this.replies.add(CompletableFuture.failedFuture(down));
		RenewalBatch batch = batch(256);
		List<CompletableFuture<Long>> answers = List.of(batch.extend("a", "t", "600"), batch.extend("b", "t", "600"));
		this.scheduled.poll().run();
		for (CompletableFuture<Long> answer : answers) {
			assertThat(answer).isCompletedExceptionally();
			assertThat(answer.handle((value, error) -> error).join()).isSameAs(down);
		}
	}

	@Test
	void senderThatThrowsFailsEveryRenewalOfItsChunk() {
		RenewalBatch batch = new RenewalBatch(this.scheduled::add, (keys, args) -> {
			throw new IllegalStateException("connection closed under us");
		}, 256);
		CompletableFuture<Long> answer = batch.extend("a", "t", "600");
		this.scheduled.poll().run();
		assertThat(answer.handle((value, error) -> error).join()).hasMessage("connection closed under us");
	}

	@Test
	void keyTheNodeRefusesFailsOnlyItsOwnRenewal() {
		this.replies.add(CompletableFuture
			.completedFuture(List.of(1L, "WRONGTYPE Operation against a key holding the wrong kind of value", 1L)));
		RenewalBatch batch = batch(256);
		CompletableFuture<Long> a = batch.extend("a", "t", "600");
		CompletableFuture<Long> odd = batch.extend("odd", "t", "600");
		CompletableFuture<Long> c = batch.extend("c", "t", "600");
		this.scheduled.poll().run();
		assertThat(a).isCompletedWithValue(1L);
		assertThat(c).isCompletedWithValue(1L);
		assertThat(odd.handle((value, error) -> error).join()).isInstanceOf(RedisCommandExecutionException.class)
			.hasMessageStartingWith("WRONGTYPE");
	}

	@Test
	void shortAnswerFailsTheRenewalsItLeftOutNamingTheKey() {
		this.replies.add(CompletableFuture.completedFuture(List.of(1L)));
		RenewalBatch batch = batch(256);
		CompletableFuture<Long> a = batch.extend("a", "t", "600");
		CompletableFuture<Long> b = batch.extend("b", "t", "600");
		this.scheduled.poll().run();
		assertThat(a).isCompletedWithValue(1L);
		assertThat(b.handle((value, error) -> error).join())
			.hasMessage("extend-many answered 1 values for 2 keys; key b got null");
	}

	@Test
	void closedSchedulerFlushesAtOnce() {
		this.replies.add(CompletableFuture.failedFuture(new RedisConnectionException("closed")));
		RenewalBatch batch = new RenewalBatch((task) -> {
			throw new RejectedExecutionException("shut down");
		}, (keys, args) -> this.replies.poll(), 256);
		assertThat(batch.extend("a", "t", "600")).isCompletedExceptionally();
	}

	@Test
	void chunkOfNoKeysIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> batch(0))
			.withMessage("a renewal batch needs at least 1 key per call, got 0");
	}

	/**
	 * Many threads renewing at once while another thread flushes and the renewals that
	 * fill a chunk send it: every key is sent exactly once and every renewal gets its own
	 * key's answer.
	 */
	@Test
	void concurrentRenewalsAreEachSentOnceAndAnsweredWithTheirOwnAnswer() throws Exception {
		int threads = 8;
		int perThread = 5_000;
		Queue<String> sent = new ConcurrentLinkedQueue<>();
		AtomicInteger calls = new AtomicInteger();
		ExecutorService scheduler = Executors.newSingleThreadExecutor();
		ExecutorService callers = Executors.newFixedThreadPool(threads);
		try {
			RenewalBatch batch = new RenewalBatch(scheduler, (keys, args) -> {
				calls.incrementAndGet();
				sent.addAll(Arrays.asList(keys));
				// answer each key with its own number, so a mix-up shows
				List<Object> answers = new ArrayList<>();
				for (String key : keys) {
					answers.add(Long.parseLong(key));
				}
				return CompletableFuture.completedFuture(answers);
			}, 64);
			List<List<CompletableFuture<Long>>> answers = Collections.synchronizedList(new ArrayList<>());
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				done.add(callers.submit(() -> {
					List<CompletableFuture<Long>> mine = new ArrayList<>();
					start.await();
					for (int i = 0; i < perThread; i++) {
						mine.add(batch.extend(Long.toString((long) thread * perThread + i), "t", "600"));
					}
					answers.add(mine);
					return null;
				}));
			}
			start.countDown();
			for (Future<?> f : done) {
				f.get(30, TimeUnit.SECONDS);
			}
			for (List<CompletableFuture<Long>> mine : answers) {
				CompletableFuture.allOf(mine.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
			}
			assertThat(sent).hasSize(threads * perThread).doesNotHaveDuplicates();
			assertThat(calls.get()).as("batched").isLessThan(threads * perThread);
			for (List<CompletableFuture<Long>> mine : answers) {
				long first = mine.get(0).join();
				for (int i = 0; i < mine.size(); i++) {
					assertThat(mine.get(i).join()).isEqualTo(first + i);
				}
			}
		}
		finally {
			callers.shutdownNow();
			scheduler.shutdownNow();
		}
	}

}
