package io.quorumlock.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLockRegistry;

/**
 * Etcd mode asked for ({@code quorumlock.etcd.endpoints}) without
 * {@code io.quorumlock:lock-etcd} on the class path: the starter does not bring etcd's
 * client, so start-up fails saying which dependency to add, instead of leaving the aspect
 * without a registry or falling back to Redis.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingClass(EtcdModeConfiguration.ETCD_REGISTRY)
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Etcd.class)
class NoEtcdClientConfiguration {

	@Bean
	DistributedLockRegistry quorumLockEtcdRegistry(QuorumLockProperties properties) {
		throw new InvalidQuorumLockPropertyException("quorumlock.etcd.endpoints",
				String.join(",", properties.getEtcd().getEndpoints()),
				"is set, but io.quorumlock:lock-etcd is not on the class path: the starter does not bring etcd's "
						+ "client; add the dependency io.quorumlock:lock-etcd (its version comes from quorumlock-bom)");
	}

}
