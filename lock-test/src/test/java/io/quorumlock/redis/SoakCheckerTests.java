package io.quorumlock.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak's checker finds what it must find: overlapping holds, tokens out of order,
 * holds never exited, and excuses only what a lost lease explains.
 */
class SoakCheckerTests {

	private static final String S = "S\t-\t-\t-\t-1\t999\t0\tacquired=2,notAcquired=3,unavailable=4,noToken=0,lost=0";

	@Test
	void disjointHoldsWithRisingTokensPass() {
		SoakChecker.Report report = SoakChecker.check(
				List.of(List.of(enter("k1", "a", 7, 100), exit("k1", "a", 7, 110, "ok"), enter("k1", "a", 9, 300),
						exit("k1", "a", 9, 310, "ok"), S),
						List.of(enter("k1", "b", 8, 200), exit("k1", "b", 8, 210, "ok"), enter("k2", "b", 1, 205),
								exit("k2", "b", 1, 206, "ok"), S)),
				List.of("F\t1\tkill\tnode-1", "F\t2\tpause\tnode-2", "F\t3\tkill\tnode-3"));
		assertThat(report.acquisitions()).isEqualTo(4);
		assertThat(report.keys()).isEqualTo(2);
		assertThat(report.overlaps()).isZero();
		assertThat(report.tokenViolations()).isZero();
		assertThat(report.notAcquired()).isEqualTo(6);
		assertThat(report.unavailable()).isEqualTo(8);
		assertThat(report.faults()).containsEntry("kill", 2).containsEntry("pause", 1);
		assertThat(report.faultCount()).isEqualTo(3);
		assertThat(report.finishedWorkers()).isEqualTo(2);
		assertThat(report.malformed()).isZero();
	}

	@Test
	void holdEnteringBeforeTheEarlierExitIsAnOverlap() {
		SoakChecker.Report report = SoakChecker
			.check(List.of(List.of(enter("k1", "a", 1, 100), exit("k1", "a", 1, 200, "ok")),
					List.of(enter("k1", "b", 2, 199), exit("k1", "b", 2, 250, "ok"))), List.of());
		assertThat(report.overlaps()).isEqualTo(1);
		assertThat(report.examples()).singleElement().asString().startsWith("VIOLATION overlap on k1");
	}

	@Test
	void overlapWithAnyEarlierHoldCountsNotOnlyThePreviousOne() {
		// a long hold, then a short one inside it, then a third inside the long one only
		SoakChecker.Report report = SoakChecker
			.check(List.of(List.of(enter("k1", "a", 1, 100), exit("k1", "a", 1, 1000, "ok")),
					List.of(enter("k1", "b", 2, 200), exit("k1", "b", 2, 210, "ok")),
					List.of(enter("k1", "c", 3, 500), exit("k1", "c", 3, 510, "ok"))), List.of());
		assertThat(report.overlaps()).isEqualTo(2);
	}

	@Test
	void overlapAfterTheEarlierLeaseWasLostIsExcusedButCounted() {
		SoakChecker.Report report = SoakChecker
			.check(List.of(List.of(enter("k1", "a", 1, 100), exit("k1", "a", 1, 200, "lost:140")),
					List.of(enter("k1", "b", 2, 150), exit("k1", "b", 2, 250, "ok"))), List.of());
		assertThat(report.overlaps()).isZero();
		assertThat(report.excusedOverlaps()).isEqualTo(1);
		assertThat(report.lost()).isEqualTo(1);
	}

	@Test
	void overlapWhileTheEarlierLostLeaseWasStillValidIsAViolation() {
		// lost, but only after the next holder had been granted the key
		SoakChecker.Report report = SoakChecker
			.check(List.of(List.of(enter("k1", "a", 1, 100), exit("k1", "a", 1, 200, "lost:160")),
					List.of(enter("k1", "b", 2, 150), exit("k1", "b", 2, 250, "ok"))), List.of());
		assertThat(report.overlaps()).isEqualTo(1);
		assertThat(report.excusedOverlaps()).isZero();
	}

	@Test
	void lostLeaseDoesNotHideAnOverlapWithAHolderThatKeptItsLease() {
		SoakChecker.Report report = SoakChecker
			.check(List.of(List.of(enter("k1", "a", 1, 100), exit("k1", "a", 1, 1000, "lost:150")),
					List.of(enter("k1", "b", 2, 200), exit("k1", "b", 2, 300, "ok")),
					List.of(enter("k1", "c", 3, 250), exit("k1", "c", 3, 260, "ok"))), List.of());
		assertThat(report.overlaps()).isEqualTo(1);
		assertThat(report.excusedOverlaps()).isEqualTo(1);
	}

	@Test
	void tokenNotAboveAnEarlierHoldersIsAViolation() {
		SoakChecker.Report report = SoakChecker.check(List
			.of(List.of(enter("k1", "a", 5, 100), exit("k1", "a", 5, 110, "ok")), List.of(enter("k1", "b", 5, 200),
					exit("k1", "b", 5, 210, "ok"), enter("k1", "b", 4, 300), exit("k1", "b", 4, 310, "ok"))),
				List.of());
		assertThat(report.overlaps()).isZero();
		assertThat(report.tokenViolations()).isEqualTo(2);
	}

	@Test
	void holdWithoutATokenIsLeftOutOfTheTokenCheck() {
		SoakChecker.Report report = SoakChecker.check(
				List.of(List.of(enter("k1", "a", 5, 100), exit("k1", "a", 5, 110, "ok"), enter("k1", "a", -1, 200),
						exit("k1", "a", -1, 210, "ok"), enter("k1", "a", 6, 300), exit("k1", "a", 6, 310, "ok"))),
				List.of());
		assertThat(report.tokenViolations()).isZero();
	}

	@Test
	void holdNeverExitedLastsForeverAndIsCounted() {
		SoakChecker.Report report = SoakChecker.check(List.of(List.of(enter("k1", "a", 1, 100)),
				List.of(enter("k1", "b", 2, 5000), exit("k1", "b", 2, 5010, "ok"))), List.of());
		assertThat(report.unfinished()).isEqualTo(1);
		assertThat(report.overlaps()).isEqualTo(1);
	}

	@Test
	void exitThatMatchesNoEnterIsMalformed() {
		SoakChecker.Report report = SoakChecker.check(List.of(List.of(exit("k1", "a", 1, 100, "ok"),
				enter("k1", "a", 1, 200), exit("k2", "a", 1, 210, "ok"), "garbage")), List.of());
		assertThat(report.malformed()).isEqualTo(3);
		assertThat(SoakChecker
			.check(List.of(List.of(enter("k1", "a", 1, 100), exit("k1", "a", 1, 110, "what"))), List.of())
			.malformed()).isEqualTo(1);
	}

	private static String enter(String key, String thread, long token, long nanos) {
		return String.join("\t", "E", key, "jvm-" + thread, thread, Long.toString(token), Long.toString(nanos), "0",
				"-");
	}

	private static String exit(String key, String thread, long token, long nanos, String status) {
		return String.join("\t", "X", key, "jvm-" + thread, thread, Long.toString(token), Long.toString(nanos), "0",
				status);
	}

}
