package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import io.quorumlock.redis.node.Link;
import io.quorumlock.redis.node.Replies;

/**
 * {@link SimTransport} behaves as Lettuce does with the engine's options: replies in
 * order, a drop told to the node, what was in flight sent again after the reconnect (and
 * run twice when its reply was lost after it ran), commands refused while disconnected, a
 * timeout that leaves the command to run later, and Netty's write order.
 */
class SimTransportTests {

	private final SimLoop loop = new SimLoop(3, true);

	private final SimNetwork network = new SimNetwork(this.loop, 100_000, 200_000, 0, 0);

	private final SimServer server = new SimServer("s0", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 0);

	private final SimLoop.Actor engine = new SimLoop.Actor("e0");

	private final SimTimers timers = new SimTimers(this.loop, this.engine, 0, 0, 1, 2);

	private final SimTransport transport = new SimTransport(this.network, this.timers, "e0", "sim-0:7000",
			SimRun.millis(1000), SimRun.millis(5));

	private final List<String> events = new ArrayList<>();

	private Link connect() {
		this.network.route("sim-0:7000", this.server);
		CompletableFuture<Link> link = this.transport.connect(new Link.Events() {
			@Override
			public void disconnected() {
				SimTransportTests.this.events.add("disconnected");
			}

			@Override
			public void reconnected() {
				SimTransportTests.this.events.add("reconnected");
			}
		});
		run(10);
		assertThat(link).isCompleted();
		return link.join();
	}

	private void run(long millis) {
		this.loop.runUntil(this.loop.now() + SimRun.millis(millis));
	}

	@Test
	void aReplyLostAfterItsCommandRanIsSentAgainAfterTheReconnectAndRunsTwice() {
		Link link = connect();
		this.network.open("sim-0:7000").get(0).dropAfterNextCommand();
		CompletableFuture<String> set = link.setIfAbsent("k", "t", 10_000).toCompletableFuture();
		run(8);
		assertThat(this.events).containsExactly("disconnected");
		assertThat(link.isOpen()).isFalse();
		assertThat(link.setIfAbsent("k2", "t", 10_000).toCompletableFuture()).isCompletedExceptionally()
			.failsWithin(java.time.Duration.ZERO)
			.withThrowableOfType(java.util.concurrent.ExecutionException.class)
			.withCauseInstanceOf(RedisConnectionException.class);
		run(100);
		assertThat(this.events).containsExactly("disconnected", "reconnected");
		// it ran before the drop: the copy sent again finds the key
		assertThat(set).isCompletedWithValue(null);
		assertThat(this.loop.wholeTrace().stream().filter((line) -> line.contains("SET k t NX")).count()).isEqualTo(2);
	}

	@Test
	void aCommandToAStalledServerTimesOutAndStillRunsWhenTheServerResumes() {
		Link link = connect();
		this.loop.pause(this.server.actor);
		CompletableFuture<String> set = link.setIfAbsent("k", "t", 10_000).toCompletableFuture();
		run(1500);
		assertThat(set).isCompletedExceptionally();
		assertThat(set.handle((ok, error) -> Replies.unwrap(error)))
			.isCompletedWithValueMatching(RedisCommandTimeoutException.class::isInstance);
		assertThat(this.server.call("EXISTS", "k")).isEqualTo(0L);
		this.loop.resume(this.server.actor);
		run(1);
		assertThat(this.server.call("GET", "k")).isEqualTo("t");
	}

	@Test
	void aCommandIssuedOnTheConnectionsIoThreadOvertakesOnesNotYetFlushed() {
		Link link = connect();
		SimTransport.Connection connection = this.network.open("sim-0:7000").get(0);
		link.setIfAbsent("k", "from a caller", 10_000);
		this.network.ioContext = connection;
		try {
			link.setIfAbsent("k", "from the io thread", 10_000);
		}
		finally {
			this.network.ioContext = null;
		}
		run(20);
		assertThat(this.server.call("GET", "k")).isEqualTo("from the io thread");
	}

	@Test
	void aConnectionAcceptedJustBeforeAFailoverGoesWithTheAddressNotWithTheServerThatAcceptedIt() {
		Link link = connect();
		this.network.open("sim-0:7000").get(0).reset("a blip");
		// the reconnect goes out 10 ms later; the server accepts it, and the failover
		// comes before the client has taken the connection
		this.loop.runUntil(this.loop.now() + SimRun.millis(10) + 1_000);
		this.loop.pause(this.engine);
		run(1);
		SimServer other = new SimServer("s0'", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 0);
		this.network.repoint("sim-0:7000", other, true);
		this.loop.resume(this.engine);
		run(100);
		assertThat(this.events).containsExactly("disconnected", "reconnected");
		CompletableFuture<String> set = link.setIfAbsent("k", "t", 10_000).toCompletableFuture();
		run(5);
		assertThat(set).isCompletedWithValue("OK");
		assertThat(other.call("EXISTS", "k")).as("the server the address reaches").isEqualTo(1L);
		assertThat(this.server.call("EXISTS", "k")).isEqualTo(0L);
	}

	@Test
	void aPartitionHoldsPacketsUntilItHeals() {
		Link link = connect();
		this.network.partition("e0", "sim-0:7000");
		CompletableFuture<String> set = link.setIfAbsent("k", "t", 10_000).toCompletableFuture();
		run(500);
		assertThat(set).isNotDone();
		assertThat(this.server.call("EXISTS", "k")).isEqualTo(0L);
		this.network.heal("e0", "sim-0:7000", false);
		run(5);
		assertThat(set).isCompletedWithValue("OK");
	}

}
