package io.quorumlock.redis;

import io.quorumlock.testing.InMemoryLockRegistry;

/**
 * The registry contract on lock-test's {@link InMemoryLockRegistry}, its peer standing
 * for another process.
 */
class InMemoryRegistryContractTests extends DistributedLockRegistryContract<InMemoryLockRegistry> {

	@Override
	InMemoryLockRegistry registry() {
		return new InMemoryLockRegistry();
	}

	@Override
	InMemoryLockRegistry otherProcess(InMemoryLockRegistry first) {
		return first.peer();
	}

}
