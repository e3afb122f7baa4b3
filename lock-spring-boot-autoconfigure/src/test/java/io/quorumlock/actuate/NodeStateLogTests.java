package io.quorumlock.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.quorumlock.RegistryStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NodeStateLog} logs each change of a node once, however often it polls: down
 * (with the server's or transport's words, and again when they change), back, held back
 * by the restart guard (for how long and why), evicting, not ready for too long, voting
 * again.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class NodeStateLogTests {

	private final List<RegistryStatus.Node> nodes = new ArrayList<>();

	private final NodeStateLog log = new NodeStateLog(new FixedStatus(this.nodes), Duration.ofSeconds(30));

	@Test
	void eachTransitionIsLoggedOnce(CapturedOutput output) {
		set(voting("a:1"), voting("b:2"), voting("c:3"));
		poll(3);
		assertThat(output).doesNotContain("quorumlock: master");
		set(voting("a:1"), down("b:2"), down("c:3"));
		poll(3);
		assertThat(count(output, "quorumlock: master b:2 is not connected; 1 of 3 masters vote now, a lock needs 2: "
				+ "locks fail until enough masters are back"))
			.isOne();
		set(voting("a:1"), heldBack("b:2", 11, 19), down("c:3"));
		poll(3);
		assertThat(count(output, "quorumlock: master b:2 is connected again")).isOne();
		assertThat(count(output, "quorumlock: master b:2 is held back by the restart guard for another 19 s "
				+ "(restart guard 30 s, the longest declared lease or quorumlock.rejoin-delay): it lost its data, or a "
				+ "new server process came up with it, and may lack the keys of leases still held; 1 of 3 masters "
				+ "vote now, a lock needs 2: locks fail until then"))
			.isOne();
		set(voting("a:1"), voting("b:2"), down("c:3"));
		poll(3);
		assertThat(count(output, "quorumlock: master b:2 votes again: the restart guard (30 s) has passed")).isOne();
		assertThat(count(output, "is not connected")).isEqualTo(2);
	}

	@Test
	void votingAgainNamesTheGuardTheNodeServed(CapturedOutput output) {
		set(voting("a:1"), voting("b:2"), voting("c:3"));
		poll(3);
		set(voting("a:1"), failed("b:2", RegistryStatus.NodeState.HELD_BACK,
				"held back by the restart guard for another 590 s: it lost its data (restarted empty, flushed, another "
						+ "server behind its address, or keys evicted) (rejoin-delay 600 s, recorded by 4242@batch-1 "
						+ "since 2026-12-01T23:40:00Z)"),
				voting("c:3"));
		poll(3);
		set(voting("a:1"), voting("b:2"), voting("c:3"));
		poll(3);
		assertThat(count(output, "quorumlock: master b:2 votes again: the restart guard (rejoin-delay 600 s, recorded "
				+ "by 4242@batch-1 since 2026-12-01T23:40:00Z) has passed"))
			.isOne();
	}

	@Test
	void downNodeIsLoggedWithTheServersWordsAndAgainWhenTheyChange(CapturedOutput output) {
		set(voting("a:1"), voting("b:2"), failed("c:3", RegistryStatus.NodeState.DOWN, "not connected"));
		poll(3);
		assertThat(count(output, "quorumlock: master c:3 is not connected; 2 of 3 masters vote now, a lock needs 2"))
			.isOne();
		set(voting("a:1"), voting("b:2"), failed("c:3", RegistryStatus.NodeState.DOWN,
				"not connected, last attempt: WRONGPASS invalid username-password pair or user is disabled."));
		poll(3);
		assertThat(count(output,
				"quorumlock: master c:3 is still not connected, last attempt: WRONGPASS invalid "
						+ "username-password pair or user is disabled.; 2 of 3 masters vote now, a lock needs 2"))
			.isOne();
		assertThat(output).doesNotContain("locks fail");
	}

	@Test
	void nodeHeldBackForAnotherReasonSaysWhy(CapturedOutput output) {
		set(voting("a:1"),
				failed("b:2", RegistryStatus.NodeState.EVICTING,
						"evicting: maxmemory-policy allkeys-lru with a maxmemory limit can drop held lock keys"),
				failed("c:3", RegistryStatus.NodeState.HELD_BACK,
						"held back by the restart guard for another 12 s: it lost its data (rejoin-delay 30 s)"));
		poll(2);
		assertThat(count(output, "quorumlock: master b:2 does not vote: evicting: maxmemory-policy allkeys-lru with "
				+ "a maxmemory limit can drop held lock keys; 1 of 3 masters vote now, a lock needs 2: locks fail "
				+ "until it votes again"))
			.isOne();
		assertThat(count(output, "quorumlock: master c:3 is held back by the restart guard for another 12 s: it lost "
				+ "its data (rejoin-delay 30 s); 1 of 3 masters vote now, a lock needs 2: locks fail until then. For "
				+ "brand-new masters on which no lock was ever taken, see quorumlock.fresh-master-run-ids"))
			.isOne();
	}

	@Test
	void nodeThatStaysNotReadyIsLoggedAfterAFewChecks(CapturedOutput output) {
		RegistryStatus.Node starting = new RegistryStatus.Node("b:2", true, Duration.ZERO, Duration.ofSeconds(-1),
				false, Duration.ZERO, null, RegistryStatus.NodeState.HELD_BACK,
				"its lock scripts are not loaded on this connection yet (NOPERM this user has no permissions to run "
						+ "the 'script|load' command)",
				null, null);
		set(voting("a:1"), starting, voting("c:3"));
		poll(NodeStateLog.STARTING_CHECKS);
		assertThat(output).doesNotContain("quorumlock: master b:2");
		poll(3);
		assertThat(count(output, "quorumlock: master b:2 does not vote: its lock scripts are not loaded on this "
				+ "connection yet (NOPERM this user has no permissions to run the 'script|load' command); 2 of 3 "
				+ "masters vote now, a lock needs 2"))
			.isOne();
	}

	private static RegistryStatus.Node failed(String address, RegistryStatus.NodeState state, String error) {
		boolean up = state != RegistryStatus.NodeState.DOWN;
		return new RegistryStatus.Node(address, up, Duration.ZERO, up ? Duration.ofSeconds(3) : Duration.ofSeconds(-1),
				false, Duration.ZERO, null, state, error, null, null);
	}

	private void poll(int times) {
		for (int i = 0; i < times; i++) {
			this.log.check();
		}
	}

	private void set(RegistryStatus.Node... states) {
		this.nodes.clear();
		this.nodes.addAll(List.of(states));
	}

	private static int count(CapturedOutput output, String text) {
		return output.getAll().split(java.util.regex.Pattern.quote(text), -1).length - 1;
	}

	private static RegistryStatus.Node voting(String address) {
		return new RegistryStatus.Node(address, true, Duration.ZERO, Duration.ofMinutes(5), true, Duration.ZERO, null);
	}

	private static RegistryStatus.Node down(String address) {
		return new RegistryStatus.Node(address, false, Duration.ZERO, Duration.ofSeconds(-1), false,
				Duration.ofSeconds(30), null);
	}

	private static RegistryStatus.Node heldBack(String address, int uptime, int left) {
		return new RegistryStatus.Node(address, true, Duration.ZERO, Duration.ofSeconds(uptime), false,
				Duration.ofSeconds(left), null);
	}

	private record FixedStatus(List<RegistryStatus.Node> nodes) implements RegistryStatus {

		@Override
		public String mode() {
			return "quorum";
		}

		@Override
		public int quorum() {
			return 2;
		}

		@Override
		public List<HeldLease> leases() {
			return List.of();
		}

	}

}
