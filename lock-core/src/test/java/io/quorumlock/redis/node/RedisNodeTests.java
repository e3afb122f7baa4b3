package io.quorumlock.redis.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.lettuce.core.RedisNoScriptException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node's connection epochs against a fake transport: every script is loaded on every
 * connection in each epoch before the node votes, any drop or reconnect (of the
 * replicated-writes connection too) starts an epoch, and a NOSCRIPT is a fault recovered
 * by a new epoch, never a re-send of the script's text.
 */
class RedisNodeTests {

	private final ManualTimers timers = new ManualTimers();

	private final FakeTransport transport = new FakeTransport();

	private RedisNode node(boolean replicatedWrites) {
		return node(replicatedWrites, null);
	}

	private RedisNode node(boolean replicatedWrites, GuardRecord guard) {
		NodeContext context = new NodeContext(this.timers, "lock:{quorumlock:probe}",
				"lock:{quorumlock:probe}:released",
				new String[] { "lock:{quorumlock:marker}", "lock:{quorumlock:pending}", "lock:{quorumlock:guards}" },
				guard, 0.01, Set.of(), new java.util.concurrent.atomic.AtomicBoolean(), () -> "id", replicatedWrites,
				false, (channel, message) -> {
				}, (address, error) -> {
				});
		RedisNode node = new RedisNode(this.transport, context);
		node.connect();
		this.timers.runDue();
		return node;
	}

	@Test
	void votesOnlyOnceEveryScriptIsLoadedInTheEpochAndItsStateRead() {
		this.transport.holdLoads = true;
		RedisNode node = node(false);
		assertThat(node.isConnected()).isTrue();
		assertThat(node.votes(false)).isFalse();
		assertThat(node.eval(Script.RELEASE, "lock:{k}", "t", "c")).isCompletedExceptionally();
		this.transport.answerLoads();
		this.timers.runDue();
		assertThat(node.votes(false)).isTrue();
		assertThat(this.transport.loaded()).hasSize(RedisNode.SCRIPTS.length);
		assertThat(this.transport.loaded()).contains(SharedScripts.RELEASE.text(), Script.GUARD_READ.text());
	}

	@Test
	void aNoScriptOnTheGuardsOwnReadStartsAnEpochAndLoadsTheScriptsAgain() {
		// the server behind the connection forgot the scripts (a restart, or another
		// server behind a connection that stayed open): the read is as blind as a round
		RedisNode node = node(false, new GuardRecord(java.util.concurrent.TimeUnit.SECONDS.toNanos(10)));
		long before = node.epoch();
		assertThat(this.transport.loaded()).hasSize(RedisNode.SCRIPTS.length);
		this.transport.guardNoScriptOnce = true;
		node.maintain();
		this.timers.runDue();
		assertThat(node.sameConnection(before)).isFalse();
		assertThat(this.transport.loaded()).as("loaded again").hasSize(2 * RedisNode.SCRIPTS.length);
	}

	@Test
	void aReconnectStartsAnEpochInWhichNothingVotesUntilTheScriptsAreLoadedAgain() {
		RedisNode node = node(false);
		assertThat(node.votes(false)).isTrue();
		long before = node.epoch();
		this.transport.holdLoads = true;
		this.transport.links.get(0).events.reconnected();
		this.timers.runDue();
		assertThat(node.sameConnection(before)).isFalse();
		assertThat(node.votes(false)).isFalse();
		this.transport.answerLoads();
		this.timers.runDue();
		assertThat(node.votes(false)).isTrue();
		assertThat(this.transport.loaded()).hasSize(2 * RedisNode.SCRIPTS.length);
	}

	@Test
	void aDropOfTheReplicatedWritesConnectionStartsAnEpochToo() {
		RedisNode node = node(true);
		assertThat(this.transport.links).hasSize(2);
		assertThat(this.transport.loaded()).as("loaded on both connections").hasSize(2 * RedisNode.SCRIPTS.length);
		long before = node.epoch();
		this.transport.links.get(1).events.disconnected();
		assertThat(node.sameConnection(before)).isFalse();
		assertThat(node.votes(false)).isFalse();
	}

	@Test
	void aNoScriptAnswerIsAFaultRecoveredByANewEpochAndTheReleaseIsSentAgainBySha() {
		RedisNode node = node(false);
		long before = node.epoch();
		this.transport.noScriptOnce = true;
		CompletableFuture<Long> release = node.evalRedone(Script.RELEASE, TimeUnit.SECONDS.toNanos(30), "lock:{k}", "t",
				"c");
		assertThat(release).isCompletedExceptionally();
		this.timers.runDue();
		assertThat(node.sameConnection(before)).as("what was in flight is no longer a vote").isFalse();
		assertThat(this.transport.loaded()).as("loaded again").hasSize(2 * RedisNode.SCRIPTS.length);
		assertThat(node.votes(false)).isTrue();
		assertThat(this.transport.links.get(0).calls).as("sent again by its SHA-1, never as text")
			.filteredOn((call) -> call.equals("evalsha " + Script.RELEASE.sha1() + " lock:{k}"))
			.hasSize(2);
	}

	@Test
	@org.junit.jupiter.api.Timeout(10)
	void aReleaseRefusedWhileTheScriptsLoadWaitsForThemInsteadOfSpinning() {
		RedisNode node = node(false);
		this.transport.holdLoads = true;
		this.transport.links.get(0).events.reconnected();
		this.timers.runDue();
		CompletableFuture<Long> release = node.evalRedone(Script.RELEASE, TimeUnit.SECONDS.toNanos(30), "lock:{k}", "t",
				"c");
		// not loaded on this connection yet
		assertThat(release).isCompletedExceptionally();
		this.timers.runDue(); // would never return if the redo were sent again at once
		assertThat(this.transport.links.get(0).calls).noneMatch((call) -> call.endsWith(" lock:{k}"));
		this.transport.answerLoads();
		this.timers.runDue();
		assertThat(this.transport.links.get(0).calls).filteredOn((call) -> call.endsWith(" lock:{k}")).hasSize(1);
	}

	/** Hands out fake links and remembers them. */
	private static final class FakeTransport implements Transport {

		final List<FakeLink> links = new ArrayList<>();

		boolean holdLoads;

		boolean noScriptOnce;

		/** The guard's own read answers NOSCRIPT once. */
		boolean guardNoScriptOnce;

		final List<CompletableFuture<String>> heldLoads = new ArrayList<>();

		List<String> loaded() {
			List<String> all = new ArrayList<>();
			this.links.forEach((link) -> all.addAll(link.loaded));
			return all;
		}

		void answerLoads() {
			this.holdLoads = false;
			List<CompletableFuture<String>> held = List.copyOf(this.heldLoads);
			this.heldLoads.clear();
			held.forEach((load) -> load.complete("sha"));
		}

		@Override
		public String address() {
			return "fake:1";
		}

		@Override
		public String uriText() {
			return "redis://fake:1";
		}

		@Override
		public CompletableFuture<Link> connect(Link.Events events) {
			FakeLink link = new FakeLink(this, events);
			this.links.add(link);
			return CompletableFuture.completedFuture(link);
		}

		@Override
		public CompletableFuture<Link.Subscriber> connectPubSub(BiConsumer<String, String> onMessage,
				Runnable onReconnected) {
			return new CompletableFuture<>();
		}

		@Override
		public boolean isOneServer() {
			return true;
		}

		@Override
		public void close() {
		}

	}

	/** Answers at once (but SCRIPT LOAD while held), recording each command. */
	private static final class FakeLink implements Link {

		private final FakeTransport transport;

		final Events events;

		final List<String> calls = new ArrayList<>();

		final List<String> loaded = new ArrayList<>();

		FakeLink(FakeTransport transport, Events events) {
			this.transport = transport;
			this.events = events;
		}

		@Override
		public CompletionStage<String> setIfAbsent(String key, String value, long pxMillis) {
			this.calls.add("set " + key);
			return CompletableFuture.completedFuture("OK");
		}

		@Override
		public CompletionStage<Long> evalsha(String sha1, String[] keys, String... args) {
			this.calls.add("evalsha " + sha1 + " " + keys[0]);
			if (this.transport.noScriptOnce && !keys[0].contains("quorumlock:")) {
				this.transport.noScriptOnce = false;
				return CompletableFuture.failedFuture(new RedisNoScriptException("NOSCRIPT No matching script."));
			}
			return CompletableFuture.completedFuture(1L);
		}

		@Override
		public CompletionStage<List<Object>> evalshaList(String sha1, String[] keys, String... args) {
			this.calls.add("evalsha " + sha1 + " " + keys[0]);
			if (this.transport.guardNoScriptOnce) {
				this.transport.guardNoScriptOnce = false;
				return CompletableFuture.failedFuture(new RedisNoScriptException("NOSCRIPT No matching script."));
			}
			return CompletableFuture.completedFuture(List.of(1L, "d1", 0L));
		}

		@Override
		public CompletionStage<String> scriptLoad(String script) {
			this.loaded.add(script);
			if (this.transport.holdLoads) {
				CompletableFuture<String> held = new CompletableFuture<>();
				this.transport.heldLoads.add(held);
				return held;
			}
			return CompletableFuture.completedFuture("sha");
		}

		@Override
		public CompletionStage<String> info(String section) {
			return CompletableFuture
				.completedFuture("run_id:abc\r\nuptime_in_seconds:1\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n");
		}

		@Override
		public CompletionStage<String> configGet(String parameter) {
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public CompletionStage<Long> waitForReplicas(int replicas, long timeoutMillis) {
			return CompletableFuture.completedFuture((long) replicas);
		}

		@Override
		public CompletionStage<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans) {
			return CompletableFuture.completedFuture(List.of());
		}

		@Override
		public boolean isOpen() {
			return true;
		}

		@Override
		public void close() {
		}

	}

}
