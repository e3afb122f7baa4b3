package io.quorumlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The order service that shows quorumlock in use. Its endpoints arrive with the
 * sample-app issue; for now it only starts.
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
