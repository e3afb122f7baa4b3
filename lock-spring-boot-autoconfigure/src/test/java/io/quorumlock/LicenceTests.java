package io.quorumlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The licence convention (docs/releasing.md#licence): the Apache License 2.0, word for
 * word, in {@code LICENSE}, a {@code NOTICE} beside it (the build copies both into every
 * jar), the licence named in the POM every module inherits, and no per-file headers: a
 * source file that arrives with a header of its own, as code copied from elsewhere under
 * another licence does, fails here so that taking it in is a decision. Reads the files
 * relative to the module directory, which is the test's working directory.
 */
class LicenceTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	/** SHA-256 of https://www.apache.org/licenses/LICENSE-2.0.txt. */
	private static final String APACHE_2_SHA_256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30";

	@Test
	void licenseIsTheApacheLicenseWordForWord() throws IOException {
		byte[] license = Files.readAllBytes(ROOT.resolve("LICENSE"));
		assertThat(sha256(license)).isEqualTo(APACHE_2_SHA_256);
	}

	@Test
	void noticeNamesTheProjectAndItsLicence() throws IOException {
		assertThat(Files.readString(ROOT.resolve("NOTICE"))).startsWith("quorumlock\n")
			.contains("Apache License, Version 2.0");
	}

	@Test
	void theParentPomDeclaresTheLicenceAndPacksItIntoEveryJar() throws IOException {
		String pom = Files.readString(ROOT.resolve("pom.xml"));
		assertThat(pom).contains("<name>Apache License, Version 2.0</name>")
			.contains("<url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>")
			.contains("<include>LICENSE</include>")
			.contains("<include>NOTICE</include>");
	}

	@Test
	void sourceFilesCarryNoHeaderOfTheirOwn() {
		List<String> headed = new ArrayList<>();
		List<Path> sources = sources();
		for (Path source : sources) {
			String text = read(source);
			int packageLine = text.indexOf("package ");
			String header = text.substring(0, Math.max(packageLine, 0)).toLowerCase(Locale.ROOT);
			if (header.contains("copyright") || header.contains("license") || header.contains("licence")
					|| header.contains("spdx")) {
				headed.add(ROOT.relativize(source).toString());
			}
		}
		assertThat(sources).hasSizeGreaterThan(100);
		assertThat(headed).isEmpty();
	}

	private static List<Path> sources() {
		try (Stream<Path> files = Files.walk(ROOT)) {
			return files.filter((file) -> file.toString().endsWith(".java"))
				.filter((file) -> !built(ROOT.relativize(file)))
				.sorted()
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Under a build's output ({@code target}) or in Git's own files. */
	private static boolean built(Path relative) {
		for (Path element : relative) {
			if (element.toString().equals("target") || element.toString().equals(".git")) {
				return true;
			}
		}
		return false;
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String sha256(byte[] bytes) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
