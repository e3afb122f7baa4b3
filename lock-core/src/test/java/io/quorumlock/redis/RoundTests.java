package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.lettuce.core.RedisCommandExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import io.quorumlock.redis.node.ManualTimers;
import io.quorumlock.redis.node.QueuedReply;
import io.quorumlock.redis.node.Voter;

/**
 * A round without Redis: scripted nodes whose answers the test completes, one deadline on
 * a fake clock.
 */
class RoundTests {

	private static final long TIMEOUT = TimeUnit.MILLISECONDS.toNanos(50);

	private final ManualTimers timers = new ManualTimers();

	private final List<FakeNode> nodes = List.of(new FakeNode("a"), new FakeNode("b"), new FakeNode("c"));

	private final List<String> errors = new ArrayList<>();

	/** A node whose answer is a future the test completes. */
	static final class FakeNode implements Voter {

		private final String address;

		long epoch;

		CompletableFuture<String> reply;

		/** Each answer counted, as {@code OUTCOME} or {@code OUTCOME: failure}. */
		final List<String> answered = new ArrayList<>();

		FakeNode(String address) {
			this.address = address;
		}

		@Override
		public String address() {
			return this.address;
		}

		@Override
		public long epoch() {
			return this.epoch;
		}

		@Override
		public boolean sameConnection(long epoch) {
			return this.epoch == epoch;
		}

		@Override
		public void recordLatency(long nanos) {
		}

		@Override
		public void answered(Answer answer, Throwable failure) {
			this.answered.add(answer + ((failure != null) ? ": " + failure.getMessage() : ""));
		}

		CompletableFuture<String> send() {
			this.reply = new CompletableFuture<>();
			return this.reply;
		}

	}

	private CompletableFuture<Round.Tally> round(int quorum) {
		return Round.run(this.nodes, quorum, FakeNode::send, "OK"::equals, TIMEOUT, null, this.timers,
				(node, error) -> this.errors.add(node.address() + ": " + error.getMessage()));
	}

	@Test
	void quorumOfYesDecidesBeforeTheLastAnswer() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.complete("OK");
		assertThat(round).isNotDone();
		this.nodes.get(2).reply.complete("OK");
		assertThat(round).isCompleted();
		Round.Tally tally = round.join();
		assertThat(tally.reached()).isTrue();
		assertThat(tally.figures()).isEqualTo("2 of 3 nodes, quorum 2");
		assertThat(this.timers.pending()).as("the deadline is cancelled").isZero();
	}

	/** A reply to a command queued to be sent later with others. */
	static final class Queued extends CompletableFuture<String> implements QueuedReply {

		final CompletableFuture<Void> sent = new CompletableFuture<>();

		@Override
		public CompletionStage<?> sent() {
			return this.sent;
		}

	}

	/**
	 * A round of 2 of 3 whose commands are queued; their replies go to {@code replies}.
	 */
	private CompletableFuture<Round.Tally> queuedRound(List<Queued> replies) {
		return Round.run(this.nodes, 2, (node) -> {
			Queued reply = new Queued();
			replies.add(reply);
			return reply;
		}, "OK"::equals, TIMEOUT, null, this.timers, (node, error) -> this.errors.add(node.address()));
	}

	@Test
	void deadlineOfQueuedCommandsIsArmedOnceEveryOneWasSent() {
		List<Queued> replies = new ArrayList<>();
		CompletableFuture<Round.Tally> round = queuedRound(replies);
		this.timers.advance(10 * TIMEOUT);
		assertThat(round).as("the wait in the queue is not the node's").isNotDone();
		replies.get(0).sent.complete(null);
		replies.get(1).sent.complete(null);
		assertThat(this.timers.pending()).isZero();
		replies.get(2).sent.complete(null);
		assertThat(this.timers.pending()).as("armed by the last send").isOne();
		replies.get(0).complete("OK");
		this.timers.advance(TIMEOUT - 1);
		assertThat(round).isNotDone();
		this.timers.advance(1);
		Round.Tally tally = round.join();
		assertThat(tally.yes()).isOne();
		assertThat(tally.failures()).containsExactly("b: no answer in time", "c: no answer in time");
	}

	@Test
	void queuedCommandsAnsweredBeforeTheyWereAllSentArmNoDeadline() {
		List<Queued> replies = new ArrayList<>();
		CompletableFuture<Round.Tally> round = queuedRound(replies);
		replies.get(0).sent.complete(null);
		replies.get(0).complete("OK");
		replies.get(1).sent.complete(null);
		replies.get(1).complete("OK");
		assertThat(round.join().reached()).isTrue();
		replies.get(2).sent.complete(null);
		assertThat(this.timers.pending()).as("decided: nothing to arm").isZero();
	}

	@Test
	void earlyDecisionTellsItsFailuresAsTheyStoodWhenItWasDecided() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.completeExceptionally(new RedisCommandExecutionException("NOPERM no scripts"));
		this.nodes.get(1).reply.complete("OK");
		assertThat(round).isNotDone();
		this.nodes.get(2).reply.complete("OK");
		assertThat(round).isCompleted();
		assertThat(round.join().failures()).containsExactly("a: NOPERM no scripts");
		CompletableFuture<Round.Tally> second = round(2);
		this.nodes.get(0).reply.complete("OK");
		this.nodes.get(1).reply.complete("OK");
		assertThat(second).as("granted before c answered").isCompleted();
		Round.Tally granted = second.join();
		// read after c's late answer: still what stood at the decision
		this.nodes.get(2).reply.completeExceptionally(new RedisCommandExecutionException("LOADING late"));
		assertThat(granted.reached()).isTrue();
		assertThat(granted.failures()).containsExactly("c: no answer yet");
	}

	@Test
	void quorumOfAnswersThatCannotSayYesDecidesAsContended() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.complete("OK");
		this.nodes.get(1).reply.complete(null);
		assertThat(round).isNotDone();
		this.nodes.get(2).reply.complete(null);
		Round.Tally tally = round.join();
		assertThat(tally.reached()).isFalse();
		assertThat(tally.yes()).isOne();
		assertThat(tally.no()).isEqualTo(2);
		assertThat(tally.failures()).isEmpty();
	}

	@Test
	void deadlineDecidesWithWhatWasHeardAndNamesTheSilentNodes() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.complete("OK");
		this.timers.advance(TIMEOUT - 1);
		assertThat(round).isNotDone();
		this.timers.advance(1);
		Round.Tally tally = round.join();
		assertThat(tally.reached()).isFalse();
		assertThat(tally.answered()).isOne();
		assertThat(tally.failures()).containsExactly("b: no answer in time", "c: no answer in time");
		assertThat(this.errors).containsExactly("b: no answer within the node timeout",
				"c: no answer within the node timeout");
	}

	@Test
	void lateVoteAfterTheDeadlineChangesNothing() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.complete("OK");
		this.timers.advance(TIMEOUT);
		this.nodes.get(1).reply.complete("OK");
		assertThat(round.join().yes()).isOne();
		assertThat(round.join().reached()).isFalse();
	}

	@Test
	void lostReplyIsAFailureInRedissOwnWords() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.completeExceptionally(new RedisCommandExecutionException("NOPERM no scripts"));
		this.nodes.get(1).reply.complete("OK");
		this.nodes.get(2).reply.complete("OK");
		Round.Tally tally = round.join();
		assertThat(tally.reached()).isTrue();
		assertThat(tally.failures()).containsExactly("a: NOPERM no scripts");
		assertThat(this.errors).containsExactly("a: NOPERM no scripts");
	}

	@Test
	void answerAfterAReconnectIsNotAVote() {
		CompletableFuture<Round.Tally> round = round(2);
		// the connection dropped and came back under the command
		this.nodes.get(0).epoch++;
		this.nodes.get(0).reply.complete("OK");
		this.nodes.get(1).reply.complete("OK");
		this.nodes.get(2).reply.complete(null);
		Round.Tally tally = round.join();
		assertThat(tally.yes()).isOne();
		assertThat(tally.reached()).isFalse();
		assertThat(tally.failures()).singleElement().asString().contains("reconnected while the command was in flight");
	}

	@Test
	void nodeHeldBackWhenItAnswersIsNeitherAVoteNorAnError() {
		FakeNode heldBack = this.nodes.get(1);
		CompletableFuture<Round.Tally> round = Round.run(this.nodes, 2, FakeNode::send, "OK"::equals, TIMEOUT,
				(node) -> node != heldBack, this.timers, (node, error) -> this.errors.add(node.address()));
		this.nodes.get(0).reply.complete("OK");
		heldBack.reply.complete("OK");
		this.nodes.get(2).reply.complete(null);
		Round.Tally tally = round.join();
		assertThat(tally.yes()).isOne();
		assertThat(tally.failures()).singleElement().asString().startsWith("b: no longer voting");
		assertThat(this.errors).isEmpty();
	}

	@Test
	void commandThatThrowsCountsAsAFailedNode() {
		CompletableFuture<Round.Tally> round = Round.run(this.nodes, 2, (node) -> {
			if (node.address().equals("a")) {
				throw new IllegalStateException("closed");
			}
			return node.send();
		}, "OK"::equals, TIMEOUT, null, this.timers, (node, error) -> this.errors.add(node.address()));
		this.nodes.get(1).reply.complete("OK");
		this.nodes.get(2).reply.complete("OK");
		assertThat(round.join().reached()).isTrue();
		assertThat(this.errors).containsExactly("a");
	}

	@Test
	void wrongTypeAnswerIsExplainedToTheLeaseHolder() {
		CompletableFuture<Round.Tally> round = round(2);
		for (FakeNode node : this.nodes) {
			node.reply.completeExceptionally(new RedisCommandExecutionException(
					"WRONGTYPE Operation against a key holding the wrong kind of value"));
		}
		Round.Tally tally = round.join();
		assertThat(Voters.failures(tally)).startsWith(" (a: WRONGTYPE Operation against a key holding")
			.endsWith("; WRONGTYPE: this lease no longer holds the key there, it is now held shared by others "
					+ "(or something other than quorumlock wrote it))")
			.containsOnlyOnce("now held shared");
	}

	@Test
	void otherFailuresAreListedWithoutTheWrongTypeExplanation() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.completeExceptionally(new RedisCommandExecutionException("NOPERM no scripts"));
		this.nodes.get(1).reply.complete("OK");
		this.nodes.get(2).reply.complete("OK");
		assertThat(Voters.failures(round.join())).isEqualTo(" (a: NOPERM no scripts)");
	}

	@Test
	void eachAnswerIsCountedOnceOnItsNodeByOutcome() {
		FakeNode heldBack = this.nodes.get(2);
		CompletableFuture<Round.Tally> round = Round.run(this.nodes, 2, FakeNode::send, "OK"::equals, TIMEOUT,
				(node) -> node != heldBack, this.timers, (node, error) -> this.errors.add(node.address()));
		this.nodes.get(0).reply.complete("OK");
		this.nodes.get(1).reply.complete(null);
		heldBack.reply.complete("OK");
		round.join();
		assertThat(this.nodes.get(0).answered).containsExactly("YES");
		assertThat(this.nodes.get(1).answered).containsExactly("HELD");
		assertThat(heldBack.answered).singleElement().asString().startsWith("HELD_BACK: no longer voting");
		round(2);
		this.nodes.get(0).reply.completeExceptionally(new RedisCommandExecutionException("NOAUTH Authentication"));
		this.nodes.get(1).reply.completeExceptionally(new io.lettuce.core.RedisConnectionException("not connected"));
		this.nodes.get(2).reply.completeExceptionally(new io.lettuce.core.RedisException("Connection closed"));
		assertThat(this.nodes.get(0).answered).last().isEqualTo("ERROR: NOAUTH Authentication");
		assertThat(this.nodes.get(1).answered).last().isEqualTo("NOT_CONNECTED: not connected");
		assertThat(this.nodes.get(2).answered).last().isEqualTo("NOT_CONNECTED: Connection closed");
	}

	@Test
	void nodeSilentAtTheDeadlineCountsAsATimeoutAndItsLateAnswerIsNotCountedAgain() {
		CompletableFuture<Round.Tally> round = round(2);
		this.nodes.get(0).reply.complete("OK");
		this.nodes.get(1).reply.complete("OK");
		assertThat(round).as("granted early").isCompleted();
		this.timers.advance(TIMEOUT);
		assertThat(this.nodes.get(2).answered).as("an early decision times nobody out").isEmpty();
		this.nodes.get(2).reply.complete("OK");
		assertThat(this.nodes.get(2).answered).containsExactly("YES");
		CompletableFuture<Round.Tally> second = round(2);
		this.nodes.get(0).reply.complete("OK");
		this.timers.advance(TIMEOUT);
		assertThat(second.join().reached()).isFalse();
		this.nodes.get(1).reply.complete("OK");
		this.nodes.get(2).reply.completeExceptionally(new RedisCommandExecutionException("LOADING late"));
		assertThat(this.nodes.get(1).answered).containsExactly("YES", "TIMEOUT: no answer within the node timeout");
		assertThat(this.nodes.get(2).answered).containsExactly("YES", "TIMEOUT: no answer within the node timeout");
	}

}
