package io.quorumlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import io.quorumlock.actuate.NodeStateLog;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for quorumlock: a {@link io.quorumlock.DistributedLockRegistry} on
 * etcd when {@code quorumlock.etcd.endpoints} lists members (with
 * {@code io.quorumlock:lock-etcd}), else in quorum mode when {@code quorumlock.nodes}
 * lists masters, else in single mode on the application's {@code spring.data.redis}
 * connection; the {@code @DistributedLock} advisor; and the start-up checks. Every bean
 * backs off when the application defines its own; all of it when
 * {@code quorumlock.enabled=false}.
 * <p>
 * One jar for Spring Boot 3.5 and 4.x: single mode reads the Redis connection through
 * {@link SingleModeConfiguration} on Boot 3 and {@link Boot4SingleModeConfiguration} on
 * Boot 4, each chosen by the presence of its line's connection-details class; ordering
 * hints name both lines' Redis auto-configurations.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnProperty(prefix = "quorumlock", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(QuorumLockProperties.class)
@Import({ EtcdModeConfiguration.class, NoEtcdClientConfiguration.class, QuorumModeConfiguration.class,
		SingleModeConfiguration.class, Boot4SingleModeConfiguration.class, NoRedisSingleModeConfiguration.class,
		QuorumLockAspectConfiguration.class })
public class QuorumLockAutoConfiguration {

	@Bean
	@ConfigurationPropertiesBinding
	@ConditionalOnMissingBean
	static NodeConverter quorumLockNodeConverter() {
		return new NodeConverter();
	}

	@Bean
	@ConfigurationPropertiesBinding
	@ConditionalOnMissingBean
	static RetryDelayConverter quorumLockRetryDelayConverter() {
		return new RetryDelayConverter();
	}

	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnBean(QuorumLockEngine.class)
	@ConditionalOnMissingBean
	NodeStateLog quorumLockNodeStateLog(QuorumLockEngine engine) {
		return new NodeStateLog(engine, engine.rejoinDelay());
	}

	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnBean(QuorumLockEngine.class)
	LettuceReconnectLog quorumLockLettuceReconnectLog(QuorumLockEngine engine) {
		return new LettuceReconnectLog(engine.nodeAddresses());
	}

	@Bean
	@ConditionalOnMissingBean
	LeaseLostEventPublisher quorumLockLeaseLostEventPublisher(ApplicationEventPublisher publisher) {
		return new LeaseLostEventPublisher(publisher);
	}

}
