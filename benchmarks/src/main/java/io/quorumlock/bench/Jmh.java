package io.quorumlock.bench;

import org.openjdk.jmh.Main;

/**
 * JMH's command line, then an exit: benchmarks run in this JVM ({@code -f 0}, the smoke
 * run) leave their clients' threads behind, which would keep it alive. JMH exits with 1
 * itself when a benchmark fails under {@code -foe true}.
 */
public final class Jmh {

	private Jmh() {
	}

	/**
	 * Run JMH.
	 * @param args JMH's options ({@code -h} lists them)
	 * @throws Exception from JMH
	 */
	public static void main(String[] args) throws Exception {
		Main.main(args);
		System.exit(0);
	}

}
