package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start and run_id of a server, read per connection epoch on a fake clock: believed
 * only while the connection they were read on lasts, and an answer that comes back on a
 * later connection is dropped.
 */
class ServerStartTests {

	private static final String INFO = "# Server\r\nredis_version:7.2.4\r\nrun_id:abc123\r\nuptime_in_seconds:42\r\n";

	private final AtomicLong epoch = new AtomicLong();

	private final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(1000));

	private final AtomicLong latency = new AtomicLong(-1);

	private final ServerStart start = new ServerStart(this.epoch::get, this.clock::get);

	@Test
	void unknownUntilRead() {
		assertThat(this.start.runId()).isNull();
		assertThat(this.start.uptimeNanos()).isNegative();
		assertThat(this.start.startedAt()).isEqualTo(ServerStart.UNKNOWN);
		assertThat(this.start.isVoting(1)).isFalse();
		assertThat(this.start.isVoting(0)).as("guard off").isTrue();
	}

	@Test
	void answerOnTheSameConnectionIsBelieved() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<ServerStart.Read> read = this.start.read(() -> answer, this.latency::set);
		assertThat(this.start.isReading()).isTrue();
		this.clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(3));
		answer.complete(INFO);
		assertThat(read.join()).isEqualTo(ServerStart.Read.BELIEVED);
		assertThat(this.start.isReading()).isFalse();
		assertThat(this.start.runId()).isEqualTo("abc123");
		assertThat(this.latency.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(3));
		// started at least 41 s before the answer came: an uptime of 42 whole seconds may
		// be up to a second ahead, and the server read it before the answer came
		assertThat(this.start.uptimeNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(41));
		assertThat(this.start.isVoting(TimeUnit.SECONDS.toNanos(41))).isTrue();
		assertThat(this.start.isVoting(TimeUnit.SECONDS.toNanos(42))).isFalse();
		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
		assertThat(this.start.isVoting(TimeUnit.SECONDS.toNanos(42))).isTrue();
	}

	@Test
	void uptimeOfWholeSecondsMayRunASecondAheadOfTheRealOne() {
		// Redis subtracts two wall-clock times truncated to seconds: started at x.999 s,
		// it answers at x+1.001 s with uptime_in_seconds:1 after 2 ms of real uptime
		long realStart = this.clock.get();
		CompletableFuture<String> answer = new CompletableFuture<>();
		this.start.read(() -> answer, this.latency::set);
		this.clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(2));
		answer.complete(INFO.replace("uptime_in_seconds:42", "uptime_in_seconds:1"));
		assertThat(this.start.startedAt()).as("never before the real start").isGreaterThanOrEqualTo(realStart);
		// a 2 s guard holds it back until 2 s after the real start at least
		this.clock.set(realStart + TimeUnit.MILLISECONDS.toNanos(1999));
		assertThat(this.start.isVoting(TimeUnit.SECONDS.toNanos(2))).isFalse();
		// at most a second more than it had to, plus the answer's own delay
		this.clock.set(realStart + TimeUnit.MILLISECONDS.toNanos(2002));
		assertThat(this.start.isVoting(TimeUnit.SECONDS.toNanos(2))).isTrue();
	}

	@Test
	void uptimeAheadOrBehindByUpToASecondNeverDatesTheStartEarly() {
		// every real uptime at the read, at every fraction of the wall-clock second the
		// server started in: the estimate is never before the real start, and at most two
		// seconds after it
		for (long startMillis = 0; startMillis < 1000; startMillis += 37) {
			for (long realUptimeMillis = 0; realUptimeMillis < 5000; realUptimeMillis += 41) {
				long reported = (startMillis + realUptimeMillis) / 1000 - startMillis / 1000;
				long answeredAt = TimeUnit.SECONDS.toNanos(5000) + TimeUnit.MILLISECONDS.toNanos(realUptimeMillis);
				long realStart = TimeUnit.SECONDS.toNanos(5000);
				long estimate = ServerStart.latestStart(reported, answeredAt);
				assertThat(estimate).as("start %d ms into its second, up %d ms", startMillis, realUptimeMillis)
					.isBetween(realStart, realStart + TimeUnit.SECONDS.toNanos(2));
			}
		}
	}

	@Test
	void slowAnswerDoesNotDateTheStartEarly() {
		// a server that started just now answers INFO 1.5 s after it was sent (a busy or
		// just-restarted server, a starved client): it may report an uptime of 1 s
		long sent = this.clock.get();
		CompletableFuture<String> answer = new CompletableFuture<>();
		this.start.read(() -> answer, this.latency::set);
		this.clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1500));
		answer.complete(INFO.replace("uptime_in_seconds:42", "uptime_in_seconds:1"));
		// the real start is at least 0.5 s after "sent"; dating it from "sent" would have
		// let the node vote a whole second inside its restart guard
		assertThat(this.start.startedAt()).isGreaterThanOrEqualTo(sent + TimeUnit.MILLISECONDS.toNanos(500));
		assertThat(this.start.isVoting(TimeUnit.SECONDS.toNanos(2))).isFalse();
	}

	@Test
	void answerFromAnEarlierConnectionIsDiscarded() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<ServerStart.Read> read = this.start.read(() -> answer, this.latency::set);
		// the connection drops and comes back while INFO is in flight: Lettuce may send
		// it
		// again to a new server, whose uptime would date the start too early
		this.epoch.incrementAndGet();
		answer.complete(INFO);
		assertThat(read.join()).isEqualTo(ServerStart.Read.STALE);
		assertThat(this.start.runId()).isNull();
		assertThat(this.start.uptimeNanos()).isNegative();
		assertThat(this.start.isVoting(1)).isFalse();
		assertThat(this.latency.get()).as("no latency from a stale answer").isEqualTo(-1);
	}

	@Test
	void whatWasReadIsForgottenWhenTheConnectionChanges() {
		assertThat(this.start.read(() -> CompletableFuture.completedFuture(INFO), this.latency::set).join())
			.isEqualTo(ServerStart.Read.BELIEVED);
		assertThat(this.start.runId()).isEqualTo("abc123");
		this.epoch.incrementAndGet();
		assertThat(this.start.runId()).as("a node votes only once its run_id is read on this connection").isNull();
		assertThat(this.start.isVoting(1)).isFalse();
		assertThat(this.start.uptimeNanos()).isNegative();
	}

	@Test
	void failureOnTheSameConnectionIsWorthRetrying() {
		CompletableFuture<ServerStart.Read> read = this.start
			.read(() -> CompletableFuture.failedFuture(new IllegalStateException("timeout")), this.latency::set);
		assertThat(read.join()).isEqualTo(ServerStart.Read.FAILED);
		assertThat(this.start.isReading()).isFalse();
		assertThat(this.start.runId()).isNull();
	}

	@Test
	void answerWithoutUptimeKeepsTheStartUnknownButNotTheRunId() {
		this.start.read(() -> CompletableFuture.completedFuture("run_id:xyz\r\n"), this.latency::set).join();
		assertThat(this.start.runId()).isEqualTo("xyz");
		assertThat(this.start.startedAt()).isEqualTo(ServerStart.UNKNOWN);
		assertThat(this.start.isVoting(1)).isFalse();
	}

	@Test
	void parsesTheServerSection() {
		assertThat(ServerStart.parseRunId(INFO)).isEqualTo("abc123");
		assertThat(ServerStart.parseUptimeSeconds(INFO)).isEqualTo(42);
		assertThat(ServerStart.parseRunId("run_id:\r\n")).isNull();
		assertThat(ServerStart.parseUptimeSeconds("uptime_in_seconds:x\r\n")).isEqualTo(-1);
		assertThat(ServerStart.parseUptimeSeconds("")).isEqualTo(-1);
	}

}
