package io.quorumlock.sample.embedded;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import io.quorumlock.testing.RedisBinary;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.Profiles;

/**
 * Zero-setup Redis for the sample: when nothing points the application at Redis, start
 * three local {@code redis-server} masters before the application context is created and
 * run quorumlock in quorum mode on them; stop them when the context closes, after every
 * bean of the application is destroyed.
 * <p>
 * It runs on {@link ApplicationEnvironmentPreparedEvent}, after the configuration files
 * and profiles are loaded and before any auto-configuration condition is evaluated, so
 * the {@code quorumlock.nodes} it adds decides the mode like a user's own property. The
 * property source is added last: anything the user configures wins.
 * <p>
 * Backs off (starts nothing) when any of these holds:
 * {@code sample.embedded-redis.enabled=false}, {@code quorumlock.enabled=false},
 * {@code quorumlock.nodes} or {@code quorumlock.etcd.endpoints} is set (in any form), the
 * {@code etcd} profile is active ({@link EmbeddedEtcdListener}),
 * {@code spring.data.redis.host}, {@code spring.data.redis.url} or
 * {@code spring.data.redis.sentinel.master} is set, or the {@code external} profile is
 * active. Registered in {@code META-INF/spring.factories}.
 */
public class EmbeddedRedisListener implements SmartApplicationListener {

	/** Property that turns the embedded masters off. */
	public static final String ENABLED = "sample.embedded-redis.enabled";

	/** Property this listener sets to the masters' PIDs (comma-separated). */
	public static final String PIDS = "sample.embedded-redis.pids";

	/** Profile that means "use my own Redis". */
	public static final String EXTERNAL_PROFILE = "external";

	/** Name of the property source this listener adds. */
	public static final String PROPERTY_SOURCE = "sampleEmbeddedRedis";

	private static final int MASTERS = 3;

	private static final Log logger = LogFactory.getLog(EmbeddedRedisListener.class);

	/** The masters this listener started, at most once per application run. */
	private volatile EmbeddedRedisMasters masters;

	private volatile Thread shutdownHook;

	private volatile ConfigurableApplicationContext context;

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationFailedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public int getOrder() {
		// after config data (HIGHEST + 10) and logging (HIGHEST + 20) are set up
		return Ordered.HIGHEST_PRECEDENCE + 30;
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			start(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared) {
			registerStop(prepared.getApplicationContext());
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	private void start(ConfigurableEnvironment environment) {
		if (this.masters != null) {
			return;
		}
		String reason = backOffReason(environment);
		if (reason != null) {
			logger.info("Embedded Redis masters off: " + reason);
			return;
		}
		Path binary = RedisBinary.resolve();
		EmbeddedRedisMasters started = EmbeddedRedisMasters.start(binary, MASTERS);
		this.masters = started;
		// Safety net for a JVM that exits without closing the context;
		// removed on stop(). It runs beside Spring Boot's own shutdown
		// hook, so it closes the context first (or waits for that close
		// to finish): the masters go last, after the lock engine.
		Thread hook = new Thread(this::closeContextThenStop, "sample-embedded-redis-shutdown");
		Runtime.getRuntime().addShutdownHook(hook);
		this.shutdownHook = hook;
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("quorumlock.nodes", String.join(",", started.uris()));
		// The restart guard holds back a master whose uptime is below rejoin-delay (by
		// default the longest lease, 30 s): a fresh master looks exactly like one that
		// crashed and lost its keys. These masters were started a moment ago by this JVM
		// and hold no lock of anyone, so the guard would only keep the sample from
		// locking for its first 30 s. Turning it off is safe here and only here; never
		// for real masters.
		properties.put("quorumlock.rejoin-delay", "0s");
		properties.put(PIDS, started.pids().stream().map(String::valueOf).collect(Collectors.joining(",")));
		environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE, properties));
		logger.info("Started " + MASTERS + " local redis-server masters (" + binary + ") for quorum mode: "
				+ String.join(", ", started.uris())
				+ "; quorumlock.rejoin-delay=0s because they are fresh. They stop with the application. "
				+ "Use your own Redis with quorumlock.nodes, spring.data.redis.*, the '" + EXTERNAL_PROFILE
				+ "' profile or " + ENABLED + "=false.");
	}

	/**
	 * Stop the masters as the context's first registered disposable bean, so as its very
	 * last one: after the lock engine has released its leases and closed its connections.
	 */
	private void registerStop(ConfigurableApplicationContext context) {
		this.context = context;
		if (this.masters != null && context.getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
			registry.registerDisposableBean("sampleEmbeddedRedisMasters", this::stop);
		}
	}

	private void closeContextThenStop() {
		ConfigurableApplicationContext current = this.context;
		if (current != null) {
			current.close();
		}
		stop();
	}

	private void stop() {
		EmbeddedRedisMasters started = this.masters;
		this.masters = null;
		if (started == null) {
			return;
		}
		started.close();
		Thread hook = this.shutdownHook;
		this.shutdownHook = null;
		if (hook != null) {
			try {
				Runtime.getRuntime().removeShutdownHook(hook);
			}
			catch (IllegalStateException ex) {
				// the JVM is already shutting down: the
				// hook may run, close() is idempotent
			}
		}
	}

	/**
	 * Why the embedded masters must not start in {@code environment}, or {@code null} if
	 * they should.
	 * @param environment the application's environment, with its configuration loaded
	 * @return the reason, or {@code null}
	 */
	static String backOffReason(ConfigurableEnvironment environment) {
		if (!environment.getProperty(ENABLED, Boolean.class, true)) {
			return ENABLED + "=false";
		}
		if (!environment.getProperty("quorumlock.enabled", Boolean.class, true)) {
			return "quorumlock.enabled=false";
		}
		if (environment.acceptsProfiles(Profiles.of(EXTERNAL_PROFILE))) {
			return "the '" + EXTERNAL_PROFILE + "' profile is active";
		}
		if (environment.acceptsProfiles(Profiles.of(EmbeddedEtcdListener.ETCD_PROFILE))) {
			return "the '" + EmbeddedEtcdListener.ETCD_PROFILE + "' profile is active: the locks live on etcd";
		}
		for (String name : new String[] { "quorumlock.nodes", "quorumlock.etcd.endpoints", "spring.data.redis.host",
				"spring.data.redis.url", "spring.data.redis.sentinel.master" }) {
			if (isSet(environment, name)) {
				return name + " is set";
			}
		}
		return null;
	}

	/** Whether {@code name} or any property below it ({@code name[0].uri}) is set. */
	private static boolean isSet(ConfigurableEnvironment environment, String name) {
		ConfigurationPropertyName property = ConfigurationPropertyName.of(name);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			ConfigurationProperty value = source.getConfigurationProperty(property);
			if (value != null || source.containsDescendantOf(property) == ConfigurationPropertyState.PRESENT) {
				return true;
			}
		}
		return false;
	}

}
