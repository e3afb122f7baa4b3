package io.quorumlock.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Releases and undos that failed without a reply, sent again once the node is back, on a
 * fake clock: only while the lease they undo could still be alive.
 */
class RedosTests {

	private static final long LEASE = TimeUnit.SECONDS.toNanos(10);

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	/** Every command sent, and what each send answers, in order. */
	private final List<Redos.Redo> sent = new ArrayList<>();

	private final Queue<CompletableFuture<Long>> answers = new ArrayDeque<>();

	private final Queue<Runnable> executed = new ArrayDeque<>();

	private boolean connected;

	private boolean closed;

	private final Redos redos = new Redos((redo) -> {
		this.sent.add(redo);
		CompletableFuture<Long> answer = this.answers.poll();
		return (answer != null) ? answer : CompletableFuture.completedFuture(1L);
	}, this.clock::get, this.executed::add, () -> this.connected, () -> this.closed);

	@Test
	void commandLostWhileDisconnectedIsSentAgainOnceBack() {
		this.answers.add(lost());
		assertThat(this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch")).isCompletedExceptionally();
		assertThat(this.redos.pending()).isOne();
		assertThat(this.executed).as("no connection to send it on: the reconnect will").isEmpty();
		this.redos.redoPending();
		assertThat(this.sent).as("still disconnected").hasSize(1);
		this.connected = true;
		this.clock.addAndGet(LEASE - 1);
		this.redos.redoPending();
		assertThat(this.sent).hasSize(2);
		assertThat(this.sent.get(1).key()).isEqualTo("k");
		assertThat(this.sent.get(1).args()).containsExactly("token", "ch");
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandWhoseLeaseIsOverIsDropped() {
		this.answers.add(lost());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		this.connected = true;
		this.clock.addAndGet(LEASE);
		this.redos.redoPending();
		assertThat(this.sent).as("the key it deletes has expired on its own").hasSize(1);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandLostAgainStaysQueuedWhileTheLeaseLasts() {
		this.answers.add(lost());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		this.connected = true;
		this.answers.add(lost());
		this.redos.redoPending();
		assertThat(this.redos.pending()).isOne();
		assertThat(this.executed).as("connected: sent again without waiting for a reconnect").hasSize(1);
		this.clock.addAndGet(LEASE);
		this.executed.poll().run();
		assertThat(this.sent).hasSize(2);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandTimedOutOnALiveConnectionIsSentAgainWithoutAReconnect() {
		this.connected = true;
		this.answers.add(lost());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		assertThat(this.executed).hasSize(1);
		this.executed.poll().run();
		assertThat(this.sent).hasSize(2);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void errorReplyIsAnAnswerAndNotSentAgain() {
		this.connected = true;
		this.answers.add(CompletableFuture.failedFuture(new RedisCommandExecutionException("NOPERM")));
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		assertThat(this.redos.pending()).isZero();
		assertThat(this.executed).isEmpty();
	}

	@Test
	void closedNodeKeepsNothing() {
		this.closed = true;
		this.answers.add(lost());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		assertThat(this.redos.pending()).isZero();
	}

	private static CompletableFuture<Long> lost() {
		return CompletableFuture.failedFuture(new RedisConnectionException("Connection closed"));
	}

}
