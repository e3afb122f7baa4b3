package io.quorumlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The bench's own Redis masters as they see themselves: CPU ({@code INFO cpu}), commands
 * processed ({@code INFO stats}: top-level commands, one per script call) and the
 * {@code PEXPIRE} calls counted in {@code INFO commandstats} (which counts the calls
 * scripts make too: one per lease extended on a node). Never ask a stopped master.
 */
final class RedisStats implements AutoCloseable {

	/** Figures summed over the nodes. */
	record Snapshot(double cpuSeconds, long commands, long pexpires, long scripts) {

		Snapshot minus(Snapshot earlier) {
			return new Snapshot(this.cpuSeconds - earlier.cpuSeconds, this.commands - earlier.commands,
					this.pexpires - earlier.pexpires, this.scripts - earlier.scripts);
		}

	}

	private final RedisClient client = RedisClient.create();

	private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

	/**
	 * INFO commands sent to each node so far (three a snapshot, one for the pids), left
	 * out of the counts.
	 */
	private long infoSent;

	RedisStats(List<String> nodes) {
		for (String node : nodes) {
			this.connections.add(this.client.connect(RedisURI.create(node)));
		}
	}

	Snapshot snapshot() {
		double cpu = 0;
		long commands = 0;
		long pexpires = 0;
		long scripts = 0;
		for (StatefulRedisConnection<String, String> connection : this.connections) {
			String info = connection.sync().info("cpu") + connection.sync().info("stats")
					+ connection.sync().info("commandstats");
			for (String line : info.split("\r?\n")) {
				if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
					cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
				}
				else if (line.startsWith("total_commands_processed:")) {
					commands += Long.parseLong(line.substring(line.indexOf(':') + 1).trim()) - this.infoSent;
				}
				else if (line.startsWith("cmdstat_pexpire:")) {
					pexpires += calls(line);
				}
				else if (line.startsWith("cmdstat_eval")) {
					scripts += calls(line);
				}
			}
		}
		this.infoSent += 3;
		return new Snapshot(cpu, commands, pexpires, scripts);
	}

	/** Each node's server process id ({@code INFO server}'s {@code process_id}). */
	List<Long> pids() {
		List<Long> pids = new ArrayList<>();
		for (StatefulRedisConnection<String, String> connection : this.connections) {
			for (String line : connection.sync().info("server").split("\r?\n")) {
				if (line.startsWith("process_id:")) {
					pids.add(Long.parseLong(line.substring(line.indexOf(':') + 1).trim()));
				}
			}
		}
		this.infoSent++;
		return pids;
	}

	private static long calls(String commandstat) {
		String calls = commandstat.substring(commandstat.indexOf("calls=") + 6);
		return Long.parseLong(calls.substring(0, calls.indexOf(',')));
	}

	@Override
	public void close() {
		this.connections.forEach(StatefulRedisConnection::close);
		this.client.shutdown(0, 1, TimeUnit.SECONDS);
	}

}
