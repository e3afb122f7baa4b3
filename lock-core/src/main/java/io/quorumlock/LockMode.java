package io.quorumlock;

/**
 * How a lock is held: by one holder at a time, or by any number of shared holders while
 * no exclusive holder has it (a read/write lock over the quorum).
 * <p>
 * Per node a key holds either one exclusive token or a set of shared tokens; both modes
 * need a quorum, and two majorities of the same nodes always meet in one node, which
 * grants a shared and an exclusive request never both. A waiting exclusive request marks
 * its intent on the nodes that refused it, and new shared grants respect the mark, so a
 * stream of readers cannot starve a writer. A thread that holds a key exclusively may
 * re-enter it as shared (counted as its exclusive hold); a shared holder asking for the
 * same key exclusively is refused (no upgrade).
 */
public enum LockMode {

	/** One holder at a time (the default). */
	EXCLUSIVE,

	/**
	 * Any number of holders at once while no exclusive holder has the key. A shared lease
	 * has no fencing token: {@link Lease#fencingToken()} throws
	 * {@link UnsupportedOperationException}.
	 */
	SHARED

}
