package io.quorumlock.redis;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Predicate;
import io.quorumlock.redis.node.NodeDataLostException;
import io.quorumlock.redis.node.Script;

/**
 * The answers of one grant round in quorum mode ({@link Script#ACQUIRE}), read as votes,
 * with each refusal's holder kept so that the round can tell a split vote: several
 * contenders that each took some of the masters at once, none a quorum. Made per round;
 * answers arrive on the I/O threads of the nodes, so the holders go into an atomic array
 * slot by slot, without a lock.
 */
final class GrantVotes implements Predicate<Long>, Round.Refusals {

	/** A refusal whose holder is unknown (shared holders, a foreign value). */
	private static final long UNKNOWN = -1;

	/** Holder ids of the refusals, from slot 0 up; 0 where no refusal landed yet. */
	private final AtomicLongArray holders;

	GrantVotes(int nodes) {
		this.holders = new AtomicLongArray(nodes);
	}

	@Override
	public boolean test(Long answer) {
		long value = answer;
		if (value == 1) {
			return true;
		}
		if (value == -1) {
			throw NodeDataLostException.INSTANCE;
		}
		// -2 - h: held by the token whose first 12 hex digits are h (so h + 1 > 0); 0:
		// unknown
		record((value <= -2) ? -1 - value : UNKNOWN);
		return false;
	}

	private void record(long holder) {
		for (int i = 0; i < this.holders.length(); i++) {
			if (this.holders.compareAndSet(i, 0, holder)) {
				return;
			}
		}
	}

	@Override
	public boolean noHolderReached(int quorum) {
		int n = this.holders.length();
		for (int i = 0; i < n; i++) {
			long holder = this.holders.get(i);
			if (holder == 0) {
				break;
			}
			if (holder == UNKNOWN) {
				return false; // a holder we cannot name might hold a quorum
			}
			int same = 0;
			for (int j = i; j < n; j++) {
				same += (this.holders.get(j) == holder) ? 1 : 0;
			}
			if (same >= quorum) {
				return false;
			}
		}
		return true;
	}

}
