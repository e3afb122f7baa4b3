package io.quorumlock.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak's modes checker finds what it must find: a reader overlapping a writer, two
 * writers together, k + 1 permit holders, and excuses only what a lost lease explains.
 */
class SoakModeCheckerTests {

	private static final String S = "S\t-\tjvm\t-\t-\t999\tshared=2,exclusive=1,permits=3,notAcquired=4,unavailable=5,lost=0";

	@Test
	void sharedHoldsOverlapAndWritersComeBetweenThem() {
		SoakModeChecker.Report report = SoakModeChecker.check(List.of(
				List.of(enter("m1", "a", "shared", 100), exit("m1", "a", "shared", 200, "ok"),
						enter("m1", "a", "exclusive", 300), exit("m1", "a", "exclusive", 400, "ok"), S),
				List.of(enter("m1", "b", "shared", 150), exit("m1", "b", "shared", 250, "ok"),
						enter("m1", "b", "shared", 400), exit("m1", "b", "shared", 500, "ok"), S)));
		assertThat(report.sharedOverlaps()).isEqualTo(1);
		assertThat(report.mixViolations()).isZero();
		assertThat(report.excusedMixOverlaps()).isZero();
		assertThat(report.shared()).isEqualTo(4);
		assertThat(report.exclusive()).isEqualTo(2);
		assertThat(report.notAcquired()).isEqualTo(8);
		assertThat(report.finishedWorkers()).isEqualTo(2);
		assertThat(report.malformed()).isZero();
		assertThat(report.describe()).contains("mix violations:           0");
	}

	@Test
	void readerEnteringWhileAWriterHoldsIsAViolation() {
		SoakModeChecker.Report report = SoakModeChecker
			.check(List.of(List.of(enter("m1", "a", "exclusive", 100), exit("m1", "a", "exclusive", 200, "ok")),
					List.of(enter("m1", "b", "shared", 199), exit("m1", "b", "shared", 250, "ok"))));
		assertThat(report.mixViolations()).isEqualTo(1);
		assertThat(report.examples()).singleElement().asString().startsWith("VIOLATION mix overlap on m1");
	}

	@Test
	void writerEnteringWhileAReaderHoldsIsAViolation() {
		// the reader holds across two writers: each overlaps it
		SoakModeChecker.Report report = SoakModeChecker
			.check(List.of(List.of(enter("m1", "a", "shared", 100), exit("m1", "a", "shared", 1000, "ok")),
					List.of(enter("m1", "b", "exclusive", 200), exit("m1", "b", "exclusive", 210, "ok"),
							enter("m1", "b", "exclusive", 500), exit("m1", "b", "exclusive", 510, "ok"))));
		assertThat(report.mixViolations()).isEqualTo(2);
	}

	@Test
	void twoWritersTogetherIsAViolationButOtherKeysAreApart() {
		SoakModeChecker.Report report = SoakModeChecker
			.check(List.of(List.of(enter("m1", "a", "exclusive", 100), exit("m1", "a", "exclusive", 200, "ok")),
					List.of(enter("m1", "b", "exclusive", 150), exit("m1", "b", "exclusive", 160, "ok")),
					List.of(enter("m2", "c", "exclusive", 150), exit("m2", "c", "exclusive", 160, "ok"))));
		assertThat(report.mixViolations()).isEqualTo(1);
	}

	@Test
	void readerAfterTheWritersLeaseWasLostIsExcusedButCounted() {
		SoakModeChecker.Report report = SoakModeChecker
			.check(List.of(List.of(enter("m1", "a", "exclusive", 100), exit("m1", "a", "exclusive", 200, "lost:140")),
					List.of(enter("m1", "b", "shared", 150), exit("m1", "b", "shared", 250, "ok"))));
		assertThat(report.mixViolations()).isZero();
		assertThat(report.excusedMixOverlaps()).isEqualTo(1);
	}

	@Test
	void readerWhileTheWritersLostLeaseWasStillValidIsAViolation() {
		SoakModeChecker.Report report = SoakModeChecker
			.check(List.of(List.of(enter("m1", "a", "exclusive", 100), exit("m1", "a", "exclusive", 200, "lost:160")),
					List.of(enter("m1", "b", "shared", 150), exit("m1", "b", "shared", 250, "ok"))));
		assertThat(report.mixViolations()).isEqualTo(1);
		assertThat(report.excusedMixOverlaps()).isZero();
	}

	@Test
	void kPermitHoldersPassAndThePeakIsK() {
		SoakModeChecker.Report report = SoakModeChecker.check(List.of(
				List.of(enter("p1", "a", "permit:3", 100), exit("p1", "a", "permit:3", 300, "ok"),
						enter("p1", "a", "permit:3", 400), exit("p1", "a", "permit:3", 500, "ok")),
				List.of(enter("p1", "b", "permit:3", 150), exit("p1", "b", "permit:3", 350, "ok")),
				List.of(enter("p1", "c", "permit:3", 200), exit("p1", "c", "permit:3", 250, "ok"),
						enter("p1", "c", "permit:3", 300), exit("p1", "c", "permit:3", 310, "ok"))));
		assertThat(report.permitViolations()).isZero();
		assertThat(report.excusedPermitOverlaps()).isZero();
		assertThat(report.peakPermitHolders()).containsEntry("p1", 3);
	}

	@Test
	void kPlusOnePermitHoldersIsAViolation() {
		SoakModeChecker.Report report = SoakModeChecker
			.check(List.of(List.of(enter("p0", "a", "permit:2", 100), exit("p0", "a", "permit:2", 300, "ok")),
					List.of(enter("p0", "b", "permit:2", 150), exit("p0", "b", "permit:2", 350, "ok")),
					List.of(enter("p0", "c", "permit:2", 200), exit("p0", "c", "permit:2", 250, "ok"))));
		assertThat(report.permitViolations()).isEqualTo(1);
		assertThat(report.peakPermitHolders()).containsEntry("p0", 3);
		assertThat(report.examples()).singleElement().asString().startsWith("VIOLATION 3 holders of 2 permits on p0");
	}

	@Test
	void extraPermitHolderAfterALostLeaseIsExcusedButCounted() {
		SoakModeChecker.Report report = SoakModeChecker
			.check(List.of(List.of(enter("p0", "a", "permit:2", 100), exit("p0", "a", "permit:2", 300, "lost:180")),
					List.of(enter("p0", "b", "permit:2", 150), exit("p0", "b", "permit:2", 350, "ok")),
					List.of(enter("p0", "c", "permit:2", 200), exit("p0", "c", "permit:2", 250, "ok"))));
		assertThat(report.permitViolations()).isZero();
		assertThat(report.excusedPermitOverlaps()).isEqualTo(1);
		assertThat(report.peakPermitHolders()).containsEntry("p0", 2);
	}

	@Test
	void holdNeverExitedLastsForeverAndIsCounted() {
		SoakModeChecker.Report report = SoakModeChecker.check(List.of(List.of(enter("m1", "a", "exclusive", 100)),
				List.of(enter("m1", "b", "shared", 5000), exit("m1", "b", "shared", 5010, "ok"))));
		assertThat(report.unfinished()).isEqualTo(1);
		assertThat(report.mixViolations()).isEqualTo(1);
	}

	@Test
	void recordsThatDoNotMatchOrParseAreMalformed() {
		SoakModeChecker.Report report = SoakModeChecker.check(List.of(List.of(exit("m1", "a", "shared", 100, "ok"),
				enter("m1", "a", "shared", 200), exit("m1", "a", "exclusive", 210, "ok"),
				enter("m2", "b", "upgrade", 1), exit("m2", "c", "permit:x", 2, "ok"), enter("m3", "d", "shared", 3),
				exit("m3", "d", "shared", 4, "what"), "garbage")));
		assertThat(report.malformed()).isEqualTo(6);
		assertThat(report.unfinished()).isEqualTo(1);
	}

	private static String enter(String key, String thread, String mode, long nanos) {
		return String.join("\t", "E", key, "jvm-" + thread, thread, mode, Long.toString(nanos), "-");
	}

	private static String exit(String key, String thread, String mode, long nanos, String status) {
		return String.join("\t", "X", key, "jvm-" + thread, thread, mode, Long.toString(nanos), status);
	}

}
