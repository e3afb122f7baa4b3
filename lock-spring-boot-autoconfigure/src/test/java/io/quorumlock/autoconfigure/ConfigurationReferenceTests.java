package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The property reference in {@code docs/configuration.md} is generated from the
 * configuration metadata the build publishes: the table between the two markers must be
 * what the metadata says today. Run with {@code -Dquorumlock.docs.write=true} to rewrite
 * it after a property changed.
 */
class ConfigurationReferenceTests {

	static final String BEGIN = "<!-- generated from the configuration metadata by ConfigurationReferenceTests: "
			+ "rewrite with -Dquorumlock.docs.write=true -->";

	static final String END = "<!-- end of the generated reference -->";

	private static final Path PAGE = Path.of("../docs/configuration.md");

	@Test
	void propertyReferenceIsTheConfigurationMetadata() throws IOException {
		String page = Files.readString(PAGE);
		int begin = page.indexOf(BEGIN);
		int end = page.indexOf(END);
		assertThat(begin).as("the markers of the generated reference in %s", PAGE).isNotNegative();
		assertThat(end).as("the end marker in %s", PAGE).isGreaterThan(begin);
		String generated = BEGIN + "\n\n" + table(properties()) + "\n" + END;
		String current = page.substring(begin, end + END.length());
		if (Boolean.getBoolean("quorumlock.docs.write")) {
			Files.writeString(PAGE, page.substring(0, begin) + generated + page.substring(end + END.length()));
			return;
		}
		assertThat(current)
			.as("%s is out of date: run ./mvnw -pl lock-spring-boot-autoconfigure -am test "
					+ "-Dtest=ConfigurationReferenceTests -Dsurefire.failIfNoSpecifiedTests=false "
					+ "-Dquorumlock.docs.write=true", PAGE)
			.isEqualTo(generated);
	}

	@Test
	void everyQuorumlockPropertyIsInTheReference() throws IOException {
		List<Map<String, Object>> properties = properties();
		assertThat(properties).extracting((p) -> p.get("name"))
			.contains("quorumlock.nodes", "quorumlock.lease", "quorumlock.rejoin-delay");
		String page = Files.readString(PAGE);
		for (Map<String, Object> property : properties) {
			assertThat(page).contains("`" + property.get("name") + "`");
		}
	}

	/** The starter's properties, sorted by name, from this project's metadata file. */
	@SuppressWarnings("unchecked")
	static List<Map<String, Object>> properties() throws IOException {
		List<URL> files = Collections.list(ConfigurationReferenceTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"));
		for (URL file : files) {
			String json;
			try (InputStream in = file.openStream()) {
				json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			}
			if (!json.contains("io.quorumlock.autoconfigure.QuorumLockProperties")) {
				continue;
			}
			Map<String, Object> metadata = (Map<String, Object>) new Json(json).value();
			List<Map<String, Object>> properties = new ArrayList<>();
			for (Object property : (List<Object>) metadata.get("properties")) {
				properties.add((Map<String, Object>) property);
			}
			properties.sort((a, b) -> ((String) a.get("name")).compareTo((String) b.get("name")));
			return properties;
		}
		throw new IllegalStateException("no configuration metadata of QuorumLockProperties among " + files);
	}

	static String table(List<Map<String, Object>> properties) {
		StringBuilder table = new StringBuilder("| property | type | default | description |\n|---|---|---|---|\n");
		for (Map<String, Object> property : properties) {
			Object value = property.get("defaultValue");
			table.append("| `")
				.append(property.get("name"))
				.append("` | ")
				.append(type((String) property.get("type")))
				.append(" | ")
				.append((value != null) ? "`" + render(value) + "`" : "")
				.append(" | ")
				.append(String.valueOf(property.getOrDefault("description", "")).replace("|", "\\|").replace('\n', ' '))
				.append(deprecation(property))
				.append(" |\n");
		}
		return table.toString();
	}

	/** The deprecation note of a property, with its replacement; empty if none. */
	@SuppressWarnings("unchecked")
	static String deprecation(Map<String, Object> property) {
		Object deprecation = property.get("deprecation");
		if (!(deprecation instanceof Map<?, ?>)) {
			return "";
		}
		Map<String, Object> details = (Map<String, Object>) deprecation;
		StringBuilder note = new StringBuilder(" **Deprecated**");
		if (details.get("replacement") != null) {
			note.append(": use `").append(details.get("replacement")).append('`');
		}
		if (details.get("reason") != null) {
			note.append(". ").append(String.valueOf(details.get("reason")).replace("|", "\\|")).append('.');
		}
		return note.toString();
	}

	/** {@code java.util.Map<java.lang.String,a.b.C$D>} as {@code Map<String, D>}. */
	static String type(String type) {
		if (type == null) {
			return "";
		}
		StringBuilder simple = new StringBuilder();
		StringBuilder word = new StringBuilder();
		for (char c : (type + " ").toCharArray()) {
			if (Character.isJavaIdentifierPart(c) || c == '.' || c == '$') {
				word.append(c);
				continue;
			}
			String name = word.toString();
			simple.append(name.substring(Math.max(name.lastIndexOf('.'), name.lastIndexOf('$')) + 1));
			word.setLength(0);
			if (c == ',') {
				simple.append(", ");
			}
			else if (c == '<') {
				simple.append("&lt;");
			}
			else if (c == '>') {
				simple.append("&gt;");
			}
		}
		return simple.toString();
	}

	private static String render(Object value) {
		if (value instanceof List<?> list) {
			return list.toString();
		}
		if (value instanceof Double number && number == Math.rint(number) && !number.isInfinite()) {
			return Long.toString(number.longValue());
		}
		return String.valueOf(value);
	}

	/**
	 * Just enough JSON for a metadata file: objects, arrays, strings, numbers, literals.
	 */
	static final class Json {

		private final String text;

		private int at;

		Json(String text) {
			this.text = text;
		}

		Object value() {
			skip();
			char c = this.text.charAt(this.at);
			if (c == '{') {
				Map<String, Object> object = new LinkedHashMap<>();
				this.at++;
				skip();
				while (this.text.charAt(this.at) != '}') {
					String key = (String) value();
					skip();
					this.at++; // ':'
					object.put(key, value());
					skip();
					if (this.text.charAt(this.at) == ',') {
						this.at++;
						skip();
					}
				}
				this.at++;
				return object;
			}
			if (c == '[') {
				List<Object> array = new ArrayList<>();
				this.at++;
				skip();
				while (this.text.charAt(this.at) != ']') {
					array.add(value());
					skip();
					if (this.text.charAt(this.at) == ',') {
						this.at++;
						skip();
					}
				}
				this.at++;
				return array;
			}
			if (c == '"') {
				return string();
			}
			int start = this.at;
			while (this.at < this.text.length() && ",}] \n\r\t".indexOf(this.text.charAt(this.at)) < 0) {
				this.at++;
			}
			String literal = this.text.substring(start, this.at);
			return switch (literal) {
				case "true" -> Boolean.TRUE;
				case "false" -> Boolean.FALSE;
				case "null" -> null;
				default -> literal.matches("-?\\d+") ? (Object) Long.valueOf(literal) : Double.valueOf(literal);
			};
		}

		private String string() {
			StringBuilder out = new StringBuilder();
			this.at++;
			while (true) {
				char c = this.text.charAt(this.at++);
				if (c == '"') {
					return out.toString();
				}
				if (c != '\\') {
					out.append(c);
					continue;
				}
				char escaped = this.text.charAt(this.at++);
				switch (escaped) {
					case 'n' -> out.append('\n');
					case 't' -> out.append('\t');
					case 'r' -> out.append('\r');
					case 'b' -> out.append('\b');
					case 'f' -> out.append('\f');
					case 'u' -> {
						out.append((char) Integer.parseInt(this.text.substring(this.at, this.at + 4), 16));
						this.at += 4;
					}
					default -> out.append(escaped);
				}
			}
		}

		private void skip() {
			while (this.at < this.text.length() && Character.isWhitespace(this.text.charAt(this.at))) {
				this.at++;
			}
		}

	}

}
