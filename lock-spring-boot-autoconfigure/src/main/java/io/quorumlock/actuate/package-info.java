/**
 * Observability adapters over the API's SPIs: Micrometer meters fed by a
 * {@link io.quorumlock.LockListener}, a Micrometer Observation around acquisition, the
 * {@code locks} actuator endpoint and the {@code distributedLock} health contributor, all
 * reading the registry's {@link io.quorumlock.RegistryStatus}.
 */
package io.quorumlock.actuate;
