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
 * Reads the modes logs of a soak run ({@link SoakModes}) and checks the shared/exclusive
 * mix and the permits, knowing nothing of the engine; {@link SoakChecker} checks the
 * exclusive workload.
 * <p>
 * Modes logs ({@code modes-*.log}), one tab-separated record per line:
 * {@code E key jvm thread mode nanoTime -} when a holder got the lock,
 * {@code X key jvm thread mode nanoTime ok|lost:invalidAt} when it was about to release
 * it (as in {@link SoakChecker}), and one final
 * {@code S - - - - nanoTime shared=..,exclusive=..,permits=..,notAcquired=..,...}
 * summary. The mode is {@code shared}, {@code exclusive} (keys {@code m*}) or
 * {@code permit:k} (keys {@code p*}). Time is {@link System#nanoTime()}, comparable
 * across the processes of one Linux machine (see {@link SoakChecker}).
 * <ul>
 * <li>Mix: on one key, an exclusive hold overlaps no other hold, shared or exclusive;
 * shared holds may overlap one another (counted, to show that they did).</li>
 * <li>Permits: on one key, never more than k holds at once.</li>
 * </ul>
 * As in {@link SoakChecker}, an overlap is excused (counted apart) only when the earlier
 * holder was told its lease was lost and the later one entered after that lease had
 * stopped being valid by the earlier holder's own account.
 */
final class SoakModeChecker {

	private SoakModeChecker() {
	}

	/** One hold; {@code exit} and {@code invalidAt} as in {@link SoakChecker.Hold}. */
	record Hold(String key, String jvm, String thread, String mode, long enter, long exit, long invalidAt) {

		boolean exclusive() {
			return "exclusive".equals(this.mode);
		}

		boolean permit() {
			return this.mode.startsWith("permit:");
		}

		int permits() {
			return Integer.parseInt(this.mode.substring("permit:".length()));
		}

		long validReach() {
			return Math.min(this.exit, this.invalidAt);
		}

		String describe() {
			return this.jvm + "/" + this.thread + " " + this.mode + " [" + this.enter + ", "
					+ ((this.exit == Long.MAX_VALUE) ? "open" : this.exit) + "]"
					+ ((this.invalidAt != Long.MAX_VALUE) ? " lost, invalid from " + this.invalidAt : "");
		}

	}

	/**
	 * What the modes logs show. {@code peakPermitHolders}: the most holds of a permit key
	 * at once, valid ones only, by key.
	 */
	record Report(int workers, int finishedWorkers, long shared, long exclusive, long permits, long notAcquired,
			long unavailable, long lost, long unfinished, long malformed, long sharedOverlaps, long mixViolations,
			long excusedMixOverlaps, long permitViolations, long excusedPermitOverlaps,
			Map<String, Integer> peakPermitHolders, List<String> examples) {

		String describe() {
			StringBuilder sb = new StringBuilder();
			sb.append("soak modes: ")
				.append(this.workers)
				.append(" modes logs (")
				.append(this.finishedWorkers)
				.append(" finished)\n");
			sb.append("  mix acquisitions:         ")
				.append(this.shared + this.exclusive)
				.append(" (shared ")
				.append(this.shared)
				.append(", exclusive ")
				.append(this.exclusive)
				.append(")\n");
			sb.append("  shared holds overlapping: ").append(this.sharedOverlaps).append(" (allowed)\n");
			sb.append("  mix violations:           ")
				.append(this.mixViolations)
				.append(" (excused, lease lost: ")
				.append(this.excusedMixOverlaps)
				.append(")\n");
			sb.append("  permit acquisitions:      ").append(this.permits).append('\n');
			sb.append("  peak permit holders:      ").append(this.peakPermitHolders).append('\n');
			sb.append("  permit violations:        ")
				.append(this.permitViolations)
				.append(" (excused, lease lost: ")
				.append(this.excusedPermitOverlaps)
				.append(")\n");
			sb.append("  not acquired / quorum unavailable / lost: ")
				.append(this.notAcquired)
				.append(" / ")
				.append(this.unavailable)
				.append(" / ")
				.append(this.lost)
				.append('\n');
			sb.append("  never exited / malformed: ").append(this.unfinished).append(" / ").append(this.malformed);
			for (String example : this.examples) {
				sb.append("\n  ").append(example);
			}
			return sb.toString();
		}

	}

	static Report check(Path dir) throws IOException {
		List<List<String>> logs = new ArrayList<>();
		try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "modes-*.log")) {
			for (Path log : files) {
				logs.add(Files.readAllLines(log, StandardCharsets.UTF_8));
			}
		}
		return check(logs);
	}

	static Report check(List<List<String>> logs) {
		Map<String, List<Hold>> byKey = new TreeMap<>();
		Map<String, Long> totals = new HashMap<>();
		int finished = 0;
		long unfinished = 0;
		long malformed = 0;
		for (List<String> lines : logs) {
			Map<String, String[]> open = new HashMap<>();
			for (String line : lines) {
				String[] f = line.split("\t", -1);
				if (f.length != 7 || !valid(f)) {
					malformed++;
				}
				else if ("E".equals(f[0])) {
					if (open.put(f[3], f) != null) {
						malformed++; // an enter without an exit in the same thread
					}
				}
				else if ("X".equals(f[0])) {
					String[] enter = open.remove(f[3]);
					if (enter == null || !enter[1].equals(f[1]) || !enter[4].equals(f[4])) {
						malformed++;
						continue;
					}
					long invalidAt = f[6].startsWith("lost:") ? Long.parseLong(f[6].substring(5)) : Long.MAX_VALUE;
					add(byKey, new Hold(f[1], f[2], f[3], f[4], Long.parseLong(enter[5]), Long.parseLong(f[5]),
							invalidAt));
				}
				else {
					finished++;
					for (String pair : f[6].split(",")) {
						String[] kv = pair.split("=", 2);
						totals.merge(kv[0], Long.parseLong(kv[1]), Long::sum);
					}
				}
			}
			for (String[] enter : open.values()) {
				unfinished++;
				add(byKey, new Hold(enter[1], enter[2], enter[3], enter[4], Long.parseLong(enter[5]), Long.MAX_VALUE,
						Long.MAX_VALUE));
			}
		}
		// shared overlaps, mix violations, excused mix, permit violations, excused permit
		long[] figures = new long[5];
		Map<String, Integer> peaks = new TreeMap<>();
		List<String> examples = new ArrayList<>();
		byKey.forEach((key, holds) -> checkKey(holds, figures, peaks, examples));
		return new Report(logs.size(), finished, totals.getOrDefault("shared", 0L),
				totals.getOrDefault("exclusive", 0L), totals.getOrDefault("permits", 0L),
				totals.getOrDefault("notAcquired", 0L), totals.getOrDefault("unavailable", 0L),
				totals.getOrDefault("lost", 0L), unfinished, malformed, figures[0], figures[1], figures[2], figures[3],
				figures[4], peaks, examples);
	}

	private static boolean valid(String[] f) {
		try {
			Long.parseLong(f[5]);
			return switch (f[0]) {
				case "E" -> "-".equals(f[6]) && mode(f[4]);
				case "X" -> mode(f[4]) && ("ok".equals(f[6])
						|| (f[6].startsWith("lost:") && Long.parseLong(f[6].substring(5)) != Long.MAX_VALUE));
				case "S" -> f[6].matches("(\\w+=\\d+)(,\\w+=\\d+)*");
				default -> false;
			};
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	private static boolean mode(String mode) {
		return "shared".equals(mode) || "exclusive".equals(mode) || mode.matches("permit:[1-9]\\d*");
	}

	private static void add(Map<String, List<Hold>> byKey, Hold hold) {
		byKey.computeIfAbsent(hold.key(), (k) -> new ArrayList<>()).add(hold);
	}

	/**
	 * A sweep in enter order over the holds still open at each enter ({@code active}:
	 * those whose exit is later); every pair that overlaps is looked at once, when the
	 * later of the two enters.
	 */
	private static void checkKey(List<Hold> holds, long[] figures, Map<String, Integer> peaks, List<String> examples) {
		holds.sort(Comparator.comparingLong(Hold::enter).thenComparingLong(Hold::exit));
		List<Hold> active = new ArrayList<>();
		for (Hold hold : holds) {
			active.removeIf((earlier) -> earlier.exit() <= hold.enter());
			if (hold.permit()) {
				// holds of the key at this instant, this one included
				long valid = 1 + active.stream().filter((earlier) -> hold.enter() < earlier.validReach()).count();
				peaks.merge(hold.key(), (int) valid, Math::max);
				if (valid > hold.permits()) {
					count(figures, 3, examples, valid + " holders of " + hold.permits() + " permits", active, hold);
				}
				else if (active.size() + 1 > hold.permits()) {
					count(figures, 4, examples, (active.size() + 1) + " holders of " + hold.permits() + " permits",
							active, hold);
				}
			}
			else {
				for (Hold earlier : active) {
					if (!earlier.exclusive() && !hold.exclusive()) {
						figures[0]++;
					}
					else {
						count(figures, (hold.enter() < earlier.validReach()) ? 1 : 2, examples, "mix overlap",
								List.of(earlier), hold);
					}
				}
			}
			active.add(hold);
		}
	}

	private static void count(long[] figures, int which, List<String> examples, String what, List<Hold> earlier,
			Hold later) {
		figures[which]++;
		if (examples.size() < 10) {
			StringBuilder example = new StringBuilder((which % 2 == 0) ? "excused " : "VIOLATION ");
			example.append(what).append(" on ").append(later.key()).append(": ");
			earlier.forEach((hold) -> example.append(hold.describe()).append(", "));
			examples.add(example.append("then ").append(later.describe()).toString());
		}
	}

}
