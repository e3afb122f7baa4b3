package io.quorumlock.bench;

import java.util.Locale;

import io.quorumlock.bench.candidates.Candidate;

/**
 * How the benchmark report writes its figures: µs, ms, ratios, "—" for a figure not
 * measured.
 */
final class Formats {

	private Formats() {
	}

	static String label(Candidate c, int nodes) {
		if (c == Candidate.FLOOR && nodes > 1) {
			return "raw Lettuce floor (parallel quorum)";
		}
		return c.label();
	}

	static String us(double micros) {
		if (Double.isNaN(micros)) {
			return "—";
		}
		return String.format(Locale.ROOT, (micros >= 100) ? "%.0f" : "%.1f", micros);
	}

	static String signedUs(double micros) {
		if (Double.isNaN(micros)) {
			return "—";
		}
		return String.format(Locale.ROOT, "%+.1f µs", micros);
	}

	static String ms(double micros) {
		if (Double.isNaN(micros)) {
			return "—";
		}
		double millis = micros / 1000.0;
		return String.format(Locale.ROOT, (millis >= 10) ? "%.0f" : (millis >= 1) ? "%.1f" : "%.2f", millis);
	}

	static String ops(double ops) {
		return Double.isNaN(ops) ? "—" : String.format(Locale.ROOT, "%,.0f", ops);
	}

	static String ratio(double ratio) {
		return Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.2f×", ratio);
	}

	static String fmt(double value, int decimals) {
		return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%." + decimals + "f", value);
	}

	static String mb(Double bytes) {
		if (bytes == null || Double.isNaN(bytes)) {
			return "—";
		}
		return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024.0));
	}

}
