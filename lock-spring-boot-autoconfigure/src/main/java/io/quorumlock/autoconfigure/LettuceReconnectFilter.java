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

	/** The logger of Lettuce's {@code Reconnected to ...} line, at INFO. */
	static final String RECONNECTION_HANDLER = "io.lettuce.core.protocol.ReconnectionHandler";

	/**
	 * An address as {@link InetSocketAddress#toString()} writes it: {@code host/ip:port},
	 * {@code host/<unresolved>:port} or {@code /ip:port}; the ip may be IPv6.
	 */
	private static final Pattern WRITTEN = Pattern.compile("([A-Za-z0-9._-]*)/(<unresolved>|[0-9A-Fa-f.:%]*):(\\d+)");

	private final List<HostAndPort> masters;

	private final AtomicLong kept = new AtomicLong();

	private LoggerContext installedIn;

	LettuceReconnectFilter(List<String> masters) {
		this.masters = masters.stream().flatMap((address) -> HostAndPort.in(address).stream()).toList();
		setName("quorumlock-lettuce-reconnect-log");
	}

	@Override
	public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
		if (logger == null || level == null
				|| !(WATCHDOG.equals(logger.getName()) || RECONNECTION_HANDLER.equals(logger.getName()))
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
	 * ({@code Reconnecting, last destination was {}}), or written into the text
	 * ({@code Cannot reconnect to [redis-1/<unresolved>:6379]: ...}; and every line when
	 * Netty hands Logback the message already formatted, as it does for a location-aware
	 * logger).
	 */
	private boolean namesAMaster(String format, Object[] params) {
		if (params != null) {
			for (Object param : params) {
				if (param instanceof InetSocketAddress address && isMaster(address)) {
					return true;
				}
				if (param != null && writtenMaster(String.valueOf(param))) {
					return true;
				}
			}
		}
		return format != null && writtenMaster(format);
	}

	/** Whether {@code text} holds an address of a master, as an address writes itself. */
	private boolean writtenMaster(String text) {
		Matcher written = WRITTEN.matcher(text);
		while (written.find()) {
			int port;
			try {
				port = Integer.parseInt(written.group(3));
			}
			catch (NumberFormatException ex) {
				continue;
			}
			for (HostAndPort master : this.masters) {
				if (master.port() == port && (master.host().equalsIgnoreCase(written.group(1))
						|| master.host().equalsIgnoreCase(written.group(2)))) {
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
