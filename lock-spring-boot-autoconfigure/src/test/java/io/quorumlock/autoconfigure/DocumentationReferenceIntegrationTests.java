package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.actuate.LockMetrics;
import io.quorumlock.actuate.LocksEndpoint;
import io.quorumlock.actuate.NodeMetrics;
import io.quorumlock.actuate.ObservedLockRegistry;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documentation holds itself to the code: every {@code quorumlock.*} property named
 * in {@code docs/} and the README is one the binder accepts; every meter named there
 * exists, the meters table of {@code docs/operations.md} lists every meter a working
 * application registers with exactly its tags; and the {@code /actuator/locks} example
 * and its list of fields name every field of the endpoint's answer and no other. The next
 * drift fails the build.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DocumentationReferenceIntegrationTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	/** A property name as the docs write one, not part of a package or a file name. */
	private static final Pattern PROPERTY = Pattern
		.compile("(?<![\\w.\\-/])quorumlock\\.[A-Za-z0-9\\-.\\[\\]<>*]*[A-Za-z0-9\\]>*]");

	private static final Pattern METER = Pattern.compile("(?<![\\w.])distributed\\.lock(\\.[a-z]+)+");

	/**
	 * Names under {@code quorumlock.} in the docs that are not properties of the starter,
	 * each with where it is real.
	 */
	private static final Map<String, Path> NOT_STARTER_PROPERTIES = Map.of("quorumlock.api.baseline",
			Path.of("pom.xml"), "quorumlock.test.redis-server",
			Path.of("lock-test/src/main/java/io/quorumlock/testing/RedisBinary.java"));

	/** The misspelt name that the configuration page shows the start-up refusing. */
	private static final String MISSPELT_EXAMPLE = "quorumlock.wait-at-mots";

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@Test
	void everyPropertyNamedInTheDocsIsBound() {
		Map<String, String> unknown = new TreeMap<>();
		for (Path page : pages()) {
			String text = read(page);
			Matcher matcher = PROPERTY.matcher(text);
			while (matcher.find()) {
				String name = matcher.group().replaceAll("\\.\\*$", "");
				if (name.equals(MISSPELT_EXAMPLE)) {
					continue;
				}
				if (NOT_STARTER_PROPERTIES.containsKey(name)) {
					assertThat(read(ROOT.resolve(NOT_STARTER_PROPERTIES.get(name)))).as(name).contains(name);
					continue;
				}
				if (!UnknownQuorumLockPropertyFailureAnalyzer.isKnown(name)) {
					unknown.put(name, ROOT.relativize(page).toString());
				}
			}
		}
		assertThat(unknown).as("properties the docs name that the starter does not have").isEmpty();
	}

	@Test
	void everyMeterAndTagAndEndpointFieldNamedInTheDocsIsTheCodes() {
		Map<String, Set<String>> documented = meterTable();
		Set<String> known = new TreeSet<>(meterConstants());
		ObservabilityContexts.runner(redis)
			.withConfiguration(ObservabilityContexts.METRICS)
			.withConfiguration(AutoConfigurations.of(BootLine.OBSERVATION))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				useEveryKindOfLock(context.getBean(DistributedLockRegistry.class));
				Map<String, Set<String>> registered = registered(context.getBean(MeterRegistry.class));
				known.addAll(registered.keySet());
				assertThat(documented.keySet()).as("meters of the operations page's table that exist")
					.isSubsetOf(known);
				assertThat(documented.keySet()).as("meters a working application registers, in the table")
					.containsAll(registered.keySet());
				registered.forEach((meter, tags) -> assertThat(documented.get(meter)).as("tags of %s", meter)
					.containsExactlyInAnyOrderElementsOf(tags));
				Set<String> named = new TreeSet<>();
				for (Path page : pages()) {
					Matcher matcher = METER.matcher(read(page));
					while (matcher.find()) {
						named.add(matcher.group());
					}
				}
				assertThat(named).as("meters named anywhere in the docs").isSubsetOf(known);
				assertEndpointFields();
			});
	}

	/**
	 * Grants, a refusal and a release of each mode, so that every meter with its tags is
	 * registered.
	 */
	private static void useEveryKindOfLock(DistributedLockRegistry locks) {
		LockRequest exclusive = LockRequest.of("doc-1").name("docs").waitAtMost(Duration.ZERO);
		try (Lease lease = locks.acquire(exclusive)) {
			for (RedisServer node : redis.nodes()) {
				assertThat(node.exists("lock:docs:{doc-1}")).isTrue();
			}
			assertThat(locks.tryAcquire(exclusive)).isEmpty();
		}
		locks.acquire(LockRequest.of("doc-2").name("docs").mode(LockMode.SHARED)).release();
		locks.acquire(LockRequest.of("doc-3").name("docs").permits(2)).release();
	}

	private static void assertEndpointFields() {
		String page = read(ROOT.resolve("docs/operations.md"));
		String section = page.substring(page.indexOf("## The `locks` endpoint"), page.indexOf("## Force-unlock"));
		Matcher json = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL).matcher(section);
		assertThat(json.find()).isTrue();
		Set<String> example = new TreeSet<>();
		Matcher key = Pattern.compile("\"(\\w+)\"\\s*:").matcher(json.group(1));
		while (key.find()) {
			example.add(key.group(1));
		}
		Set<String> fields = new TreeSet<>();
		for (Class<?> descriptor : List.of(LocksEndpoint.LocksDescriptor.class, LocksEndpoint.NodeDescriptor.class,
				LocksEndpoint.LeaseDescriptor.class, LocksEndpoint.FailureDescriptor.class)) {
			Arrays.stream(descriptor.getRecordComponents()).map(RecordComponent::getName).forEach(fields::add);
		}
		Set<String> expected = new TreeSet<>(fields);
		Arrays.stream(RegistryStatus.Answers.class.getRecordComponents())
			.map(RecordComponent::getName)
			.forEach(expected::add);
		assertThat(example).as("the fields of the endpoint's example answer").isEqualTo(expected);
		String list = section.substring(section.indexOf("Every field is always there:"),
				section.indexOf("The endpoint's fields are written"));
		assertThat(fields).as("fields the list after the example explains")
			.allSatisfy((field) -> assertThat(list).contains("`" + field + "`"));
	}

	/** The meters table of the operations page: each meter with its tag keys. */
	private static Map<String, Set<String>> meterTable() {
		String page = read(ROOT.resolve("docs/operations.md"));
		Map<String, Set<String>> table = new LinkedHashMap<>();
		for (String line : page.lines().filter((l) -> l.startsWith("| `distributed.lock")).toList()) {
			String[] cells = line.split("\\|");
			String meter = cells[1].trim().replace("`", "");
			Set<String> tags = new TreeSet<>();
			for (String part : cells[3].trim().split(",\\s*(?=`)")) {
				Matcher tag = Pattern.compile("^`([a-z]+)`").matcher(part.trim());
				if (tag.find()) {
					tags.add(tag.group(1));
				}
			}
			assertThat(table.put(meter, tags)).as("%s listed once", meter).isNull();
		}
		assertThat(table).isNotEmpty();
		return table;
	}

	/** Each meter's name with its tag keys. */
	private static Map<String, Set<String>> registered(MeterRegistry registry) {
		Map<String, Set<String>> meters = new TreeMap<>();
		for (Meter meter : registry.getMeters()) {
			String name = meter.getId().getName();
			// a registry's own view of a histogram or percentiles is not a meter of its
			// own
			if (name.startsWith("distributed.lock") && !name.endsWith(".histogram") && !name.endsWith(".percentile")) {
				meters.computeIfAbsent(name, (n) -> new TreeSet<>())
					.addAll(meter.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet()));
			}
		}
		return meters;
	}

	/** Meter names the code declares as constants. */
	private static List<String> meterConstants() {
		List<String> names = new ArrayList<>();
		for (Class<?> type : List.of(LockMetrics.class, NodeMetrics.class, ObservedLockRegistry.class)) {
			for (Field field : type.getFields()) {
				if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
					try {
						String value = (String) field.get(null);
						if (value.startsWith("distributed.lock")) {
							names.add(value);
						}
					}
					catch (IllegalAccessException ex) {
						throw new IllegalStateException(ex);
					}
				}
			}
		}
		names.add(ObservedLockRegistry.NAME + ".active");
		return names;
	}

	private static List<Path> pages() {
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			List<Path> pages = new ArrayList<>(docs.filter((p) -> p.toString().endsWith(".md")).sorted().toList());
			pages.add(ROOT.resolve("README.md"));
			return pages;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String read(Path path) {
		try {
			return Files.readString(path);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
