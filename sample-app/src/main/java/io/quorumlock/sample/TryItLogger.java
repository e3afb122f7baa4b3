package io.quorumlock.sample;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Logs, once the application is ready, a few {@code curl} lines with the real port.
 */
@Component
class TryItLogger {

	private static final Log logger = LogFactory.getLog(TryItLogger.class);

	@EventListener
	void onReady(ApplicationReadyEvent event) {
		Environment environment = event.getApplicationContext().getEnvironment();
		String port = environment.getProperty("local.server.port");
		if (port == null) {
			return;
		}
		String base = "http://localhost:" + port;
		logger.info(String.join(System.lineSeparator(), "Try it:",
				"  curl -X PUT '" + base + "/orders/42?amountCents=1250'     # create order 42",
				"  curl -i -X POST " + base
						+ "/orders/42/pay                 # 200 and the payment; again: 409 already paid",
				"  curl " + base + "/orders/42/payments                       # exactly one payment",
				"  curl " + base + "/actuator/metrics/distributed.lock.wait   # lock metrics"));
	}

}
