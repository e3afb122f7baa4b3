package io.quorumlock.autoconfigure;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * One voice for operators: keeps Lettuce's own reconnect lines ({@code Reconnecting, last
 * destination was ...} at INFO, {@code Cannot reconnect to [...]} at WARN, from
 * {@code io.lettuce.core.protocol.ConnectionWatchdog}) about the engine's masters out of
 * the log, because {@code NodeStateLog} already says the same once per change of state,
 * with the reason and what it means for locks. Lines about any other Redis server (the
 * application's cache, say) pass untouched, and so do Lettuce's errors and every line
 * when that logger is set to DEBUG. A Logback turbo filter, installed by
 * {@link LettuceReconnectLog} while the context runs.
 */
final class LettuceReconnectFilter extends TurboFilter {

	static final String WATCHDOG = "io.lettuce.core.protocol.ConnectionWatchdog";

	private final List<HostAndPort> masters;

	private final AtomicLong kept = new AtomicLong();

	private LoggerContext installedIn;

	LettuceReconnectFilter(List<String> masters) {
		this.masters = masters.stream().flatMap((address) -> HostAndPort.in(address).stream()).toList();
		setName("quorumlock-lettuce-reconnect-log");
	}

	@Override
	public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
		if (logger == null || level == null || !WATCHDOG.equals(logger.getName())
				|| !(level == Level.INFO || level == Level.WARN) || logger.isDebugEnabled()) {
			return FilterReply.NEUTRAL;
		}
		if (namesAMaster(format, params)) {
			this.kept.incrementAndGet();
			return FilterReply.DENY;
		}
		return FilterReply.NEUTRAL;
	}

	/**
	 * Whether the line is about a master: its address as a parameter
	 * ({@code Reconnecting, last destination was {}}), or written into the text in
	 * brackets ({@code Cannot reconnect to [redis-1/<unresolved>:6379]: ...}).
	 */
	private boolean namesAMaster(String format, Object[] params) {
		if (params != null) {
			for (Object param : params) {
				if (param instanceof InetSocketAddress address && isMaster(address)) {
					return true;
				}
			}
		}
		if (format == null) {
			return false;
		}
		int open = format.indexOf('[');
		int close = (open >= 0) ? format.indexOf(']', open) : -1;
		if (close < 0) {
			return false;
		}
		// host/<unresolved>:port, host/ip:port or /ip:port, as InetSocketAddress writes
		// it
		String written = format.substring(open + 1, close);
		int colon = written.lastIndexOf(':');
		if (colon < 0) {
			return false;
		}
		int port;
		try {
			port = Integer.parseInt(written.substring(colon + 1));
		}
		catch (NumberFormatException ex) {
			return false;
		}
		for (String host : written.substring(0, colon).split("/")) {
			for (HostAndPort master : this.masters) {
				if (master.port() == port && !host.isEmpty() && master.host().equalsIgnoreCase(host)) {
					return true;
				}
			}
		}
		return false;
	}

	/** Lines kept out of the log so far. */
	long kept() {
		return this.kept.get();
	}

	private boolean isMaster(InetSocketAddress address) {
		for (HostAndPort master : this.masters) {
			if (master.port() == address.getPort() && (master.host().equalsIgnoreCase(address.getHostString())
					|| (address.getAddress() != null && master.host().equals(address.getAddress().getHostAddress())))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Install in Logback's context, if Logback is the logging system.
	 * @return whether it was installed
	 */
	boolean install() {
		ILoggerFactory factory = LoggerFactory.getILoggerFactory();
		if (factory instanceof LoggerContext context && !this.masters.isEmpty()) {
			start();
			context.addTurboFilter(this);
			this.installedIn = context;
			return true;
		}
		return false;
	}

	void uninstall() {
		if (this.installedIn != null) {
			this.installedIn.getTurboFilterList().remove(this);
			this.installedIn = null;
			stop();
		}
	}

	/** A master's {@code host:port}, as the registry's status names it. */
	record HostAndPort(String host, int port) {

		private static final Pattern ADDRESS = Pattern
			.compile("\\[([0-9A-Fa-f:.]+)]:(\\d{1,5})\\b|([A-Za-z0-9_.\\-]+):(\\d{1,5})\\b");

		/**
		 * Every {@code host:port} written in an address (a cluster in single mode is
		 * described by several).
		 */
		static List<HostAndPort> in(String address) {
			List<HostAndPort> found = new ArrayList<>();
			Matcher matcher = ADDRESS.matcher(address);
			while (matcher.find()) {
				boolean bracketed = matcher.group(1) != null;
				found.add(new HostAndPort(matcher.group(bracketed ? 1 : 3),
						Integer.parseInt(matcher.group(bracketed ? 2 : 4))));
			}
			return found;
		}

	}

}
