package io.quorumlock.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the logs of a soak run and checks mutual exclusion and fencing, knowing nothing
 * of the engine.
 * <p>
 * Worker logs ({@code worker-*.log}), one tab-separated record per line:
 * {@code E key jvm thread token nanoTime wallMillis -} when a holder got the lock,
 * {@code X key jvm thread token nanoTime wallMillis ok|lost:invalidAt} when it was about
 * to release it ({@code lost}: the lock itself reported the lease lost, by
 * {@code isValid()} or {@link io.quorumlock.LeaseLostException}; {@code invalidAt}: the
 * nanoTime from which the holder's own engine no longer counted it valid, the earlier of
 * the reported loss and the validity's end), and one final
 * {@code S - - - -1 nanoTime wallMillis acquired=..,notAcquired=..,...} summary. The
 * fault log ({@code faults.log}): {@code F nanoTime kind node}.
 * <p>
 * Time is {@link System#nanoTime()}: on Linux the JVM reads it from
 * {@code CLOCK_MONOTONIC}, one clock shared by every process of the machine, so the
 * stamps of different JVMs compare directly (unlike {@code currentTimeMillis()}, which is
 * coarse and can step). The check therefore holds for processes on one Linux machine. A
 * hold spans from the moment {@code acquire} returned to the moment before
 * {@code release} was called, so a correct lock gives disjoint spans.
 * <ul>
 * <li>Overlap: on one key, a hold entered before an earlier hold exited. It is excused
 * (counted apart) only when the earlier holder was told its lease was lost and the later
 * one entered after that lease had stopped being valid by the earlier holder's own
 * account: a grant while the earlier lease was still valid is a violation, lost or
 * not.</li>
 * <li>Fencing: on one key, in enter order, every token is larger than every earlier
 * token; again excused when a lost lease is involved. Holds without a token (the fencing
 * call failed during a fault) are left out.</li>
 * </ul>
 */
final class SoakChecker {

	private SoakChecker() {
	}

	/**
	 * One hold of a key; {@code exit} is {@code Long.MAX_VALUE} if never logged,
	 * {@code invalidAt} is {@code Long.MAX_VALUE} unless lost.
	 */
	record Hold(String key, String jvm, String thread, long token, long enter, long exit, long invalidAt) {

		boolean lost() {
			return this.invalidAt != Long.MAX_VALUE;
		}

		/** Until when this hold excluded others: its exit, or earlier if it was lost. */
		long validReach() {
			return Math.min(this.exit, this.invalidAt);
		}

		String describe() {
			return this.jvm + "/" + this.thread + " token " + this.token + " [" + this.enter + ", "
					+ ((this.exit == Long.MAX_VALUE) ? "open" : this.exit) + "]"
					+ (lost() ? " lost, invalid from " + this.invalidAt : "");
		}

	}

	/** What the logs show. */
	record Report(int workers, int finishedWorkers, long acquisitions, long notAcquired, long unavailable, long noToken,
			long lost, long unfinished, long malformed, Map<String, Integer> faults, int keys, long overlaps,
			long excusedOverlaps, long tokenViolations, long excusedTokenViolations, List<String> examples) {

		int faultCount() {
			return this.faults.values().stream().mapToInt(Integer::intValue).sum();
		}

		String describe() {
			StringBuilder sb = new StringBuilder();
			sb.append("soak: ")
				.append(this.workers)
				.append(" worker logs (")
				.append(this.finishedWorkers)
				.append(" finished), ")
				.append(this.keys)
				.append(" keys\n");
			sb.append("  acquisitions:             ").append(this.acquisitions).append('\n');
			sb.append("  not acquired in the wait: ").append(this.notAcquired).append('\n');
			sb.append("  quorum unavailable:       ").append(this.unavailable).append('\n');
			sb.append("  holds without a token:    ").append(this.noToken).append('\n');
			sb.append("  leases reported lost:     ").append(this.lost).append('\n');
			sb.append("  holds never exited:       ").append(this.unfinished).append('\n');
			sb.append("  malformed records:        ").append(this.malformed).append('\n');
			sb.append("  faults injected:          ").append(faultCount()).append(' ').append(this.faults).append('\n');
			sb.append("  overlapping holds:        ")
				.append(this.overlaps)
				.append(" (excused, lease lost: ")
				.append(this.excusedOverlaps)
				.append(")\n");
			sb.append("  token order violations:   ")
				.append(this.tokenViolations)
				.append(" (excused, lease lost: ")
				.append(this.excusedTokenViolations)
				.append(")");
			for (String example : this.examples) {
				sb.append("\n  ").append(example);
			}
			return sb.toString();
		}

	}

	static Report check(Path dir) throws IOException {
		Map<String, List<String>> workers = new TreeMap<>();
		try (DirectoryStream<Path> logs = Files.newDirectoryStream(dir, "worker-*.log")) {
			for (Path log : logs) {
				workers.put(log.getFileName().toString(), Files.readAllLines(log, StandardCharsets.UTF_8));
			}
		}
		Path faults = dir.resolve("faults.log");
		List<String> faultLines = Files.exists(faults) ? Files.readAllLines(faults, StandardCharsets.UTF_8) : List.of();
		return check(workers.values(), faultLines);
	}

	static Report check(Iterable<List<String>> workerLogs, List<String> faultLines) {
		Map<String, List<Hold>> byKey = new TreeMap<>();
		int workers = 0;
		int finished = 0;
		long notAcquired = 0;
		long unavailable = 0;
		long noToken = 0;
		long lost = 0;
		long unfinished = 0;
		long malformed = 0;
		long acquisitions = 0;
		for (List<String> lines : workerLogs) {
			workers++;
			Map<String, String[]> open = new HashMap<>();
			for (String line : lines) {
				String[] f = line.split("\t", -1);
				if (f.length != 8) {
					malformed++;
					continue;
				}
				switch (f[0]) {
					case "E" -> {
						acquisitions++;
						if (open.put(f[3], f) != null) {
							malformed++; // an enter without an exit in the same thread
						}
					}
					case "X" -> {
						String[] enter = open.remove(f[3]);
						if (enter == null || !enter[1].equals(f[1]) || !enter[4].equals(f[4])) {
							malformed++;
							continue;
						}
						long invalidAt = Long.MAX_VALUE;
						if (f[7].startsWith("lost:")) {
							lost++;
							invalidAt = Long.parseLong(f[7].substring("lost:".length()));
						}
						else if (!"ok".equals(f[7])) {
							malformed++;
						}
						add(byKey, new Hold(f[1], f[2], f[3], Long.parseLong(f[4]), Long.parseLong(enter[5]),
								Long.parseLong(f[5]), invalidAt));
					}
					case "S" -> {
						finished++;
						Map<String, Long> figures = figures(f[7]);
						notAcquired += figures.getOrDefault("notAcquired", 0L);
						unavailable += figures.getOrDefault("unavailable", 0L);
						noToken += figures.getOrDefault("noToken", 0L);
					}
					default -> malformed++;
				}
			}
			for (String[] enter : open.values()) {
				unfinished++;
				add(byKey, new Hold(enter[1], enter[2], enter[3], Long.parseLong(enter[4]), Long.parseLong(enter[5]),
						Long.MAX_VALUE, Long.MAX_VALUE));
			}
		}
		Map<String, Integer> faults = new TreeMap<>();
		for (String line : faultLines) {
			String[] f = line.split("\t", -1);
			if (f.length >= 3 && "F".equals(f[0])) {
				faults.merge(f[2], 1, Integer::sum);
			}
		}
		long[] figures = new long[4];
		List<String> examples = new ArrayList<>();
		byKey.values().forEach((holds) -> checkKey(holds, figures, examples));
		return new Report(workers, finished, acquisitions, notAcquired, unavailable, noToken, lost, unfinished,
				malformed, faults, byKey.size(), figures[0], figures[1], figures[2], figures[3], examples);
	}

	private static void add(Map<String, List<Hold>> byKey, Hold hold) {
		byKey.computeIfAbsent(hold.key(), (k) -> new ArrayList<>()).add(hold);
	}

	private static Map<String, Long> figures(String text) {
		Map<String, Long> figures = new HashMap<>();
		for (String pair : text.split(",")) {
			String[] kv = pair.split("=", 2);
			if (kv.length == 2) {
				figures.put(kv[0], Long.parseLong(kv[1]));
			}
		}
		return figures;
	}

	/**
	 * figures: overlaps, excused overlaps, token violations, excused token violations.
	 */
	private static void checkKey(List<Hold> holds, long[] figures, List<String> examples) {
		holds.sort(Comparator.comparingLong(Hold::enter).thenComparingLong(Hold::exit));
		// the earlier holds that reach furthest while valid, and at all
		Hold reachValid = null;
		Hold reachAll = null;
		Hold tokenOk = null;
		Hold tokenAll = null;
		for (Hold hold : holds) {
			if (reachValid != null && hold.enter() < reachValid.validReach()) {
				count(figures, 0, examples, "overlap", reachValid, hold);
			}
			else if (reachAll != null && hold.enter() < reachAll.exit()) {
				count(figures, 1, examples, "overlap", reachAll, hold);
			}
			if (reachValid == null || hold.validReach() > reachValid.validReach()) {
				reachValid = hold;
			}
			if (reachAll == null || hold.exit() > reachAll.exit()) {
				reachAll = hold;
			}
			if (hold.token() < 0) {
				continue;
			}
			if (tokenOk != null && hold.token() <= tokenOk.token()) {
				count(figures, hold.lost() ? 3 : 2, examples, "token order", tokenOk, hold);
			}
			else if (tokenAll != null && hold.token() <= tokenAll.token()) {
				count(figures, 3, examples, "token order", tokenAll, hold);
			}
			if (!hold.lost() && (tokenOk == null || hold.token() > tokenOk.token())) {
				tokenOk = hold;
			}
			if (tokenAll == null || hold.token() > tokenAll.token()) {
				tokenAll = hold;
			}
		}
	}

	private static void count(long[] figures, int which, List<String> examples, String what, Hold earlier, Hold later) {
		figures[which]++;
		boolean excused = which % 2 == 1;
		// every violation is listed (up to a bound), ahead of the excused cases, which
		// are only examples: a run with many excused cases must still show its violations
		long listed = examples.stream().filter((line) -> line.startsWith("VIOLATION")).count();
		if (excused ? examples.size() - listed < 10 : listed < 50) {
			String line = (excused ? "excused " : "VIOLATION ") + what + " on " + later.key() + ": "
					+ earlier.describe() + " then " + later.describe();
			examples.add(excused ? examples.size() : (int) listed, line);
		}
	}

}
