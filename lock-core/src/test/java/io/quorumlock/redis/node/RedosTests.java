package io.quorumlock.redis.node;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
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

	/** The connection epoch: bumped on every disconnect and reconnect. */
	private final AtomicLong epoch = new AtomicLong();

	private final Redos redos = new Redos((redo) -> {
		this.sent.add(redo);
		CompletableFuture<Long> answer = this.answers.poll();
		return (answer != null) ? answer : CompletableFuture.completedFuture(1L);
	}, this.clock::get, this.executed::add, () -> this.connected, () -> this.closed, this.epoch::get);

	@Test
	void commandLostWhileDisconnectedIsSentAgainOnceBack() {
		this.answers.add(lost());
		assertThat(this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch")).isCompletedExceptionally();
		assertThat(this.redos.pending()).isOne();
		assertThat(this.executed).as("no connection to send it on: the reconnect will").isEmpty();
		this.redos.redoPending();
		assertThat(this.sent).as("still disconnected").hasSize(1);
		reconnect();
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
		reconnect();
		this.clock.addAndGet(LEASE);
		this.redos.redoPending();
		assertThat(this.sent).as("the key it deletes has expired on its own").hasSize(1);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandLostAgainStaysQueuedWhileTheLeaseLasts() {
		this.answers.add(lost());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		reconnect();
		// the copy is lost too, its connection dropped and came back while it was out
		CompletableFuture<Long> second = new CompletableFuture<>();
		this.answers.add(second);
		this.redos.redoPending();
		reconnect();
		second.completeExceptionally(new RedisConnectionException("Connection closed"));
		assertThat(this.redos.pending()).isOne();
		assertThat(this.executed).as("reconnected already: sent again without waiting for another").hasSize(1);
		this.clock.addAndGet(LEASE);
		this.executed.poll().run();
		assertThat(this.sent).hasSize(2);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandTimedOutOnALiveConnectionWaitsThereAndIsSentAgainOnlyAfterAReconnect() {
		this.connected = true;
		this.answers.add(timedOut());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		assertThat(this.executed).as("still on its way on the same connection").isEmpty();
		// a stalled server: however often the periodic check runs, no copies pile up
		for (int i = 0; i < 5; i++) {
			this.redos.redoPending();
		}
		assertThat(this.sent).hasSize(1);
		assertThat(this.redos.pending()).isOne();
		// the connection drops and comes back: the command may never have reached Redis
		this.connected = false;
		this.epoch.incrementAndGet();
		reconnect();
		this.redos.redoPending();
		assertThat(this.sent).hasSize(2);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandsTimedOutOnALiveConnectionAreDroppedAsTheirLeasesEndWithoutACopy() {
		this.connected = true;
		for (int i = 0; i < 3; i++) {
			this.answers.add(timedOut());
			this.redos.send(Script.RELEASE, LEASE, "k" + i, "token", "ch");
			this.clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
		}
		this.redos.redoPending();
		assertThat(this.redos.pending()).isEqualTo(3);
		// the first lease is over: dropped from the head, the others still wait there
		this.clock.addAndGet(LEASE - TimeUnit.SECONDS.toNanos(3));
		this.redos.redoPending();
		assertThat(this.redos.pending()).isEqualTo(2);
		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
		this.redos.redoPending();
		assertThat(this.redos.pending()).isZero();
		assertThat(this.sent).as("a stalled server's backlog is never copied").hasSize(3);
	}

	@Test
	void commandTimedOutAfterItsConnectionWasReplacedIsSentAgainAtOnce() {
		this.connected = true;
		CompletableFuture<Long> answer = new CompletableFuture<>();
		this.answers.add(answer);
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		this.redos.redoPending();
		// a reconnect, then the old copy's timeout: it may never have reached Redis
		this.epoch.incrementAndGet();
		answer.completeExceptionally(new RedisCommandTimeoutException("Command timed out"));
		assertThat(this.executed).hasSize(1);
		this.executed.poll().run();
		assertThat(this.sent).hasSize(2);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandLostWithoutATimeoutIsSentAgainAtOnceWhenConnected() {
		// refused or dropped, not timed out: it may never have reached Redis, so it is
		// not left to wait on a connection even if the epoch looks the same
		this.connected = true;
		this.answers.add(lost());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		assertThat(this.executed).hasSize(1);
		this.executed.poll().run();
		assertThat(this.sent).hasSize(2);
		assertThat(this.redos.pending()).isZero();
	}

	@Test
	void commandTimedOutOnALiveConnectionIsDroppedWhenItsLeaseIsOver() {
		this.connected = true;
		this.answers.add(timedOut());
		this.redos.send(Script.RELEASE, LEASE, "k", "token", "ch");
		this.clock.addAndGet(LEASE);
		this.redos.redoPending();
		assertThat(this.redos.pending()).isZero();
		reconnect();
		this.redos.redoPending();
		assertThat(this.sent).hasSize(1);
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

	private void reconnect() {
		this.epoch.incrementAndGet();
		this.connected = true;
	}

	private static CompletableFuture<Long> timedOut() {
		return CompletableFuture.failedFuture(new RedisCommandTimeoutException("Command timed out after 1 second(s)"));
	}

	private static CompletableFuture<Long> lost() {
		return CompletableFuture.failedFuture(new RedisConnectionException("Connection closed"));
	}

}
