package io.quorumlock.redis;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import io.quorumlock.redis.node.Voter;

/**
 * The failure lines of a round decided before every node answered, as they stood at the
 * decision, written only when read: most such rounds are granted early and nobody reads
 * them. Exact, since an answer is written once: a node that had answered keeps that
 * answer, and one that had not is told as "no answer yet" whatever came after.
 */
final class RoundFailures extends AbstractList<String> {

	private final List<? extends Voter> nodes;

	private final Object[] answers;

	private final long pending;

	private volatile List<String> lines;

	/**
	 * @param nodes the round's nodes
	 * @param answers the round's answers, read through {@link Round#ANSWERS}
	 * @param pending bit i set: node i had not answered at the decision
	 */
	RoundFailures(List<? extends Voter> nodes, Object[] answers, long pending) {
		this.nodes = nodes;
		this.answers = answers;
		this.pending = pending;
	}

	private List<String> lines() {
		List<String> lines = this.lines;
		if (lines == null) {
			lines = new ArrayList<>();
			for (int i = 0; i < this.answers.length; i++) {
				Object a = ((this.pending & (1L << i)) != 0) ? null : Round.ANSWERS.getVolatile(this.answers, i);
				if (a != Round.Vote.YES && a != Round.Vote.NO) {
					lines.add(this.nodes.get(i).address() + ": " + Round.describe(a, false));
				}
			}
			lines = List.copyOf(lines);
			this.lines = lines;
		}
		return lines;
	}

	@Override
	public String get(int index) {
		return lines().get(index);
	}

	@Override
	public int size() {
		return lines().size();
	}

}
