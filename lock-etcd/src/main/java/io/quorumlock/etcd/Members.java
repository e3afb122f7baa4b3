package io.quorumlock.etcd;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.etcd.jetcd.maintenance.StatusResponse;
import io.quorumlock.RegistryStatus;
import io.quorumlock.RegistryStatus.NodeState;

/**
 * What the registry knows of each etcd member, for operators: a periodic status request
 * to each member at its own client URL (one at a time per member, bounded by the request
 * timeout), from the first time anyone asks ({@link #nodes}) on, so a registry whose
 * status nobody reads sends none. A member that answers and knows a leader votes; one
 * that answers without a leader (cut off from the majority) is up but does not vote; one
 * that does not answer is down; one not answered yet is unknown (not up, not voting,
 * reported held back rather than down). Only these status requests decide what is shown:
 * the locks never wait for them.
 */
final class Members {

	/** Why a member not asked yet does not vote. */
	static final String NOT_ASKED = "no answer yet";

	private final List<String> endpoints;

	private final List<String> addresses;

	private final EtcdCalls calls;

	private final Member[] members;

	private final ScheduledExecutorService scheduler;

	private final Duration period;

	private final AtomicBoolean started = new AtomicBoolean();

	private volatile ScheduledFuture<?> probes;

	Members(List<String> endpoints, EtcdCalls calls, ScheduledExecutorService scheduler, Duration period) {
		this.endpoints = List.copyOf(endpoints);
		this.addresses = endpoints.stream().map(URI::create).map((uri) -> uri.getHost() + ":" + uri.getPort()).toList();
		this.calls = calls;
		this.members = new Member[endpoints.size()];
		Instant now = Instant.now();
		for (int i = 0; i < this.members.length; i++) {
			this.members[i] = new Member(new Seen(false, false, Duration.ZERO, NOT_ASKED, now, 0, 0));
		}
		this.scheduler = scheduler;
		this.period = period;
	}

	/** Ask every member whose last request is answered. */
	void probe() {
		for (int i = 0; i < this.members.length; i++) {
			Member member = this.members[i];
			if (!member.asking.compareAndSet(false, true)) {
				continue;
			}
			long start = System.nanoTime();
			this.calls.status(this.endpoints.get(i)).whenComplete((status, failure) -> {
				Duration latency = Duration.ofNanos(System.nanoTime() - start);
				member.seen(status, failure, latency);
				member.asking.set(false);
			});
		}
	}

	/**
	 * Each member as last seen, in configuration order; the first call starts the status
	 * requests.
	 */
	List<RegistryStatus.Node> nodes(boolean closed) {
		if (!closed && this.started.compareAndSet(false, true)) {
			this.probes = this.scheduler.scheduleWithFixedDelay(this::probe, 0, this.period.toNanos(),
					TimeUnit.NANOSECONDS);
		}
		List<RegistryStatus.Node> nodes = new ArrayList<>(this.members.length);
		for (int i = 0; i < this.members.length; i++) {
			Seen seen = this.members[i].seen;
			boolean up = !closed && seen.answered();
			String error = closed ? "the registry is closed" : seen.lastError();
			// not answered yet is unknown, not down
			NodeState state = (!closed && NOT_ASKED.equals(error)) ? NodeState.HELD_BACK
					: NodeState.of(up, seen.leader(), null);
			nodes.add(new RegistryStatus.Node(this.addresses.get(i), up, seen.latency(), Duration.ofSeconds(-1),
					seen.leader(), Duration.ZERO, null, state, error, seen.since(), null));
		}
		return nodes;
	}

	void close() {
		this.started.set(true);
		ScheduledFuture<?> running = this.probes;
		if (running != null) {
			running.cancel(false);
		}
	}

	/** One member: its last status and whether a status request is out. */
	private static final class Member {

		final AtomicBoolean asking = new AtomicBoolean();

		volatile Seen seen;

		Member(Seen seen) {
			this.seen = seen;
		}

		void seen(StatusResponse status, Throwable failure, Duration latency) {
			Seen last = this.seen;
			Seen next;
			if (failure != null) {
				next = new Seen(false, false, last.latency(), EtcdCalls.describe(failure), last.since(),
						last.leaderId(), last.raftTerm());
			}
			else if (status.getLeader() == 0) {
				next = new Seen(true, false, latency, "no leader: this member is cut off from the cluster's majority",
						last.since(), 0, status.getRaftTerm());
			}
			else {
				// a voting member shows the last failure it had, as a Redis node does
				String error = NOT_ASKED.equals(last.lastError()) ? null : last.lastError();
				next = new Seen(true, true, latency, error, last.since(), status.getLeader(), status.getRaftTerm());
			}
			if (next.answered() != last.answered() || next.leader() != last.leader()) {
				next = next.since(Instant.now());
			}
			this.seen = next;
		}

	}

	/**
	 * A member as last seen.
	 *
	 * @param answered whether it answered its last status request
	 * @param leader whether it knew a leader then
	 * @param latency round trip of its last answered status request
	 * @param lastError its last failure, or why it does not vote; null if none
	 * @param since when it entered its current state
	 * @param leaderId the leader it reported, 0 if none
	 * @param raftTerm the raft term it reported
	 */
	private record Seen(boolean answered, boolean leader, Duration latency, String lastError, Instant since,
			long leaderId, long raftTerm) {

		Seen since(Instant when) {
			return new Seen(this.answered, this.leader, this.latency, this.lastError, when, this.leaderId,
					this.raftTerm);
		}

	}

}
