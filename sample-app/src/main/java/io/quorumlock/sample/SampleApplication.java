package io.quorumlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An order service that shows quorumlock in use: payments under {@code @DistributedLock}
 * with fenced writes, a stock reservation locking several SKUs, and
 * {@code CompletableFuture} and {@code Mono} endpoints. With no configuration it starts
 * three local Redis masters and runs in quorum mode on an embedded H2.
 */
@SpringBootApplication
public class SampleApplication {

	/**
	 * Start the sample.
	 * @param args command-line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
