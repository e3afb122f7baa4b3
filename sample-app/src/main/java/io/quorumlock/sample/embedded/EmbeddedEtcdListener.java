package io.quorumlock.sample.embedded;

import java.util.Map;

import io.quorumlock.testing.EtcdMembers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.Profiles;

/**
 * Zero-setup etcd for the sample's {@code etcd} profile: when that profile is active and
 * {@code quorumlock.etcd.endpoints} is not set, start a local three-member etcd cluster
 * (the {@code etcd} binary from {@code ETCD_BINARY} or the {@code PATH}) before the
 * application context is created and lock on it; stop it when the context closes, after
 * every bean of the application is destroyed. {@code sample.embedded-etcd.enabled=false}
 * turns it off. Registered in {@code META-INF/spring.factories}, beside
 * {@link EmbeddedRedisListener}, which backs off under this profile.
 */
public class EmbeddedEtcdListener implements SmartApplicationListener {

	/** The profile that locks on etcd. */
	public static final String ETCD_PROFILE = "etcd";

	/** Property that turns the embedded members off. */
	public static final String ENABLED = "sample.embedded-etcd.enabled";

	/** Name of the property source this listener adds. */
	public static final String PROPERTY_SOURCE = "sampleEmbeddedEtcd";

	private static final int MEMBERS = 3;

	private static final Log logger = LogFactory.getLog(EmbeddedEtcdListener.class);

	private volatile EtcdMembers members;

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
		if (this.members != null || !environment.acceptsProfiles(Profiles.of(ETCD_PROFILE))) {
			return;
		}
		if (!environment.getProperty(ENABLED, Boolean.class, true)) {
			logger.info("Embedded etcd members off: " + ENABLED + "=false");
			return;
		}
		if (environment.containsProperty("quorumlock.etcd.endpoints")
				|| environment.containsProperty("quorumlock.etcd.endpoints[0]")) {
			logger.info("Embedded etcd members off: quorumlock.etcd.endpoints is set");
			return;
		}
		EtcdMembers started = EtcdMembers.start(MEMBERS);
		this.members = started;
		// Safety net for a JVM that exits without closing the context; removed on stop()
		Thread hook = new Thread(this::closeContextThenStop, "sample-embedded-etcd-shutdown");
		Runtime.getRuntime().addShutdownHook(hook);
		this.shutdownHook = hook;
		environment.getPropertySources()
			.addLast(new MapPropertySource(PROPERTY_SOURCE,
					Map.of("quorumlock.etcd.endpoints", String.join(",", started.endpoints()))));
		logger
			.info("Started " + MEMBERS + " local etcd members for etcd mode: " + String.join(", ", started.endpoints())
					+ ". They stop with the application. Use your own cluster with quorumlock.etcd.endpoints or "
					+ ENABLED + "=false.");
	}

	/**
	 * Stop the members as the context's very last disposable bean, after the registry.
	 */
	private void registerStop(ConfigurableApplicationContext context) {
		this.context = context;
		if (this.members != null && context.getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
			registry.registerDisposableBean("sampleEmbeddedEtcdMembers", this::stop);
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
		EtcdMembers started = this.members;
		this.members = null;
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
				// the JVM is already shutting down: the hook may run, close() is
				// idempotent
			}
		}
	}

}
