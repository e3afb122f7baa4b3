package io.quorumlock.bench;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Just enough JSON writing for the results file (maps, lists, strings, numbers). */
final class Json {

	private Json() {
	}

	static String write(Object value) {
		StringBuilder out = new StringBuilder();
		write(out, value, 0);
		return out.append('\n').toString();
	}

	private static void write(StringBuilder out, Object value, int depth) {
		if (value == null) {
			out.append("null");
		}
		else if (value instanceof Map<?, ?> map) {
			out.append('{');
			Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
			while (entries.hasNext()) {
				Map.Entry<?, ?> entry = entries.next();
				newline(out, depth + 1);
				string(out, String.valueOf(entry.getKey()));
				out.append(": ");
				write(out, entry.getValue(), depth + 1);
				if (entries.hasNext()) {
					out.append(',');
				}
			}
			if (!map.isEmpty()) {
				newline(out, depth);
			}
			out.append('}');
		}
		else if (value instanceof List<?> list) {
			out.append('[');
			for (int i = 0; i < list.size(); i++) {
				if (i > 0) {
					out.append(", ");
				}
				write(out, list.get(i), depth + 1);
			}
			out.append(']');
		}
		else if (value instanceof Double d) {
			out.append((d.isNaN() || d.isInfinite()) ? "null" : stripZeros(d));
		}
		else if (value instanceof Number || value instanceof Boolean) {
			out.append(value);
		}
		else {
			string(out, value.toString());
		}
	}

	private static String stripZeros(double d) {
		if (d == Math.rint(d) && Math.abs(d) < 1e15) {
			return Long.toString((long) d);
		}
		return Double.toString(Math.round(d * 1000.0) / 1000.0);
	}

	private static void newline(StringBuilder out, int depth) {
		out.append('\n').append("  ".repeat(depth));
	}

	private static void string(StringBuilder out, String s) {
		out.append('"');
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				case '\t' -> out.append("\\t");
				default -> {
					if (c < 0x20) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		out.append('"');
	}

}
