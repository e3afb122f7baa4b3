package io.quorumlock.autoconfigure;

import io.quorumlock.etcd.EtcdLockRegistry;

/**
 * Callback to customize the {@link EtcdLockRegistry.Builder} of etcd mode after the
 * {@code quorumlock.*} properties have been applied, in order, before the registry is
 * built. Needs {@code io.quorumlock:lock-etcd} on the class path.
 */
@FunctionalInterface
public interface EtcdLockRegistryCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder, with the properties applied
	 */
	void customize(EtcdLockRegistry.Builder builder);

}
