/**
 * Spring Boot auto-configuration of quorumlock: {@code quorumlock.*} properties, the
 * engine in single or quorum mode, the {@code @DistributedLock} advisor and start-up
 * checks, and, when Micrometer and actuator are present, the meters, the acquisition
 * observation, the {@code locks} endpoint and the {@code distributedLock} health
 * contributor. Only wires; no lock algorithm lives here.
 */
package io.quorumlock.autoconfigure;
