package io.quorumlock.sample.demo;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The {@code orders} lock's wait meters summed over the instances; not available when no
 * instance publishes them.
 */
record LockWaitMetrics(boolean available, double acquired, double waitSeconds, double maxWaitSeconds, double timeout,
		double quorumUnavailable) {

	private static final ObjectMapper json = new ObjectMapper();

	static LockWaitMetrics read(DemoClient client) throws IOException {
		boolean available = false;
		double acquired = 0;
		double wait = 0;
		double max = 0;
		double timeout = 0;
		double unavailable = 0;
		for (String base : client.instances()) {
			String wait0 = base + "/actuator/metrics/distributed.lock.wait";
			if (client.send("GET", wait0).statusCode() != 200) {
				continue;
			}
			available = true;
			JsonNode ok = measurements(client, wait0 + "?tag=lock:orders&tag=outcome:acquired");
			acquired += statistic(ok, "COUNT");
			wait += statistic(ok, "TOTAL_TIME");
			max = Math.max(max, statistic(ok, "MAX"));
			timeout += statistic(measurements(client, wait0 + "?tag=lock:orders&tag=outcome:timeout"), "COUNT");
			unavailable += statistic(measurements(client, wait0 + "?tag=lock:orders&tag=outcome:quorum_unavailable"),
					"COUNT");
		}
		return new LockWaitMetrics(available, acquired, wait, max, timeout, unavailable);
	}

	private static JsonNode measurements(DemoClient client, String url) throws IOException {
		HttpResponse<String> response = client.send("GET", url);
		return (response.statusCode() == 200) ? json.readTree(response.body()).get("measurements") : null;
	}

	private static double statistic(JsonNode measurements, String name) {
		if (measurements != null) {
			for (JsonNode measurement : measurements) {
				if (name.equals(measurement.get("statistic").asText())) {
					return measurement.get("value").asDouble();
				}
			}
		}
		return 0;
	}

	String describeWaits(LockWaitMetrics before) {
		if (!this.available) {
			return "n/a (this build publishes no /actuator/metrics/distributed.lock.wait)";
		}
		double count = this.acquired - before.acquired;
		double seconds = this.waitSeconds - before.waitSeconds;
		if (count == 0) {
			return "0 acquisitions";
		}
		return String.format(Locale.ROOT, "%.0f acquisitions, mean wait %.0f ms, max %.0f ms (recent)", count,
				seconds * 1000 / count, this.maxWaitSeconds * 1000);
	}

	String delta(LockWaitMetrics before, String outcome) {
		if (!this.available) {
			return "n/a";
		}
		double now = outcome.equals("timeout") ? this.timeout : this.quorumUnavailable;
		double then = outcome.equals("timeout") ? before.timeout : before.quorumUnavailable;
		return String.format(Locale.ROOT, "%.0f", now - then);
	}

}
