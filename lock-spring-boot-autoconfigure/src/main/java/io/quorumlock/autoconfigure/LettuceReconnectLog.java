package io.quorumlock.autoconfigure;

import java.util.List;

import org.springframework.util.ClassUtils;

/**
 * Keeps Lettuce's own reconnect lines about the engine's masters out of the log while the
 * context runs, when Logback is the logging system ({@link LettuceReconnectFilter}); with
 * another logging system it does nothing. Written without a Logback type in its
 * signatures, so that it loads without Logback.
 */
final class LettuceReconnectLog {

	private static final boolean LOGBACK = ClassUtils.isPresent("ch.qos.logback.classic.LoggerContext",
			LettuceReconnectLog.class.getClassLoader());

	private final List<String> masters;

	private Object filter;

	/**
	 * @param masters the engine's masters, {@code host:port}
	 */
	LettuceReconnectLog(List<String> masters) {
		this.masters = List.copyOf(masters);
	}

	void start() {
		if (LOGBACK && this.filter == null) {
			LettuceReconnectFilter filter = new LettuceReconnectFilter(this.masters);
			if (filter.install()) {
				this.filter = filter;
			}
		}
	}

	void close() {
		if (this.filter != null) {
			((LettuceReconnectFilter) this.filter).uninstall();
			this.filter = null;
		}
	}

	/** Lines kept out of the log so far (0 without Logback). */
	long kept() {
		return (this.filter != null) ? ((LettuceReconnectFilter) this.filter).kept() : 0;
	}

}
