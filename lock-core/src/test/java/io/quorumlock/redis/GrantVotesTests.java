package io.quorumlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import io.quorumlock.redis.node.NodeDataLostException;

/**
 * A grant round's answers as votes, and what its refusals say about their holders: a
 * split vote is one where no holder holds a quorum.
 */
class GrantVotesTests {

	/**
	 * The answer of a node where the token with these first 12 hex digits holds the key.
	 */
	private static long heldBy(long prefix) {
		return -2 - prefix;
	}

	@Test
	void aGrantIsAYesAndARefusalANo() {
		GrantVotes votes = new GrantVotes(3);
		assertThat(votes.test(1L)).isTrue();
		assertThat(votes.test(heldBy(0xabc))).isFalse();
		assertThat(votes.test(0L)).isFalse();
	}

	@Test
	void threeContendersOnOneNodeEachIsASplitVote() {
		GrantVotes votes = new GrantVotes(3);
		votes.test(1L);
		votes.test(heldBy(0xaaa));
		votes.test(heldBy(0));
		assertThat(votes.noHolderReached(2)).isTrue();
	}

	@Test
	void oneContenderOnAQuorumIsNot() {
		GrantVotes votes = new GrantVotes(3);
		votes.test(1L);
		votes.test(heldBy(0xaaa));
		votes.test(heldBy(0xaaa));
		assertThat(votes.noHolderReached(2)).isFalse();
		GrantVotes five = new GrantVotes(5);
		five.test(heldBy(1));
		five.test(heldBy(2));
		five.test(heldBy(1));
		five.test(heldBy(1));
		five.test(1L);
		assertThat(five.noHolderReached(3)).isFalse();
	}

	@Test
	void aHolderThatCannotBeNamedMightHoldAQuorum() {
		GrantVotes votes = new GrantVotes(3);
		votes.test(1L);
		votes.test(heldBy(0xaaa));
		votes.test(0L); // shared holders, or a foreign value
		assertThat(votes.noHolderReached(2)).isFalse();
	}

	@Test
	void aMissingDatasetMarkerIsAFailureNotAVote() {
		assertThatExceptionOfType(NodeDataLostException.class).isThrownBy(() -> new GrantVotes(3).test(-1L));
	}

}
